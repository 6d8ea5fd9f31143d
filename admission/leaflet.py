"""The desk information leaflet (folleto informativo, art. 25.1, R14).

The admission service must hold a copy of the regulation and free leaflets with, at
least: opening hours, foreign-currency exchange, the obligation to play with cash
(except type C machines), minimum and maximum bets of each game, admission conditions,
card prices and the games offered. This module turns configuration into that content,
in Spanish (the leaflet is handed to visitors); ``hardware/printer/documents.py`` lays
it out on A5.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import unique

from admission.cards.view import clean_text, format_euros
from admission.codes import Code
from admission.errors import ConfigError

__all__ = [
    "BetLimit",
    "Leaflet",
    "LeafletConfig",
    "LeafletErrorCode",
    "LeafletSection",
    "build_leaflet",
    "leaflet_config_from_settings",
]

DAY_LABELS = {
    "mon": "Lunes",
    "tue": "Martes",
    "wed": "Miércoles",
    "thu": "Jueves",
    "fri": "Viernes",
    "sat": "Sábado",
    "sun": "Domingo",
    "eve": "Vísperas de festivo",
}

DEFAULT_CONDITIONS: tuple[str, ...] = (
    "Para entrar es imprescindible identificarse con DNI, pasaporte, permiso de "
    "conducción o tarjeta de residencia en los que figuren nombre completo, fotografía y "
    "firma (art. 23.1).",
    "No se admite a menores de edad ni a las personas inscritas en el Registro de "
    "Interdicciones de Acceso al Juego (art. 21.1).",
    "La tarjeta de entrada es nominativa y personal; debe mostrarse siempre que la "
    "soliciten los empleados del casino o los inspectores de juego (art. 22.4).",
    "El casino puede denegar la entrada o expulsar a quien perturbe el orden o el "
    "desarrollo de los juegos (art. 21.2-3).",
)
LAST_HOUR_CONDITION = (
    "No se admiten nuevas entradas durante la última hora antes del "
    "cierre de las salas (art. 21.4)."
)
DEFAULT_CASH_ONLY = (
    "En las salas de juego solo se juega con dinero en efectivo o con "
    "fichas adquiridas en el casino, excepto en las máquinas de tipo C "
    "(art. 25.1)."
)
DEFAULT_EXCHANGE = "Consulte en caja el cambio de moneda extranjera del día."
REGULATION_NOTICE = (
    "Este servicio de admisión dispone de una copia del Reglamento de "
    "Casinos de Juego de la Comunidad de Madrid (Decreto 58/2006), a "
    "disposición de quien la solicite (art. 25.1)."
)
MAX_ITEMS = 40


@unique
class LeafletErrorCode(Code):
    """Why the leaflet's configuration is refused (art. 25.1: minimum and maximum bets)."""

    LEAFLET_BAD_BET_LIMIT = "LEAFLET_BAD_BET_LIMIT"  # not an object, or not 0 <= min <= max


@dataclass(frozen=True, slots=True)
class BetLimit:
    game: str
    min_cents: int
    max_cents: int

    def __post_init__(self) -> None:
        if self.min_cents < 0 or self.max_cents < self.min_cents:
            raise ConfigError(
                "bet limits must satisfy 0 <= min <= max",
                code=LeafletErrorCode.LEAFLET_BAD_BET_LIMIT,
            )


@dataclass(frozen=True, slots=True)
class LeafletConfig:
    casino_name: str
    address: str = ""
    hours: Sequence[tuple[str, str]] = ()  # (day label, "20:00-04:00")
    card_prices: Sequence[tuple[str, int]] = ()  # (card type label, cents)
    games: Sequence[str] = ()
    bet_limits: Sequence[BetLimit] = ()
    currency_exchange: str = DEFAULT_EXCHANGE
    cash_only: str = DEFAULT_CASH_ONLY
    conditions: Sequence[str] = DEFAULT_CONDITIONS
    stop_last_hour: bool = False


@dataclass(frozen=True, slots=True)
class LeafletSection:
    heading: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Leaflet:
    title: str
    subtitle: str
    sections: tuple[LeafletSection, ...]
    footer: str = field(default=REGULATION_NOTICE)


def _items(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(clean_text(v, 400) for v in list(values)[:MAX_ITEMS] if clean_text(v, 400))


def build_leaflet(config: LeafletConfig) -> Leaflet:
    """Every section art. 25.1 names, in a fixed order; an empty one says so rather
    than disappearing, so a missing configuration is visible on the proof."""
    missing = ("(sin configurar)",)
    hours = tuple(
        f"{clean_text(day, 40)}: {clean_text(span, 40)}"
        for day, span in list(config.hours)[:MAX_ITEMS]
    )
    prices = tuple(
        f"{clean_text(label, 80)}: {format_euros(cents)}"
        for label, cents in list(config.card_prices)[:MAX_ITEMS]
    )
    limits = tuple(
        f"{clean_text(b.game, 80)}: mínima {format_euros(b.min_cents)}, "
        f"máxima {format_euros(b.max_cents)}"
        for b in list(config.bet_limits)[:MAX_ITEMS]
    )
    conditions = _items(config.conditions)
    if config.stop_last_hour:
        conditions += (LAST_HOUR_CONDITION,)
    sections = (
        LeafletSection("Horario de las salas de juego", hours or missing),
        LeafletSection("Condiciones de admisión", conditions or missing),
        LeafletSection("Precio de las tarjetas de entrada", prices or missing),
        LeafletSection("Juegos que se practican", _items(config.games) or missing),
        LeafletSection("Apuestas mínimas y máximas", limits or missing),
        LeafletSection("Juego con dinero en efectivo", _items([config.cash_only]) or missing),
        LeafletSection(
            "Cambio de moneda extranjera", _items([config.currency_exchange]) or missing
        ),
    )
    return Leaflet(
        title=clean_text(config.casino_name, 80),
        subtitle=clean_text(config.address, 160) or "Información al visitante",
        sections=sections,
    )


def leaflet_config_from_settings(values: Mapping[str, object]) -> LeafletConfig:
    """From settings values: ``casino.name``, ``casino.address``, ``hours`` (day code →
    span), ``cards.types`` (label_es, price_cents), ``admission.stop_last_hour`` and the
    optional ``leaflet.games`` (list of names), ``leaflet.bet_limits`` (list of
    {game, min_cents, max_cents}), ``leaflet.exchange`` (text)."""
    hours_raw = values.get("hours", {})
    hours = [
        (DAY_LABELS.get(str(day), str(day)), str(span))
        for day, span in (hours_raw.items() if isinstance(hours_raw, Mapping) else ())
    ]
    prices: list[tuple[str, int]] = []
    for item in _list(values.get("cards.types")):
        if isinstance(item, Mapping) and isinstance(item.get("price_cents"), int):
            prices.append(
                (str(item.get("label_es", item.get("code", ""))), int(item["price_cents"]))
            )
    limits: list[BetLimit] = []
    for item in _list(values.get("leaflet.bet_limits")):
        if not isinstance(item, Mapping):
            raise ConfigError(
                "bet limit must be an object", code=LeafletErrorCode.LEAFLET_BAD_BET_LIMIT
            )
        try:
            limits.append(
                BetLimit(str(item["game"]), int(item["min_cents"]), int(item["max_cents"]))
            )
        except (KeyError, TypeError, ValueError):
            raise ConfigError(
                "bad bet limit", code=LeafletErrorCode.LEAFLET_BAD_BET_LIMIT
            ) from None
    exchange = values.get("leaflet.exchange")
    return LeafletConfig(
        casino_name=str(values.get("casino.name", "")),
        address=str(values.get("casino.address", "")),
        hours=hours,
        card_prices=prices,
        games=[str(g) for g in _list(values.get("leaflet.games"))],
        bet_limits=limits,
        currency_exchange=str(exchange) if exchange else DEFAULT_EXCHANGE,
        stop_last_hour=bool(values.get("admission.stop_last_hour", False)),
    )


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []
