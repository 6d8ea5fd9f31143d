"""``AccountService.sign_in_with_pin``: the floor's sign-in (art. 22.4). Wrong PINs count
towards the account's lockout as wrong passwords do; an unknown user, an account with
no PIN and a wrong PIN read the same and cost the same; the right PIN clears the count."""

from __future__ import annotations

from datetime import timedelta

import pytest

from admission.accounts import AccountError, AccountService, LockoutPolicy, Role
from admission.clock import FixedClock
from tests.admission.test_accounts import T0, FakeBook, FakeHasher

PIN = "4821"


@pytest.fixture
def floor() -> tuple[AccountService, FakeBook, FakeHasher, FixedClock]:
    book, hasher, clock = FakeBook(), FakeHasher(), FixedClock(T0)
    service = AccountService(book, hasher, clock, LockoutPolicy(3, timedelta(minutes=15)))
    admin = service.create_account("admin", "A", "admin-secret-1", [Role.ADMIN], actor=None)
    for name in ("sala1", "nopin"):
        service.create_account(name, name, "floor-secret-1", [Role.FLOOR], actor=admin.operator())
    service.set_pin(service.sign_in("sala1", "floor-secret-1"), "floor-secret-1", PIN)
    return service, book, hasher, clock


def refused(service: AccountService, name: str, pin: str) -> str:
    with pytest.raises(AccountError) as exc:
        service.sign_in_with_pin(name, pin)
    return str(exc.value.code)


def test_the_right_pin_signs_in(
    floor: tuple[AccountService, FakeBook, FakeHasher, FixedClock],
) -> None:
    service, book, _, _ = floor
    operator = service.sign_in_with_pin("SALA1 ", PIN)
    assert operator.username == "sala1" and operator.has(Role.FLOOR)
    last = book.notes[-1]
    assert (str(last.action), last.details) == ("LOGIN", {"mode": "floor_pin"})
    assert PIN not in repr(book.notes)


def test_unknown_no_pin_and_wrong_pin_read_and_cost_the_same(
    floor: tuple[AccountService, FakeBook, FakeHasher, FixedClock],
) -> None:
    service, _, hasher, _ = floor
    costs = []
    for name, pin in (("nadie", PIN), ("nopin", PIN), ("sala1", "0000"), ("sala1", "x" * 99)):
        before = hasher.verified
        assert refused(service, name, pin) == "BAD_CREDENTIALS"
        costs.append(hasher.verified - before)
    assert costs == [1, 1, 1, 1]


def test_wrong_pins_lock_the_account_and_the_right_one_clears_the_count(
    floor: tuple[AccountService, FakeBook, FakeHasher, FixedClock],
) -> None:
    service, book, _, clock = floor
    assert refused(service, "sala1", "1111") == "BAD_CREDENTIALS"
    service.sign_in_with_pin("sala1", PIN)  # the count starts over
    assert book.rows["sala1"].account.failed_attempts == 0
    assert [refused(service, "sala1", "1111") for _ in range(3)][-1] == "ACCOUNT_LOCKED"
    assert refused(service, "sala1", PIN) == "ACCOUNT_LOCKED"  # not even the right PIN
    with pytest.raises(AccountError):
        service.sign_in("sala1", "floor-secret-1")  # the account, not only its PIN
    clock.advance(timedelta(minutes=16))
    assert service.sign_in_with_pin("sala1", PIN).username == "sala1"
