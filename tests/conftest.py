"""Fixtures every test folder shares: the throwaway PostgreSQL cluster (one per session,
started only when a test asks for it; tests/pg/cluster_fixture.py), and the process
environment put back after every test (a benchmark's or a command's ``main()`` run
in-process may set a key variable such as ``ADMISSION_AUDIT_KEY``: it must not reach the
next test, whose desk would then keep its keys elsewhere)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.pg.cluster_fixture import pg_cluster  # noqa: F401  (registers the session fixture)


@pytest.fixture(autouse=True)
def _environment_put_back() -> Iterator[None]:
    before = dict(os.environ)
    yield
    if os.environ != before:
        os.environ.clear()
        os.environ.update(before)
