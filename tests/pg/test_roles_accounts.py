"""The server's groups under the desk's matrix of command x role (``ui.cli.access``):
at a desk whose login is of the inspector group, an inspector's account signs in and
its reads are recorded (LOGIN, the query) - the INSPECTOR column runs there - while a
sign-in that has to change the account's row (a wrong password counted towards the
lock) is refused by the server (``PG_QUERY_FAILED``): neither counted nor recorded. That
is the one place the server's roles and the desk file's rules differ (README.md, "Who may
run what"): the accounts' rows are sealed whole, and an inspector's login that could
update them could rewrite an administrator's password hash."""

from __future__ import annotations

import pytest

from admission.accounts import AccountError, Role
from admission.errors import StoreError
from db.accounts import Argon2Hasher, StoreAccounts
from tests.db.factories import T0
from tests.pg.test_roles import CHEAP, DESK, INSPECTOR, Casino
from tests.pg.test_roles import casino as casino  # the fixture, a fresh install


def test_an_inspector_login_runs_the_inspectors_column_but_cannot_count_a_failure(
    casino: Casino,  # noqa: F811  (the fixture imported above)
) -> None:
    desk = StoreAccounts(casino.open(DESK), casino.clock, hasher=Argon2Hasher(**CHEAP))
    desk.create_account("admin", "Ana", "admin-password-1", [Role.ADMIN], actor=None)
    admin = desk.sign_in("admin", "admin-password-1")
    desk.create_account("ines", "Inés", "inspector-pass-1", [Role.INSPECTOR], actor=admin)
    store = casino.open(INSPECTOR)
    accounts = StoreAccounts(store, casino.clock, hasher=Argon2Hasher(**CHEAP))
    inspector = accounts.sign_in("ines", "inspector-pass-1")  # LOGIN: an audit entry only
    store.append(inspector.username, "VISITOR_SEARCH", "results:0", T0, {"purpose": "x"})
    assert store.verify().ok
    with pytest.raises((StoreError, AccountError)) as err:
        accounts.sign_in("ines", "wrong-password")  # the failure count is an update
    assert isinstance(err.value, StoreError) and err.value.code == "PG_QUERY_FAILED"
    found = desk.account("ines")
    assert found is not None and found.failed_attempts == 0  # nothing was counted
    failed = [e for e in store.audit_entries(0, 10_000) if e.action == "LOGIN_FAILED"]
    assert failed == []  # nor recorded: the count and its entry are one transaction
