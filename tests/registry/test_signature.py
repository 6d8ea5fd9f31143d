"""Snapshot signatures: Ed25519 over the #end checksum, required once a key is configured."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from admission.clock import FixedClock
from admission.errors import ConfigError
from admission.registry.snapshot import SnapshotError, render_snapshot
from db.registry_replica import ReplicaRegistry
from db.store import SqlCipherStore
from hardware.registry.signature import Ed25519Verifier
from tests.registry.conftest import T0

SALT = b"s" * 16


@pytest.fixture
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def public_hex(key: Ed25519PrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        .hex()
    )


def test_signed_snapshot_imports(
    key: Ed25519PrivateKey, store: SqlCipherStore, clock: FixedClock, tmp_path: Path
) -> None:
    replica = ReplicaRegistry(store, clock, verifier=Ed25519Verifier.from_text(public_hex(key)))
    path = tmp_path / "s"
    path.write_bytes(
        render_snapshot(["12345678Z"], version="v1", as_of=T0, salt=SALT, sign=key.sign)
    )
    assert replica.import_file(path).signed


@pytest.mark.parametrize("case", ["unsigned", "other-key", "plain-list", "tampered"])
def test_bad_or_missing_signatures_are_refused(
    key: Ed25519PrivateKey, store: SqlCipherStore, clock: FixedClock, tmp_path: Path, case: str
) -> None:
    replica = ReplicaRegistry(store, clock, verifier=Ed25519Verifier.from_text(public_hex(key)))
    sign = {"unsigned": None, "other-key": Ed25519PrivateKey.generate().sign}.get(case, key.sign)
    data = render_snapshot(["12345678Z"], version="v1", as_of=T0, salt=SALT, sign=sign)
    if case == "plain-list":
        data = b"12345678Z\n"
    if case == "tampered":  # valid checksum for other content, the signature of the original
        other = render_snapshot(["99999999R"], version="v1", as_of=T0, salt=SALT)
        data = other + data.splitlines(keepends=True)[-1]
    path = tmp_path / "s"
    path.write_bytes(data)
    with pytest.raises(SnapshotError) as err:
        replica.import_file(path)
    unsigned = case in ("unsigned", "plain-list")
    assert err.value.code == ("SNAPSHOT_UNSIGNED" if unsigned else "SNAPSHOT_BAD_SIGNATURE")
    assert replica.state() is None


def test_public_key_formats(key: Ed25519PrivateKey) -> None:
    raw = bytes.fromhex(public_hex(key))
    pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    for text in (raw.hex(), base64.b64encode(raw).decode(), pem):
        assert Ed25519Verifier.from_text(text).verify(b"m", key.sign(b"m"))
    with pytest.raises(ConfigError):
        Ed25519Verifier.from_text("not a key")
