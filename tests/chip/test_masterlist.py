"""The CSCA master list (ICAO 9303-12 §9): signature, a signer chained into the list,
age, a file that is not a list; the import audited and written atomically, and a stored
list that is not the audited one refused at load."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

from hardware.chip.cms import OID_LDS_SECURITY_OBJECT
from hardware.chip.document_pki import make_pki
from hardware.chip.lds import build_dg1, build_dg2
from hardware.chip.masterlist import (
    AUDIT_IMPORTED,
    MASTER_LIST_FILE,
    MasterListCode,
    MasterListError,
    audited_digest,
    import_master_list,
    load_master_list,
    load_trust,
    trust_state,
)
from hardware.chip.passive import verify_document

T = TypeVar("T")
AT = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


class FakeTx:
    def __init__(self, log: list[tuple[str, str, dict[str, str]]]) -> None:
        self.log = log

    def audit(self, actor: str, action: str, subject: str, at: datetime, details: Any) -> int:
        self.log.append((actor, action, dict(details)))
        return len(self.log)

    def one(self, sql: str, params: tuple[str, ...]) -> tuple[str] | None:
        assert "FROM audit WHERE action = ?" in sql
        found = [d for _, action, d in self.log if action == params[0]]
        return (json.dumps(found[-1]),) if found else None


class FakeStore:
    """The audit of a transaction that commits only when its work returns."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str, dict[str, str]]] = []

    def write(self, work: Callable[[Any], T]) -> T:
        pending = list(self.log)
        result = work(FakeTx(pending))
        self.log = pending
        return result

    def read(self, work: Callable[[Any], T]) -> T:
        return work(FakeTx(self.log))


def _code(der: bytes, at: datetime = AT) -> MasterListCode:
    with pytest.raises(MasterListError) as caught:
        load_master_list(der, at)
    return caught.value.code


def test_a_good_list_loads_with_its_facts() -> None:
    pki = make_pki(now=AT)
    other = make_pki("PT", now=AT)
    der = pki.master_list()
    found = load_master_list(der, AT)
    assert found.cscas == (pki.csca,)
    assert found.countries == ("ES",)
    assert found.signed_at == AT.replace(microsecond=0) - timedelta(days=1)
    assert "Master List Signer" in found.signer_subject
    assert found.sha256 == hashlib.sha256(der).hexdigest()
    assert not found.is_stale(AT)
    # a list of two countries, the signer chained to one of them
    both = load_master_list(replace(pki, extra_cscas=(other.csca,)).master_list(), AT)
    assert both.countries == ("ES", "PT")


def test_the_list_s_trust_verifies_a_document() -> None:
    pki = make_pki(now=AT)
    trust = load_master_list(pki.master_list(), AT).trust()
    mrz = (
        "IDESPXYZ123456<99999999R<<<<<<8001014F3101017ESP<<<<<<<<<<<8PRUEBA<INVENTADA<<ANA<<<<<<<<<"
    )
    groups = {1: build_dg1(mrz), 2: build_dg2(b"\xff\xd8\xff" + bytes(64), "image/jpeg")}
    assert verify_document(pki.sod(groups), groups, trust, AT).code is None


def test_stale_after_90_days() -> None:
    pki = make_pki(now=AT)
    found = load_master_list(pki.master_list(signed_at=AT - timedelta(days=91)), AT)
    assert found.is_stale(AT)
    assert not found.is_stale(AT - timedelta(days=2))


def test_refusals_each_with_its_code() -> None:
    pki = make_pki(now=AT)
    good = pki.master_list()
    assert _code(pki.master_list(forge_signature=True)) is MasterListCode.SIGNATURE_INVALID
    assert _code(pki.master_list(signer_outside=True)) is MasterListCode.SIGNER_UNTRUSTED
    assert _code(good[:-20]) is MasterListCode.MALFORMED
    assert _code(b"not a list") is MasterListCode.MALFORMED
    assert _code(good, AT - timedelta(days=30)) is MasterListCode.MALFORMED  # signed later
    # an EF.SOD is signed, but it is no master list
    sod = pki.sod(
        {1: build_dg1("P<UTO" + "<" * 39 + "L898902C36UTO7408122F1204159ZE184226B<<<<<10")}
    )
    assert _code(sod) is MasterListCode.NOT_A_LIST
    assert _code(pki.master_list(content_type=OID_LDS_SECURITY_OBJECT)) is MasterListCode.NOT_A_LIST


def test_import_audits_and_writes_then_loads(tmp_path: Path) -> None:
    pki = make_pki(now=AT)
    der = pki.master_list()
    store = FakeStore()
    found = import_master_list(store, tmp_path, der, "dora", AT)
    assert (tmp_path / MASTER_LIST_FILE).read_bytes() == der
    ((actor, action, details),) = store.log
    assert (actor, action) == ("dora", AUDIT_IMPORTED)
    assert details["sha256"] == found.sha256 and details["cscas"] == "1"
    assert audited_digest(store) == found.sha256
    trust = load_trust(tmp_path, store, AT)
    assert trust is not None and trust.cscas == (pki.csca,)
    state = trust_state(tmp_path, found.sha256, AT + timedelta(days=100))
    assert state.code is MasterListCode.STALE and state.trust is not None  # used, and said


def test_a_stale_or_invalid_list_writes_nothing(tmp_path: Path) -> None:
    pki = make_pki(now=AT)
    store = FakeStore()
    for der, code in (
        (pki.master_list(signed_at=AT - timedelta(days=91)), MasterListCode.STALE),
        (pki.master_list(forge_signature=True), MasterListCode.SIGNATURE_INVALID),
    ):
        with pytest.raises(MasterListError) as caught:
            import_master_list(store, tmp_path, der, "dora", AT)
        assert caught.value.code is code
    assert store.log == [] and not (tmp_path / "chip").exists()


def test_a_failed_write_leaves_no_audit(tmp_path: Path) -> None:
    pki = make_pki(now=AT)
    blocker = tmp_path / "chip"
    blocker.write_text("a file where the folder goes")
    store = FakeStore()
    with pytest.raises(OSError):
        import_master_list(store, tmp_path, pki.master_list(), "dora", AT)
    assert store.log == []


def test_load_refuses_a_list_the_audit_does_not_know(tmp_path: Path) -> None:
    pki = make_pki(now=AT)
    store = FakeStore()
    assert trust_state(tmp_path, None, AT).code is MasterListCode.NOT_IMPORTED
    assert load_trust(tmp_path, store, AT) is None
    import_master_list(store, tmp_path, pki.master_list(), "dora", AT)
    other = make_pki("PT", now=AT).master_list()
    (tmp_path / MASTER_LIST_FILE).write_bytes(other)  # replaced behind the audit's back
    state = trust_state(tmp_path, audited_digest(store), AT)
    assert state.code is MasterListCode.TAMPERED and state.trust is None
    assert load_trust(tmp_path, store, AT) is None


def test_a_damaged_list_is_refused_with_a_code_never_an_exception() -> None:
    import random

    der = make_pki(now=AT).master_list()
    rng = random.Random(9)
    for _ in range(300):
        at = rng.randrange(len(der))
        damaged = der[:at] + bytes([der[at] ^ (1 << rng.randrange(8))]) + der[at + 1 :]
        try:
            load_master_list(damaged, AT)
        except MasterListError as err:
            assert isinstance(err.code, MasterListCode)
