"""Invented people for the demo mode and the simulations (never real persons).

Names and numbers are generated from a seed; DNI numbers carry a correct
check letter so they pass the same validation as real documents.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from admission.generators.mrz_build import build_td1, build_td3
from admission.spanish_ids import dni_check_letter

SURNAMES = (
    "GARCÍA",
    "FERNÁNDEZ",
    "GONZÁLEZ",
    "RODRÍGUEZ",
    "LÓPEZ",
    "MARTÍNEZ",
    "SÁNCHEZ",
    "PÉREZ",
    "GÓMEZ",
    "MARTÍN",
    "JIMÉNEZ",
    "RUIZ",
    "HERNÁNDEZ",
    "DÍAZ",
    "MORENO",
    "MUÑOZ",
    "ÁLVAREZ",
    "ROMERO",
    "ALONSO",
    "GUTIÉRREZ",
    "NAVARRO",
    "TORRES",
    "DOMÍNGUEZ",
    "VÁZQUEZ",
    "RAMOS",
    "GIL",
    "RAMÍREZ",
    "SERRANO",
    "BLANCO",
    "MOLINA",
    "CASTAÑO",
    "IBÁÑEZ",
    "PEÑA",
    "OÑATE",
    "DE LA FUENTE",
    "SAN JOSÉ",
)
GIVEN = (
    "MARÍA",
    "JOSÉ",
    "ANTONIO",
    "CARMEN",
    "JUAN",
    "ANA",
    "MANUEL",
    "LUCÍA",
    "FRANCISCO",
    "LAURA",
    "DAVID",
    "MARTA",
    "JAVIER",
    "ELENA",
    "ÁLVARO",
    "PILAR",
    "SERGIO",
    "NURIA",
    "IÑAKI",
    "BEGOÑA",
    "JOSÉ LUIS",
    "MARÍA JESÚS",
    "JESÚS",
    "ROCÍO",
    "ÓSCAR",
    "SOFÍA",
)
FOREIGN = (
    ("SMITH", "JOHN", "GBR"),
    ("MÜLLER", "ANNA", "D"),
    ("ROSSI", "MARCO", "ITA"),
    ("DUPONT", "CLAIRE", "FRA"),
    ("SILVA", "JOÃO", "PRT"),
)


@dataclass(frozen=True, slots=True)
class DemoPerson:
    surname: str
    given_names: str
    birth_date: date
    dni: str  # "" for foreigners
    passport: str
    nationality: str

    def mrz(self, today: date) -> list[str]:
        """A current document: DNI 4.0 (TD1) for Spaniards, a passport otherwise."""
        expiry = today + timedelta(days=900)
        if self.dni:
            return build_td1(
                document_code="ID",
                issuer="ESP",
                document_number=self.passport,
                optional_data_1=self.dni,
                birth_date=self.birth_date,
                expiry_date=expiry,
                nationality="ESP",
                sex="F",
                surname=self.surname,
                given_names=self.given_names,
            )
        return build_td3(
            document_code="P",
            issuer=self.nationality,
            surname=self.surname,
            given_names=self.given_names,
            document_number=self.passport,
            nationality=self.nationality,
            birth_date=self.birth_date,
            sex="M",
            expiry_date=expiry,
            personal_number="",
        )


def demo_people(count: int, *, seed: int, today: date, minors: float = 0.0) -> list[DemoPerson]:
    rng = random.Random(seed)
    people = []
    for index in range(count):
        minor = rng.random() < minors
        age_days = (
            rng.randint(18 * 365 + 5, 85 * 365) if not minor else rng.randint(14 * 365, 17 * 365)
        )
        birth = today - timedelta(days=age_days)
        support = (
            "B"
            + "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2))
            + (f"{rng.randint(0, 999999):06d}")
        )
        if index % 10 == 9:  # one in ten is a foreign tourist with a passport
            surname, given, country = rng.choice(FOREIGN)
            people.append(DemoPerson(surname, given, birth, "", support, country))
            continue
        number = rng.randint(0, 99_999_999)
        dni = f"{number:08d}{dni_check_letter(number)}"
        surname = f"{rng.choice(SURNAMES)} {rng.choice(SURNAMES)}"
        people.append(DemoPerson(surname, rng.choice(GIVEN), birth, dni, support, "ESP"))
    return people
