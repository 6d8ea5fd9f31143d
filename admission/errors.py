"""Domain errors: each carries a stable code; the UI turns codes into text (STYLE.md rule 13).

The codes of the error classes themselves are :class:`ErrorCode`; the visitor file's
(``db/``, and any other store behind the same ports) are :class:`StoreErrorCode`. Other
features declare their own :class:`admission.codes.Code` enums beside their rules.
"""

from __future__ import annotations

from enum import unique

from admission.codes import Code

__all__ = [
    "AdmissionError",
    "ConfigError",
    "DeviceError",
    "ErrorCode",
    "InvalidStateError",
    "NotFoundError",
    "StoreError",
    "StoreErrorCode",
    "WrongKeyError",
]


@unique
class ErrorCode(Code):
    """The code an error class carries when it is raised without a more precise one."""

    ADMISSION_ERROR = "ADMISSION_ERROR"
    NOT_FOUND = "NOT_FOUND"
    INVALID_STATE = "INVALID_STATE"
    DEVICE_ERROR = "DEVICE_ERROR"
    CONFIG_ERROR = "CONFIG_ERROR"


@unique
class StoreErrorCode(Code):
    """Why the visitor file (fichero de visitantes, art. 20.3-4) cannot be used."""

    STORE_ERROR = "STORE_ERROR"
    WRONG_KEY = "WRONG_KEY"  # the file is left untouched
    CORRUPT_FILE = "CORRUPT_FILE"  # not an encrypted visitor file (left untouched)
    NO_SQLCIPHER = "NO_SQLCIPHER"  # the encryption library is not installed
    OPEN_FAILED = "OPEN_FAILED"
    READ_FAILED = "READ_FAILED"
    WRITE_FAILED = "WRITE_FAILED"  # the transaction was rolled back
    STORE_BUSY = "STORE_BUSY"  # another desk or program holds the file
    STORE_CLOSED = "STORE_CLOSED"
    CLOSE_FAILED = "CLOSE_FAILED"
    MIGRATION_CONFLICT = "MIGRATION_CONFLICT"  # two schema migrations share a number
    MIGRATION_FAILED = "MIGRATION_FAILED"  # rolled back: the file keeps its old schema
    # the file has a migration this program does not know: a newer desk wrote it (a
    # downgrade); refused before anything is written
    SCHEMA_NEWER = "SCHEMA_NEWER"
    NO_KEY = "NO_KEY"  # no environment variable, keyring entry or passphrase
    KEYRING_FAILED = "KEYRING_FAILED"  # the OS keyring failed or did not keep the key
    # The file never starts over on its own (art. 20.4; DESIGN.md "The visitor file").
    NO_FILE = "NO_FILE"  # this folder never held a visitor file: create one with ``init``
    FILE_EXISTS = "FILE_EXISTS"  # ``init`` refused: a file or its marker is already there
    FILE_MISSING = "FILE_MISSING"  # the folder held a file (its marker says so); it is gone
    FILE_EMPTIED = "FILE_EMPTIED"  # the file is there but 0 bytes long
    FILE_REPLACED = "FILE_REPLACED"  # another file than the one this folder created
    MARKER_MISSING = "MARKER_MISSING"  # the file is there, its marker is gone or unreadable
    DAMAGED_FILE = "DAMAGED_FILE"  # pages fail SQLCipher's HMAC check: no more writes
    READ_ONLY_DISK = "READ_ONLY_DISK"  # the folder or the file cannot be written
    DISK_FULL = "DISK_FULL"  # SQLITE_FULL: the transaction was rolled back


class AdmissionError(Exception):
    """Base class. ``code`` is a member of a :class:`~admission.codes.Code` enum (stable
    UPPER_SNAKE), never a free string: the type says so, and an adapter's code passes
    through unchanged as the member it is; ``str(err)`` is an English detail for logs
    (never a name or document number)."""

    code: Code = ErrorCode.ADMISSION_ERROR

    def __init__(self, detail: str = "", *, code: Code | None = None) -> None:
        super().__init__(detail or self.code)
        if code is not None:
            self.code = code


class StoreError(AdmissionError):
    code: Code = StoreErrorCode.STORE_ERROR
    # the failure came while a write was committing: it may or may not have committed
    # (a server's link cut at that moment). An admission is then asked again with the
    # same admission id, which records it once (art. 22.1: no number taken twice).
    outcome_unknown: bool = False


class WrongKeyError(StoreError):
    """The visitor file cannot be opened with this key; the file is left untouched."""

    code: Code = StoreErrorCode.WRONG_KEY


class NotFoundError(AdmissionError):
    code: Code = ErrorCode.NOT_FOUND


class InvalidStateError(AdmissionError):
    code: Code = ErrorCode.INVALID_STATE


class DeviceError(AdmissionError):
    code: Code = ErrorCode.DEVICE_ERROR


class ConfigError(AdmissionError):
    code: Code = ErrorCode.CONFIG_ERROR
