"""Specimen documents: published samples that identify nobody (art. 23.1, obligation R9).

States publish specimens of their documents (in PRADO, the EU's public register of
authentic documents, and on their own pages), and ICAO Doc 9303 writes every example
for the fictitious state of Utopia (``UTO``). A specimen's zone has correct check digits,
so it parses valid; what gives it away is its state, its number or its holder's name.
The list is data (``admission/data/specimens.tsv``, one row per published marker with its
source); a document that matches a row is a specimen and is refused by the verdict
(:attr:`admission.verdict.Reason.SPECIMEN`), whatever flag or override is set.

Names are matched only where no real holder can bear them (ESPAÑOLA ESPAÑOLA, CARMEN;
MUSTERMANN, ERIKA; SPECIMEN ...): a realistic specimen name is listed by number instead.
"""

from __future__ import annotations

import csv
import unicodedata
from dataclasses import dataclass
from enum import unique
from functools import cache
from importlib import resources

from admission.codes import Code

__all__ = ["Specimen", "SpecimenReason", "specimen_reason", "specimens"]

ANY = "*"


@unique
class SpecimenReason(Code):
    """Which published marker the document matched (its row in specimens.tsv)."""

    SPECIMEN_STATE = "SPECIMEN_STATE"  # issued by a fictitious state (UTO, Doc 9303)
    SPECIMEN_NUMBER = "SPECIMEN_NUMBER"  # a published specimen's document number
    SPECIMEN_ID_NUMBER = "SPECIMEN_ID_NUMBER"  # a specimen's DNI/NIE or personal number
    SPECIMEN_NAME = "SPECIMEN_NAME"  # a published specimen holder's name


_REASON_OF_FIELD = {
    "issuer": SpecimenReason.SPECIMEN_STATE,
    "document_number": SpecimenReason.SPECIMEN_NUMBER,
    "id_number": SpecimenReason.SPECIMEN_ID_NUMBER,
    "name": SpecimenReason.SPECIMEN_NAME,
}
# The order reasons are reported in when several rows match.
_ORDER = tuple(SpecimenReason)


@dataclass(frozen=True, slots=True)
class Specimen:
    """One row of specimens.tsv."""

    issuer: str  # ICAO 9303 part 3 code, or "*"
    document: str  # a DocumentType value, or "*"
    field: str  # issuer, document_number, id_number or name
    value: str  # normalised: upper case, letters/digits; a name is "SURNAME/GIVEN"
    source: str

    @property
    def reason(self) -> SpecimenReason:
        return _REASON_OF_FIELD[self.field]


def _fold(text: str) -> str:
    """Upper case, accents removed, every run of non-alphanumerics one space."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).upper()
    return " ".join("".join(ch if ch.isalnum() else " " for ch in plain).split())


def _number(text: str) -> str:
    return "".join(ch for ch in _fold(text) if ch.isalnum())


def _name_key(surname: str, given_names: str) -> str:
    return f"{_fold(surname)}/{_fold(given_names)}"


@cache
def specimens() -> tuple[Specimen, ...]:
    """The rows of ``admission/data/specimens.tsv`` (comment lines start with ``#``)."""
    text = resources.files("admission.data").joinpath("specimens.tsv").read_text("utf-8")
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    rows: list[Specimen] = []
    for row in csv.DictReader(lines, delimiter="\t"):
        field = row["field"]
        if field not in _REASON_OF_FIELD:
            raise ValueError(f"specimens.tsv: unknown field {field!r}")
        if field == "name":
            surname, _, given = row["value"].partition("/")
            value = f"{_fold(surname)}/{ANY if given == ANY else _fold(given)}"
        else:
            value = _number(row["value"])
        rows.append(Specimen(row["issuer"], row["document"], field, value, row["source"]))
    return tuple(rows)


def specimen_reason(
    *,
    issuer: str,
    document: str,
    document_number: str = "",
    id_number: str = "",
    surname: str = "",
    given_names: str = "",
) -> SpecimenReason | None:
    """The first marker (in :class:`SpecimenReason` order) the document matches, or None.

    ``issuer`` is the ICAO code as in the MRZ (``D`` for Germany, fillers removed);
    ``document`` a :class:`~admission.documents.DocumentType` value.
    """
    numbers = {_number(document_number), _number(id_number)} - {""}
    name = _name_key(surname, given_names)
    found: set[SpecimenReason] = set()
    for row in specimens():
        if row.issuer not in (ANY, issuer) or row.document not in (ANY, document):
            continue
        if row.field == "issuer":
            hit = True
        elif row.field == "name":
            hit = name == row.value or (
                row.value.endswith("/" + ANY) and name.split("/")[0] == row.value[:-2]
            )
        else:
            hit = row.value in numbers
        if hit:
            found.add(row.reason)
    return min(found, key=_ORDER.index) if found else None
