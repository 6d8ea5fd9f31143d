"""Exit codes and results of the command line (the README's contract).

0 success or admitted; 1 refused or invalid input; 2 usage error; 3 the visitor file
or a device could not be used (wrong key, damaged file, printer not found...).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Generic, NoReturn, TypeVar

from admission.catalogue import text
from admission.codes import Code

__all__ = [
    "CliError",
    "Command",
    "CommandResult",
    "ExitCode",
    "JsonArgumentParser",
    "Payload",
    "described",
    "error",
]

Payload = dict[str, Any] | list[Any]


class ExitCode(IntEnum):
    OK = 0  # success, admitted, valid
    REFUSED = 1  # refused, not valid, or invalid input
    USAGE = 2  # the command line itself is wrong
    UNAVAILABLE = 3  # the visitor file or a device could not be used


CommandResult = tuple[ExitCode, Payload | None]


class CliError(Code):
    """Errors of the command line itself (its arguments and files)."""

    USAGE = "USAGE"
    BAD_INSTANT = "BAD_INSTANT"  # not ISO-8601, or a year outside 1900-2100
    BAD_DATE = "BAD_DATE"  # not YYYY-MM-DD, or a year outside 1900-2100
    BAD_NUMBER = "BAD_NUMBER"  # not a whole number, or outside the argument's range
    BAD_QUERY = "BAD_QUERY"
    BAD_VISITOR_ID = "BAD_VISITOR_ID"
    BAD_IDENTITY = "BAD_IDENTITY"
    BAD_RECORDING = "BAD_RECORDING"
    USAGE_NO_IMAGES = "USAGE_NO_IMAGES"
    NOT_FOUND = "NOT_FOUND"
    OUTPUT_UNWRITABLE = "OUTPUT_UNWRITABLE"
    MANUAL_BAD_DATE = "MANUAL_BAD_DATE"  # a manual entry's date is not YYYY-MM-DD
    MANUAL_BAD_DOC_TYPE = "MANUAL_BAD_DOC_TYPE"  # a manual entry's --doc-type is unknown


def described(error_code: str, detail: str = "") -> dict[str, Any]:
    """An error for people: the code, its Spanish and English text from the one
    catalogue (:mod:`admission.catalogue`), and an English detail for the log when it
    adds something (never a name or a document number)."""
    out: dict[str, Any] = {
        "error": str(error_code),
        "message": text(error_code, "es"),
        "message_en": text(error_code, "en"),
    }
    if detail:
        out["detail"] = detail
    return out


class JsonArgumentParser(argparse.ArgumentParser):
    """argparse answering a usage error as every other error: JSON on stdout with its
    code (``BAD_NUMBER``, ``BAD_DATE``... when an argument's type named one, else
    ``USAGE``), the usage line on stderr for a person, exit 2."""

    def error(self, message: str) -> NoReturn:
        named = re.findall(r"\b([A-Z][A-Z_]{2,}):", message)
        known = {c.value for c in CliError}
        code = next((CliError(n) for n in named if n in known), CliError.USAGE)
        self.print_usage(sys.stderr)
        print(json.dumps(described(code, message), ensure_ascii=False, indent=2))
        self.exit(int(ExitCode.USAGE))


def error(code: ExitCode, error_code: str, detail: str = "", **extra: Any) -> CommandResult:
    """An error answer ``{"error", "message", "message_en"[, "detail"]}`` with ``code``."""
    return code, {**described(error_code, detail), **extra}


C = TypeVar("C")


@dataclass(frozen=True)
class Command(Generic[C]):
    """One command: its name, help, arguments and handler over context ``C``."""

    name: str
    help: str
    # (the command's parser, the parent holding --data-dir/--demo for nested parsers)
    arguments: Callable[[argparse.ArgumentParser, argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, C], CommandResult]
