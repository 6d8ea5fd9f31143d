"""Small pieces shared by the director's, the administrator's and crowd-mode dialogs.

* plain-text labels, bounded in length (STYLE.md rule 14: what comes from documents,
  readers, the register or the settings is never rich text);
* the reason field of voids, reprints and bans (art. 21.3: a ban is reasoned; the
  visitor file keeps the reason of every void and reprint, art. 22);
* the error line, which shows a code's text from :mod:`admission.catalogue`;
* :func:`with_director`: a director's decision (arts. 20.3, 23.5) is taken with the
  director's own credentials at that moment; cancelled = nothing is written;
* :func:`apply_settings`: every change is validated by :class:`admission.settings.Settings`
  (and the card types and hours by the parsers the desk uses) before anything is saved;
* :class:`StoreListings`: the staff list and the bans in force, as the store lists
  them (``admission.ports.PeopleListings``); no SQL here.

The text helpers (a code's text, bounded plain text, Madrid dates) are :mod:`ui.desk.text`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from enum import unique
from pathlib import Path
from typing import Any, Protocol, TypeVar

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QWidget

from admission.accounts import Operator, Role
from admission.cards.catalogue import CardCatalogue, CardTypeErrorCode
from admission.codes import Code
from admission.errors import AdmissionError, ConfigError
from admission.hours import parse_hours
from admission.identity import IdentityKey, IdKind, normalise_number
from admission.ports import PeopleListings
from admission.records import Ban, StaffMember
from admission.settings import Settings
from admission.spanish_ids import is_valid_dni, is_valid_nie
from ui.desk.jobs import JobRunner
from ui.desk.text import MAX_SHOWN, bounded, message
from ui.desk.theme import alert_style

__all__ = [
    "Authorise",
    "DialogCode",
    "ErrorLine",
    "Listings",
    "ReasonField",
    "SettingRefused",
    "StoreListings",
    "apply_settings",
    "identity_from_entry",
    "plain_label",
    "run_job",
    "with_director",
]

MAX_REASON = 500  # the visitor file refuses longer reasons (REASON_TOO_LONG)

T = TypeVar("T")

# purpose -> the director who authenticated with their own credentials, or None
Authorise = Callable[[str], Operator | None]


@unique
class DialogCode(Code):
    """What the dialogs refuse before asking any service."""

    DIRECTOR_NOT_CONFIRMED = "DIRECTOR_NOT_CONFIRMED"  # authorisation cancelled (art. 20.3)
    SETTINGS_NEED_ADMIN = "SETTINGS_NEED_ADMIN"
    PRINTER_NEEDS_ROLE = "PRINTER_NEEDS_ROLE"  # the game director or an administrator
    HOURS_BAD_FORMAT = "HOURS_BAD_FORMAT"  # art. 27: HH:MM-HH:MM or closed
    HOLIDAY_BAD_DATE = "HOLIDAY_BAD_DATE"
    PASSWORDS_DIFFER = "PASSWORDS_DIFFER"
    IDENTITY_UNREADABLE = "IDENTITY_UNREADABLE"
    DOCUMENT_NOT_ON_SCREEN = "DOCUMENT_NOT_ON_SCREEN"
    FIELD_REQUIRED = "FIELD_REQUIRED"
    SELECTION_REQUIRED = "SELECTION_REQUIRED"
    SETTINGS_NOT_SAVED = "SETTINGS_NOT_SAVED"  # the settings file could not be written


def tr(text_es: str) -> str:
    """Translated text for module-level helpers (context ``Dialogs``)."""
    return QCoreApplication.translate("Dialogs", text_es)


def plain_label(value: str = "", *, name: str = "", limit: int = MAX_SHOWN) -> QLabel:
    """A label that never interprets its text (documents, readers, settings)."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setText(bounded(value, limit))
    if name:
        label.setAccessibleName(name)
    return label


def close_box(dialog: QDialog, *, enter_closes: bool = True) -> QDialogButtonBox:
    """The dialog's Close button (Esc closes too). ``enter_closes=False`` for a dialog
    whose field answers Enter itself: the button then never takes the same Enter a
    second time (a QDialog presses its auto-default button after the field's own)."""
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    box.setAccessibleName(QCoreApplication.translate("Dialogs", "Cerrar"))
    button = box.button(QDialogButtonBox.StandardButton.Close)
    button.setText(QCoreApplication.translate("Dialogs", "Cerrar"))
    button.setAccessibleName(QCoreApplication.translate("Dialogs", "Cerrar el diálogo"))
    if not enter_closes:
        button.setAutoDefault(False)
        button.setDefault(False)
    box.rejected.connect(dialog.reject)
    return box


def buddy_label(text_es: str, buddy: QWidget) -> QLabel:
    """A form label whose mnemonic (``&``) focuses ``buddy`` (for rows that hold a layout)."""
    label = QLabel(text_es)
    label.setBuddy(buddy)
    return label


class ErrorLine(QLabel):
    """One line for a refusal: the catalogue's text of a code (plain text)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setAccessibleName(QCoreApplication.translate("Dialogs", "Mensaje"))
        self.setStyleSheet(alert_style())
        self.code = ""

    def show_code(self, code: str) -> None:
        self.code = str(code)
        self.setStyleSheet(alert_style())
        self.setText(message(self.code))

    def show_error(self, error: AdmissionError, field: str = "") -> None:
        """The code's text; ``field`` (the refused field's name) before it."""
        self.show_code(str(error.code))
        if field:
            self.setText(f"{bounded(field, 80)}: {self.text()}")

    def show_info(self, info: str) -> None:
        self.code = ""
        self.setStyleSheet("")
        self.setText(bounded(info, 400))

    def clear_message(self) -> None:
        self.code = ""
        self.setText("")


class ReasonField(QPlainTextEdit):
    """The written reason of a void, reprint, ban or lifted ban (max. 500 characters)."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(name)
        self.setPlaceholderText(QCoreApplication.translate("Dialogs", "Motivo (obligatorio)"))
        self.setTabChangesFocus(True)  # Tab leaves the field: keyboard-only use
        self.setMaximumHeight(70)
        self.textChanged.connect(self._bound)

    def _bound(self) -> None:
        if len(self.toPlainText()) > MAX_REASON:
            self.setPlainText(self.toPlainText()[:MAX_REASON])

    def reason(self) -> str:
        return " ".join(self.toPlainText().split())


def run_job(
    runner: JobRunner,
    job: Callable[[], T],
    done: Callable[[T], None],
    errors: ErrorLine,
    busy: QWidget | None = None,
) -> None:
    """Submit ``job``; a domain error lands on the error line. ``busy`` (the button that
    started it) is disabled until the answer comes: one key press, one record."""
    errors.clear_message()
    if busy is None:
        runner.submit(job, done, errors.show_error)
        return
    busy.setEnabled(False)

    def finished(answer: T) -> None:
        busy.setEnabled(True)
        done(answer)

    def failed(error: AdmissionError) -> None:
        busy.setEnabled(True)
        errors.show_error(error)

    runner.submit(job, finished, failed)


def with_director(authorise: Authorise, purpose: str, errors: ErrorLine) -> Operator | None:
    """Ask for a director's own credentials (art. 20.3, 23.5); None = nothing may be
    written (cancelled, or someone without the director's role answered)."""
    director = authorise(purpose)
    if director is None or not director.has(Role.DIRECTOR):
        errors.show_code(DialogCode.DIRECTOR_NOT_CONFIRMED)
        return None
    return director


def identity_from_entry(raw: str) -> IdentityKey:
    """A DNI/NIE number, or ``KIND:COUNTRY:NUMBER`` for any other document."""
    entry = raw.strip()
    try:
        if entry.count(":") == 2:
            kind, country, number = entry.split(":")
            key = IdentityKey.of(kind.strip().upper(), country, number)
            if key.number and len(key.country) == 3:
                return key
        else:
            number = normalise_number(entry)
            if is_valid_dni(number):
                return IdentityKey(IdKind.DNI, "ESP", number)
            if is_valid_nie(number):
                return IdentityKey(IdKind.NIE, "ESP", number)
    except ValueError:
        pass
    raise AdmissionError("identity not understood", code=DialogCode.IDENTITY_UNREADABLE)


# -- settings ------------------------------------------------------------------------
def _check_hours(hours: object, holidays: object) -> None:
    days: set[date] = set()
    for item in holidays if isinstance(holidays, list) else ():
        try:
            days.add(date.fromisoformat(str(item)))
        except ValueError:
            raise ConfigError("bad holiday", code=DialogCode.HOLIDAY_BAD_DATE) from None
    if isinstance(hours, dict) and hours:
        try:
            parse_hours(hours, frozenset(days))
        except (ValueError, AttributeError):
            raise ConfigError("bad opening hours", code=DialogCode.HOURS_BAD_FORMAT) from None


SETTING = "setting"  # the Qt property naming the setting a field edits


def bind(widget: QWidget, key: str) -> None:
    """Mark ``widget`` as the field of setting ``key`` (to point at it when refused)."""
    widget.setProperty(SETTING, key)


def field_for(root: QWidget, key: str) -> QWidget | None:
    """The field under ``root`` that edits setting ``key``."""
    for widget in root.findChildren(QWidget):
        if widget.property(SETTING) == key:
            return widget
    return None


def show_refusal(errors: ErrorLine, error: AdmissionError, root: QWidget) -> QWidget | None:
    """Show a refused value with its field's name, and focus the field."""
    field = field_for(root, error.key) if isinstance(error, SettingRefused) else None
    if field is None:
        errors.show_error(error)
        return None
    errors.show_error(error, field.accessibleName())
    field.setFocus()
    return field


class SettingRefused(ConfigError):
    """A value the settings refused, with the key it was for (to point at its field)."""

    def __init__(self, key: str, error: ConfigError) -> None:
        super().__init__(str(error), code=error.code)
        self.key = key


def apply_settings(settings: Settings, changes: Mapping[str, Any], path: Path) -> list[str]:
    """Validate ``changes`` on a copy, then apply them to ``settings`` and save the file;
    returns the keys whose value changed (for the caller's audit entry).

    Raises :class:`ConfigError` with the first refused value's code; nothing changes
    then. The card types and hours are also checked by the parsers the desk uses."""
    values = dict(settings.to_json())
    values.pop("version", None)
    candidate = Settings(values)
    for key, value in changes.items():
        try:
            candidate.set(key, value)
        except ConfigError as error:
            raise SettingRefused(key, error) from None
    try:
        CardCatalogue.from_config(candidate["cards.types"], candidate["cards.default"])
    except ConfigError as error:
        unknown = error.code is CardTypeErrorCode.UNKNOWN_CARD_TYPE
        raise SettingRefused("cards.default" if unknown else "cards.types", error) from None
    try:
        _check_hours(candidate["hours"], candidate["holidays"])
    except ConfigError as error:
        bad_day = error.code is DialogCode.HOLIDAY_BAD_DATE
        raise SettingRefused("holidays" if bad_day else "hours", error) from None
    try:
        candidate.save(path)
    except OSError:
        raise ConfigError("settings not saved", code=DialogCode.SETTINGS_NOT_SAVED) from None
    changed = sorted(key for key, value in changes.items() if settings[key] != value)
    for key, value in changes.items():
        settings.set(key, value)
    return changed


# -- listings ------------------------------------------------------------------------
# What the staff and ban dialogs list beyond one person: the store's own listings
# (``admission.ports.PeopleListings``, implemented by ``db.people`` and the fake).
Listings = PeopleListings


class StoreListings:
    """The staff list (art. 18, R15) and every ban in force (art. 21.2-3, R5), as the
    store lists them; the ban dialog audits the reading (BAN_LIST, art. 20.4)."""

    def __init__(self, store: PeopleListings, limit: int = 500) -> None:
        self._store = store
        self._limit = limit

    def staff_members(self, limit: int = 500) -> Sequence[StaffMember]:
        return self._store.staff_members(min(limit, self._limit))

    def bans_in_force(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        return self._store.bans_in_force(at, min(limit, self._limit))

    def bans_ended(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        return self._store.bans_ended(at, min(limit, self._limit))


class ShownDocument(Protocol):
    """What the dialogs show of the document on screen (a ``DeskDocument``)."""

    @property
    def surname(self) -> str: ...
    @property
    def given_names(self) -> str: ...
    @property
    def document_number(self) -> str: ...
    @property
    def id_number(self) -> str: ...


def document_summary(document: ShownDocument) -> str:
    """Name and number of the document on screen, as plain bounded text."""
    name = bounded(f"{document.given_names} {document.surname}".strip(), 120)
    number = bounded(document.id_number or document.document_number, 30)
    return f"{name} · {number}"


def reasons_text(codes: Sequence[str]) -> str:
    """The verdict's reasons, one catalogue text each."""
    return "\n".join(message(code) for code in codes)
