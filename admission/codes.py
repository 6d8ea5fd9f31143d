"""Stable codes for people: every reason, error and hint code is a member of a ``Code``.

The domain answers with codes, never sentences (STYLE.md rule 13). Each feature
declares its own ``Code`` enum beside the rules that produce it (``Reason`` beside the
verdict rules, the reader's hints beside the burst assembler, device errors beside the
device ports). The values are the JSON contract and never change; the text people read
comes from one catalogue, :mod:`admission.catalogue`, in Spanish and English.

A member is a ``str``: JSON, comparisons with plain strings and the audit trail see its
value.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Code", "all_code_enums"]


class Code(StrEnum):
    """Base of every feature's code enum; adds nothing but the family name."""


def all_code_enums() -> list[type[Code]]:
    """Every ``Code`` enum declared so far (subclasses of subclasses included), in a stable
    order. Import the modules first: an enum exists once its module is imported."""
    found: list[type[Code]] = []
    pending: list[type[Code]] = list(Code.__subclasses__())
    while pending:
        enum_class = pending.pop(0)
        found.append(enum_class)
        pending.extend(enum_class.__subclasses__())
    return sorted(found, key=lambda e: (e.__module__, e.__qualname__))
