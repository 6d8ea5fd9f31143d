"""The data-protection operations on the visitor file (art. 20.4; GDPR arts. 5, 15, 16):
rectification of a name or an observation and the retention view."""

from __future__ import annotations

from db.retention import RetentionMixin

__all__ = ["DataProtectionMixin"]


class DataProtectionMixin(RetentionMixin):
    """Rectification and the retention overview, over the SQLCipher file."""
