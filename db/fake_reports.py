"""The fake store's report reads (see db/reports.py)."""

from __future__ import annotations

__all__ = ["FakeReportsMixin"]


class FakeReportsMixin:
    """Mixed into :class:`db.fake.FakeStore`; declares the attributes it uses."""
