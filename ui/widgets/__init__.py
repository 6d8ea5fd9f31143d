"""The desk window's panels: verdict banner, identity, camera preview, status bar,
counters. Each shows what the controller answered; none calls a service."""

from __future__ import annotations

from collections.abc import Iterable

from ui.dialogs.common import bounded

__all__ = ["shown_lines"]


def shown_lines(lines: Iterable[str], limit: int = 600, *, per_line: int = 200) -> str:
    """Untrusted lines made safe to show as plain text: each line bounded and cleaned of
    control characters, at most ``limit`` characters in all."""
    out = "\n".join(bounded(line, per_line) for line in lines if str(line).strip())
    return out if len(out) <= limit else out[: limit - 1] + "…"
