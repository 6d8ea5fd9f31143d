"""Desk accounts in the real encrypted file (art. 20.3, 23.5): argon2id hashes, every
sign-in and change audited in the same transaction as the row, the keyed chain commits to
the rows, a lockout survives a restart, no password or hash in the trail."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from admission.accounts import AccountError, AccountErrorCode, LockoutPolicy, Role
from admission.clock import FixedClock
from db.accounts import Argon2Hasher, StoreAccounts
from ui.context import AppContext

T0 = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
ADMIN_PW = "admin-secret-1"
CLERK_PW = "clerk-secret-1"


def _context(data_dir: Path, clock: FixedClock) -> AppContext:
    from main import build_context, build_tools

    return build_context(build_tools(data_dir, clock=clock, demo=True))


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def ctx(tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppContext]:
    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    opened = _context(tmp_path / "demo", clock)
    try:
        yield opened
    finally:
        opened.close()


def _cheap(ctx: AppContext) -> StoreAccounts:
    return StoreAccounts(ctx.store, ctx.clock, hasher=Argon2Hasher(**CHEAP))


def test_the_context_signs_in_with_argon2id_and_audits_each_step(ctx: AppContext) -> None:
    accounts = ctx.accounts  # the product's hasher: argon2-cffi's default profile
    assert not accounts.has_accounts()
    accounts.create_account("admin", "Ana Admin", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    assert admin.has(Role.ADMIN) and not admin.has(Role.DIRECTOR)
    with ctx.store.reading() as conn:
        stored = conn.execute("SELECT password_hash FROM accounts").fetchone()[0]
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    entries = [e for e in ctx.store.audit_entries() if e.subject == "account:admin"]
    assert [e.action for e in entries] == ["ACCOUNT_CREATED", "LOGIN"]
    assert "account:1" in entries[0].commits  # the row is committed to the chain
    assert ctx.store.verify().ok


def test_a_row_changed_by_hand_does_not_verify(ctx: AppContext) -> None:
    accounts = _cheap(ctx)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    accounts.create_account("clerk", "Carla", CLERK_PW, [Role.CLERK], actor=admin)
    with pytest.raises(AccountError):
        accounts.sign_in("clerk", "wrong-password")  # the failure count is audited too
    assert ctx.store.verify().ok
    with ctx.store.lock:  # someone with the file key only makes the clerk a director
        ctx.store.connection.execute(
            "UPDATE accounts SET roles = 'CLERK,DIRECTOR' WHERE username = 'clerk'"
        )
    check = ctx.store.verify()
    assert not check.ok and check.problem == "ROW_CHANGED" and check.row == "account:2"


def test_accounts_are_never_deleted(ctx: AppContext) -> None:
    accounts = _cheap(ctx)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    with pytest.raises(Exception, match="never deleted"), ctx.store.lock:
        ctx.store.connection.execute("DELETE FROM accounts")


def test_a_lockout_survives_a_restart_and_the_trail_holds_no_secret(
    tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    ctx = _context(tmp_path / "demo", clock)
    try:
        accounts = _cheap(ctx)
        accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
        admin = accounts.sign_in("admin", ADMIN_PW)
        accounts.create_account("clerk", "Carla", CLERK_PW, [Role.CLERK], actor=admin)
        for _ in range(5):
            with pytest.raises(AccountError):
                accounts.sign_in("clerk", "wrong-password")
    finally:
        ctx.close()
    clock.advance(timedelta(minutes=5))
    ctx = _context(tmp_path / "demo", clock)
    try:
        accounts = StoreAccounts(
            ctx.store,
            ctx.clock,
            hasher=Argon2Hasher(**CHEAP),
            policy=LockoutPolicy(5, timedelta(minutes=15)),
        )
        with pytest.raises(AccountError) as exc:
            accounts.sign_in("clerk", CLERK_PW)
        assert exc.value.code == AccountErrorCode.ACCOUNT_LOCKED
        assert exc.value.locked_until == T0 + timedelta(minutes=15)
        clock.advance(timedelta(minutes=10))
        assert accounts.sign_in("clerk", CLERK_PW).username == "clerk"
        entries = ctx.store.audit_entries()
        actions = [e.action for e in entries if e.subject == "account:clerk"]
        assert actions.count("LOGIN_FAILED") == 6 and actions.count("ACCOUNT_LOCKED") == 1
        with ctx.store.reading() as conn:
            hashes = [r[0] for r in conn.execute("SELECT password_hash FROM accounts")]
        text = repr([(e.actor, e.action, e.subject, e.details) for e in entries])
        for secret in [ADMIN_PW, CLERK_PW, "wrong-password", *hashes]:
            assert secret not in text
        assert ctx.store.verify().ok
    finally:
        ctx.close()


def test_argon2_hasher_verifies_and_asks_to_renew_other_costs() -> None:
    cheap = Argon2Hasher(**CHEAP)
    made = cheap.hash("a password")
    assert made.startswith("$argon2id$") and cheap.verify(made, "a password")
    assert not cheap.verify(made, "another one") and not cheap.verify("not a hash", "x")
    assert not cheap.needs_rehash(made)
    assert Argon2Hasher().needs_rehash(made)  # the product's profile renews it at sign-in


def test_an_old_hash_is_renewed_at_sign_in(ctx: AppContext) -> None:
    _cheap(ctx).create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    ctx.accounts.sign_in("admin", ADMIN_PW)
    with ctx.store.reading() as conn:
        stored = conn.execute("SELECT password_hash FROM accounts").fetchone()[0]
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert ctx.store.verify().ok
