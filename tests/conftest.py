"""Fixtures every test folder shares: the throwaway PostgreSQL cluster (one per session,
started only when a test asks for it; tests/pg/cluster_fixture.py)."""

from __future__ import annotations

from tests.pg.cluster_fixture import pg_cluster  # noqa: F401  (registers the session fixture)
