"""Printer tests run headless: Qt (only used by the Qt adapter test) goes offscreen."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
