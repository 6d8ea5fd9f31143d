"""Declared, typed settings (STYLE.md rule 16): key, default, type, description.

Secrets are never settings: the database key, registry credentials and the card
code MAC key live in the OS keyring or inside the encrypted file. The settings
file is JSON; a file written by an older version is upgraded step by step
(``UPGRADES``) and unknown or ill-typed values are refused with a code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import unique
from pathlib import Path
from typing import Any

from admission.atomic_file import write_atomically
from admission.cards.catalogue import DEFAULT_CARD_TYPES
from admission.codes import Code
from admission.errors import ConfigError

SETTINGS_VERSION = 2


@unique
class SettingsErrorCode(Code):
    """Why a setting or the settings file is refused."""

    UNKNOWN_SETTING = "UNKNOWN_SETTING"  # not a declared key
    SETTING_BAD_TYPE = "SETTING_BAD_TYPE"
    SETTING_BAD_CHOICE = "SETTING_BAD_CHOICE"  # not one of the declared choices
    SETTING_BAD_FORMAT = "SETTING_BAD_FORMAT"  # does not match the declared pattern
    SETTINGS_UNREADABLE = "SETTINGS_UNREADABLE"  # not readable, not JSON or not an object
    SETTINGS_VERSION = "SETTINGS_VERSION"  # written by a newer (or unknown) version


@dataclass(frozen=True, slots=True)
class Setting:
    key: str
    default: Any
    type: type | tuple[type, ...]
    description: str
    choices: tuple[str, ...] = ()
    pattern: str = ""  # full-match regular expression for text settings
    bounds: tuple[int, int] | None = None  # inclusive range of whole-number settings
    # read once when the desk starts (the file, the server, the register's client):
    # a change applies from the next start, and the settings screen says so
    restart: bool = False


DECLARED: tuple[Setting, ...] = (
    Setting(
        "casino.id",
        "CAS01",
        str,
        "Short casino id (1-8 A-Z/0-9), printed in card codes",
        pattern=r"[A-Z0-9]{1,8}",
        restart=True,
    ),
    Setting("casino.name", "Casino de demostración", str, "Name on cards and leaflets"),
    Setting("casino.address", "", str, "Address on the leaflet"),
    Setting(
        "desk.id",
        "DESK1",
        str,
        "This admission desk (several desks share one file, R17)",
        restart=True,
    ),
    Setting(
        "database.url",
        "",
        str,
        "The casino's PostgreSQL server (postgresql://desk@host/db, arts. 154-155); "
        "empty = this desk's own SQLCipher file; ADMISSION_DATABASE_URL wins",
        restart=True,
    ),
    Setting(
        "database.require_sync_standby",
        False,
        bool,
        "Refuse to open unless the server commits synchronously with a standby attached "
        "(PG_NO_SYNC_STANDBY; otherwise a warning in the status bar, art. 22.1)",
        restart=True,
    ),
    Setting(
        "admission.unverifiable",
        "DENY",
        str,
        "Outcome when the RIAJ cannot be checked (fail closed)",
        ("DENY", "SUPERVISOR"),
    ),
    Setting(
        "admission.chip_unverifiable",
        "ADMIT",
        str,
        "Outcome when the document's chip proves nothing either way (no chip, no master "
        "list, it would not answer): ADMIT shows it beside the verdict; DENY is not "
        "admitted; a forged chip is always refused (art. 23.1)",
        ("ADMIT", "SUPERVISOR", "DENY"),
    ),
    Setting(
        "admission.stop_last_hour",
        False,
        bool,
        "Stop new admissions in the last hour before closing (art. 21.4)",
    ),
    Setting(
        "hours",
        {},
        dict,
        'Opening hours per day type (art. 27), e.g. {"sat": "20:00-05:00", '
        '"mon": "closed"}; empty = no hour limits until the director sets them',
    ),
    Setting("holidays", [], list, "Public holidays (YYYY-MM-DD)"),
    Setting(
        "cards.types",
        [dict(t) for t in DEFAULT_CARD_TYPES],
        list,
        "Card types and prices in cents (art. 23.2-3); several_entries: true lets the "
        "holder of a valid card of that type in again on it (default false: one card, "
        "one admission, art. 22)",
    ),
    Setting("cards.default", "DAY", str, "Card type offered by default"),
    Setting(
        "registry.max_replica_age_hours",
        24,
        int,
        "A replica older than this is not used (UNVERIFIABLE)",
    ),
    Setting(
        "registry.online_url",
        "",
        str,
        "RIAJ verification endpoint; empty = replica only",
        restart=True,
    ),
    Setting("registry.timeout_seconds", 5, int, "Online check timeout", restart=True),
    Setting("registry.sync_minutes", 15, int, "Change-feed pull period", restart=True),
    Setting(
        "registry.public_key",
        "",
        str,
        "Snapshot signature Ed25519 public key (hex, base64 or PEM); empty = none",
        restart=True,
    ),
    Setting(
        "registry.ca_file", "", str, "CA bundle of the RIAJ endpoint; empty = system", restart=True
    ),
    Setting(
        "registry.client_cert",
        "",
        str,
        "Client certificate (PEM) granted by the regulator",
        restart=True,
    ),
    Setting(
        "registry.client_key",
        "",
        str,
        "Client private key (PEM, passphrase-protected; passphrase in the OS keyring)",
        restart=True,
    ),
    Setting(
        "registry.username",
        "",
        str,
        "RIAJ user name (its password is in the OS keyring)",
        restart=True,
    ),
    Setting(
        "registry.max_attempts", 3, int, "Attempts per online check (bounded retries)", restart=True
    ),
    Setting(
        "printer.backend", "pdf-folder", str, "How cards are printed", ("cups", "qt", "pdf-folder")
    ),
    Setting("printer.card", "", str, "Card printer queue"),
    Setting("printer.receipt", "", str, "Receipt / voucher printer queue"),
    Setting("card.logo", "", str, "Path of the casino logo image"),
    Setting("card.signature", "", str, "Path of the director's signature or seal image"),
    Setting("card.colour", "#0B3D2E", str, "Card header band colour"),
    Setting("card.text_colour", "", str, "Card text colour; empty = default"),
    Setting("card.accent_colour", "", str, "Colour of exceptional/special marks"),
    Setting("card.font", "", str, "TrueType font for card text; empty = bundled DejaVu Sans"),
    Setting("card.font_bold", "", str, "Bold TrueType font; empty = bundled DejaVu Sans Bold"),
    Setting(
        "card.signature_caption",
        "El director de juegos",
        str,
        "Caption under the director's signature or seal",
    ),
    Setting("printer.leaflet", "", str, "Printer queue for the A5 desk leaflet (art. 25)"),
    Setting(
        "printer.pdf_folder",
        "",
        str,
        "Folder of the PDF-folder printer; empty = the data folder's cards/",
    ),
    Setting("printer.job_timeout_seconds", 60, int, "How long a print job is followed"),
    Setting(
        "leaflet.games",
        ["Ruleta francesa", "Ruleta americana", "Black Jack", "Punto y Banca", "Póker"],
        list,
        "Games offered (art. 25)",
    ),
    Setting(
        "leaflet.bet_limits",
        [],
        list,
        "Bet limits per game: [{game, min_cents, max_cents}] (art. 25)",
    ),
    Setting(
        "leaflet.exchange",
        "Cambio de moneda disponible en caja.",
        str,
        "Currency exchange information (art. 25)",
    ),
    Setting(
        "leaflet.regulation_path",
        "",
        str,
        "Text of the regulation at the desk; empty = the bundled Decreto 58/2006",
    ),
    Setting("camera.device", "0", str, "Camera index or device path"),
    Setting("scanner.serial_port", "", str, "Serial port of the document reader"),
    Setting(
        "chip.reader",
        "",
        str,
        "PC/SC reader of the documents' chips (ICAO 9303): part of its name, '*' = the "
        "first reader found; empty = no chip reader",
    ),
    Setting("barcode.decoder", "zxing", str, "Barcode decoder", ("zxing", "zbar")),
    Setting("ui.language", "es", str, "Language of the desk window", ("es", "en")),
    # the desk is read from about three metres: a dim counter takes the dark theme, a
    # bright hall the light high-contrast one; the text size for the whole window
    Setting("ui.theme", "dark", str, "Colours of the desk window", ("dark", "light")),
    Setting("ui.font_size", 12, int, "Text size of the desk window (points)", bounds=(10, 24)),
    # Desk accounts (art. 20.3: the director answers for the service, so sign-ins are
    # guarded): wrong passwords in a row before an account locks, for how long, and the
    # minutes without a key or a click before the desk locks itself.
    Setting(
        "accounts.max_failures",
        5,
        int,
        "Wrong passwords in a row that lock an account",
        bounds=(1, 100),
        restart=True,
    ),
    Setting(
        "accounts.lock_minutes",
        15,
        int,
        "Minutes an account stays locked",
        bounds=(1, 1440),
        restart=True,
    ),
    # The floor's card checks (art. 22.4): staff and inspectors verify a card at a table,
    # at the poker room's door (art. 26.2) or in an annex room, with a phone on the LAN.
    Setting(
        "floor.listen",
        "",
        str,
        "Serve the floor's card-check page from this desk on HOST:PORT (HTTPS); empty = off",
        pattern=r"(|[A-Za-z0-9.-]{1,253}:[0-9]{1,5}|\[[0-9A-Fa-f:.]{2,45}\]:[0-9]{1,5})",
        restart=True,
    ),
    Setting(
        "floor.cert_file",
        "",
        str,
        "The floor page's certificate (PEM) from the casino's CA; empty = the desk's own CA",
        restart=True,
    ),
    Setting(
        "floor.key_file",
        "",
        str,
        "The private key (PEM) of floor.cert_file",
        restart=True,
    ),
    Setting(
        "session.idle_minutes",
        5,
        int,
        "Idle minutes before the desk locks itself",
        bounds=(1, 720),
        restart=True,
    ),
)
BY_KEY: dict[str, Setting] = {s.key: s for s in DECLARED}


def needs_restart(keys: Iterable[str]) -> list[str]:
    """The keys among ``keys`` that apply only from the desk's next start (sorted)."""
    return sorted(k for k in set(keys) if k in BY_KEY and BY_KEY[k].restart)


# Numbered upgrades: UPGRADES[n] turns a version-n file into version n+1.
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    # v1 stored the unit price in euros as "card.price"; v2 uses card types in cents.
    1: lambda d: {k: v for k, v in d.items() if k != "card.price"},
}


class Settings:
    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self._values: dict[str, Any] = {}
        for key, value in (values or {}).items():
            self.set(key, value)

    def __getitem__(self, key: str) -> Any:
        if key not in BY_KEY:
            raise ConfigError(f"unknown setting {key}", code=SettingsErrorCode.UNKNOWN_SETTING)
        return self._values.get(key, BY_KEY[key].default)

    def set(self, key: str, value: Any) -> None:
        setting = BY_KEY.get(key)
        if setting is None:
            raise ConfigError(f"unknown setting {key}", code=SettingsErrorCode.UNKNOWN_SETTING)
        if not isinstance(value, setting.type) or (setting.type is int and isinstance(value, bool)):
            raise ConfigError(
                f"setting {key} has the wrong type", code=SettingsErrorCode.SETTING_BAD_TYPE
            )
        if setting.choices and value not in setting.choices:
            raise ConfigError(
                f"setting {key} must be one of {setting.choices}",
                code=SettingsErrorCode.SETTING_BAD_CHOICE,
            )
        if setting.bounds and not setting.bounds[0] <= value <= setting.bounds[1]:
            raise ConfigError(
                f"setting {key} must be within {setting.bounds}",
                code=SettingsErrorCode.SETTING_BAD_CHOICE,
            )
        if setting.pattern and not re.fullmatch(setting.pattern, value):
            raise ConfigError(
                f"setting {key} has a bad format", code=SettingsErrorCode.SETTING_BAD_FORMAT
            )
        self._values[key] = value

    def as_dict(self) -> dict[str, Any]:
        """Every declared setting with its current value (defaults included)."""
        return {s.key: self[s.key] for s in DECLARED}

    def to_json(self) -> dict[str, Any]:
        return {"version": SETTINGS_VERSION, **self._values}

    @classmethod
    def load(cls, path: Path) -> Settings:
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(
                f"settings file unreadable: {exc.__class__.__name__}",
                code=SettingsErrorCode.SETTINGS_UNREADABLE,
            ) from None
        if not isinstance(data, dict):
            raise ConfigError(
                "settings file must hold an object", code=SettingsErrorCode.SETTINGS_UNREADABLE
            )
        version = data.pop("version", 1)
        if not isinstance(version, int) or not 1 <= version <= SETTINGS_VERSION:
            raise ConfigError(
                "settings file from an unknown version", code=SettingsErrorCode.SETTINGS_VERSION
            )
        for step in range(version, SETTINGS_VERSION):
            data = UPGRADES[step](data)
        return cls(data)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_json(), indent=2, ensure_ascii=False)
        write_atomically(path, text.encode("utf-8"))  # never a half-written settings file
