"""The reads behind the director's and the inspectors' reports (arts. 20.4, 14.1.b):
the daily visitor book, the figures and the access-request report."""

from __future__ import annotations

from db.data_protection import DataProtectionMixin

__all__ = ["ReportsMixin"]


class ReportsMixin(DataProtectionMixin):
    """Report reads over the SQLCipher file."""
