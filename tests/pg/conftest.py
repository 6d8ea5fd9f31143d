"""A throwaway PostgreSQL cluster for the whole test session (tools/pg_cluster.py):
TLS on loopback, client certificates for two desks, removed at the end."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "pg_cluster.py"
DESKS = ("desk1", "desk2")


def load_tool() -> ModuleType:
    """tools/ is scripts, not a package: load the module from its file once."""
    module = sys.modules.get("pg_cluster")
    if module is None:
        spec = importlib.util.spec_from_file_location("pg_cluster", TOOL)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["pg_cluster"] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    tool = load_tool()
    if tool.find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    # its own folder under /tmp: pytest's tmp folders are 0700 to root, and the server
    # runs as another user when the tests run as root
    cluster = tool.PgCluster(Path(tempfile.mkdtemp(prefix="admission-pg-")), desks=DESKS)
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        raise
    try:
        yield cluster
    finally:
        cluster.stop()
