"""Domain errors: each carries a stable code; the UI turns codes into text (STYLE.md rule 13)."""

from __future__ import annotations


class AdmissionError(Exception):
    """Base class. ``code`` is stable UPPER_SNAKE; ``str(err)`` is an English detail for logs
    (never a name or document number)."""

    code = "ADMISSION_ERROR"

    def __init__(self, detail: str = "", *, code: str | None = None) -> None:
        super().__init__(detail or self.code)
        if code is not None:
            self.code = code


class StoreError(AdmissionError):
    code = "STORE_ERROR"


class WrongKeyError(StoreError):
    """The visitor file cannot be opened with this key; the file is left untouched."""

    code = "WRONG_KEY"


class NotFoundError(AdmissionError):
    code = "NOT_FOUND"


class InvalidStateError(AdmissionError):
    code = "INVALID_STATE"


class DeviceError(AdmissionError):
    code = "DEVICE_ERROR"


class ConfigError(AdmissionError):
    code = "CONFIG_ERROR"
