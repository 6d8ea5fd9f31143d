"""The fake store's data-protection operations (see db/data_protection.py)."""

from __future__ import annotations

__all__ = ["FakeDataProtectionMixin"]


class FakeDataProtectionMixin:
    """Mixed into :class:`db.fake.FakeStore`; declares the attributes it uses."""
