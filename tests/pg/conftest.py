"""The PostgreSQL tests' cluster is the session fixture ``pg_cluster`` of tests/conftest.py
(tests/pg/cluster_fixture.py): TLS on loopback, client certificates for two desks,
removed at the end. ``load_tool`` is kept here for the tests that load the tool."""

from __future__ import annotations

from tests.pg.cluster_fixture import DESKS, load_tool

__all__ = ["DESKS", "load_tool"]
