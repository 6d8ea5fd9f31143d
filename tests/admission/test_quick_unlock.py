"""The quick unlock (art. 20.3: only the operator who locked the desk opens it): a PIN of
the operator's own, set with the password, hashed, opening only a locked session;
three wrong PINs and only the password opens it; each wrong PIN makes the next wait;
the director confirms a decision with the PIN at their own desk - on the fake book and
hasher of test_accounts, with an injected clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from admission.accounts import (
    PIN_ATTEMPTS,
    PIN_PAUSE,
    AccountError,
    AccountErrorCode,
    AccountService,
    Operator,
    Role,
)
from admission.catalogue import text
from admission.clock import FixedClock
from tests.admission.test_accounts import (
    CLERK_PW,
    DIRECTOR_PW,
    FakeBook,
    FakeHasher,
    admin,
    book,
    clock,
    hasher,
    service,
    staffed,
)

__all__ = ["admin", "book", "clock", "hasher", "service", "staffed"]  # the fixtures

PIN = "4821"


def _code(call: object, *args: object) -> str:
    with pytest.raises(AccountError) as exc:
        call(*args)  # type: ignore[operator]
    return str(exc.value.code)


@pytest.fixture
def clerk(staffed: AccountService) -> Operator:
    signed = staffed.sign_in("clerk", CLERK_PW)
    staffed.set_pin(signed, CLERK_PW, PIN)
    return signed


def test_the_pin_is_set_with_the_password_and_kept_hashed(
    staffed: AccountService, book: FakeBook, clerk: Operator
) -> None:
    stored = book.rows["clerk"]
    assert stored.pin_hash is not None and PIN not in stored.pin_hash
    assert staffed.has_pin("clerk") and not staffed.has_pin("director")
    assert book.notes[-1].details == {"change": "pin"} and book.notes[-1].actor == "clerk"
    assert PIN not in repr(book.notes) and PIN not in repr(stored)
    # a wrong password sets nothing and counts as a failed sign-in
    assert _code(staffed.set_pin, clerk, "wrong-password", "9999") == "BAD_CREDENTIALS"
    assert book.rows["clerk"].pin_hash == stored.pin_hash
    assert book.rows["clerk"].account.failed_attempts == 1
    # a password change keeps the PIN; None removes it
    staffed.set_password("clerk", "clerk-secret-2", actor=clerk)
    assert book.rows["clerk"].pin_hash == stored.pin_hash
    staffed.set_pin(clerk, "clerk-secret-2", None)
    assert not staffed.has_pin("clerk") and book.notes[-1].details == {"change": "pin_removed"}


@pytest.mark.parametrize("pin", ["123", "123456789", "12a4", " 1234", "１２３４", "", 1234])
def test_a_pin_is_four_to_eight_digits(
    staffed: AccountService, hasher: FakeHasher, pin: object
) -> None:
    clerk = staffed.sign_in("clerk", CLERK_PW)
    before = hasher.verified
    assert _code(staffed.set_pin, clerk, CLERK_PW, pin) == "PIN_INVALID"
    assert hasher.verified == before  # refused before the password is even checked


def test_the_pin_opens_only_the_locked_session_of_its_operator(
    staffed: AccountService, book: FakeBook, clerk: Operator
) -> None:
    assert _code(staffed.unlock_with_pin, clerk, PIN) == "SESSION_OPERATOR_MISMATCH"
    staffed.lock_session(clerk)
    director = Operator("director", "Diego Dir", frozenset({Role.DIRECTOR}))
    assert _code(staffed.unlock_with_pin, director, PIN) == "SESSION_OPERATOR_MISMATCH"
    assert staffed.unlock_with_pin(clerk, PIN) == clerk
    assert book.notes[-1].action == "SESSION_UNLOCKED" and book.notes[-1].details == {"mode": "pin"}
    assert _code(staffed.unlock_with_pin, clerk, PIN) == "SESSION_OPERATOR_MISMATCH"
    # the PIN never signs anybody in
    assert _code(staffed.sign_in, "clerk", PIN) == "BAD_CREDENTIALS"


def test_without_a_pin_the_password_is_asked(staffed: AccountService) -> None:
    director = staffed.sign_in("director", DIRECTOR_PW)
    staffed.lock_session(director)
    assert _code(staffed.unlock_with_pin, director, "1234") == "PIN_NOT_SET"
    assert staffed.unlock_session(director, DIRECTOR_PW) == director


def test_three_wrong_pins_leave_only_the_password_with_a_pause_between(
    staffed: AccountService, book: FakeBook, clerk: Operator, clock: FixedClock
) -> None:
    staffed.lock_session(clerk)
    assert _code(staffed.unlock_with_pin, clerk, "0000") == "PIN_WRONG"
    # too soon: refused without checking or counting
    with pytest.raises(AccountError) as exc:
        staffed.unlock_with_pin(clerk, PIN)
    assert exc.value.code == AccountErrorCode.PIN_WAIT
    assert exc.value.locked_until == clock.now() + PIN_PAUSE
    clock.advance(PIN_PAUSE)
    assert _code(staffed.unlock_with_pin, clerk, "1111") == "PIN_WRONG"
    clock.advance(PIN_PAUSE)
    assert _code(staffed.unlock_with_pin, clerk, PIN) == "PIN_WAIT"  # twice the pause now
    clock.advance(PIN_PAUSE)
    assert _code(staffed.unlock_with_pin, clerk, "2222") == "PIN_ATTEMPTS_EXHAUSTED"
    clock.advance(timedelta(hours=1))
    assert _code(staffed.unlock_with_pin, clerk, PIN) == "PIN_ATTEMPTS_EXHAUSTED"
    failed = [n for n in book.notes if n.action == "LOGIN_FAILED"]
    assert len(failed) == PIN_ATTEMPTS
    assert [n.details["reason"] for n in failed][-1] == "PIN_ATTEMPTS_EXHAUSTED"
    assert all(n.details["mode"] == "unlock_pin" for n in failed)
    assert book.rows["clerk"].account.failed_attempts == 0  # the password's count untouched
    assert staffed.unlock_session(clerk, CLERK_PW) == clerk
    staffed.lock_session(clerk)
    assert staffed.unlock_with_pin(clerk, PIN) == clerk  # the password gave three more


def test_a_locked_or_disabled_account_opens_with_no_pin(
    staffed: AccountService, admin: Operator, clerk: Operator
) -> None:
    staffed.lock_session(clerk)
    staffed.set_active("clerk", False, actor=admin)
    assert _code(staffed.unlock_with_pin, clerk, PIN) == "SESSION_OPERATOR_MISMATCH"
    staffed.set_active("clerk", True, actor=admin)
    signed = staffed.sign_in("clerk", CLERK_PW)
    for _ in range(5):
        with pytest.raises(AccountError):
            staffed.sign_in("clerk", "wrong-password")
    staffed.lock_session(signed)
    assert _code(staffed.unlock_with_pin, signed, PIN) == "ACCOUNT_LOCKED"


def test_the_director_confirms_with_the_pin_at_their_own_desk(
    staffed: AccountService, book: FakeBook, clerk: Operator, clock: FixedClock
) -> None:
    director = staffed.sign_in("director", DIRECTOR_PW)
    staffed.set_pin(director, DIRECTOR_PW, "24681357")
    assert staffed.authorise_with_pin(director, "24681357", Role.DIRECTOR, "OVERRIDE") == director
    assert book.notes[-1].action == "AUTHORISED"
    assert book.notes[-1].details == {"role": "DIRECTOR", "purpose": "OVERRIDE", "mode": "pin"}
    # a clerk's PIN authorises nothing of the director's
    assert _code(staffed.authorise_with_pin, clerk, PIN, Role.DIRECTOR, "X") == "ROLE_REQUIRED"
    assert book.notes[-1].action == "AUTHORISATION_FAILED"
    # three wrong PINs: the password confirms, and gives the PIN its three tries again
    for wrong in ("1111", "2222", "3333"):
        with pytest.raises(AccountError):
            staffed.authorise_with_pin(director, wrong, Role.DIRECTOR, "OVERRIDE")
        clock.advance(PIN_PAUSE * 3)
    assert _code(staffed.authorise_with_pin, director, "24681357", Role.DIRECTOR, "X") == (
        "PIN_ATTEMPTS_EXHAUSTED"
    )
    assert staffed.authorise("director", DIRECTOR_PW, Role.DIRECTOR, "OVERRIDE") == director
    assert staffed.authorise_with_pin(director, "24681357", Role.DIRECTOR, "X") == director
    # a locked session confirms nothing
    staffed.lock_session(director)
    assert _code(staffed.authorise_with_pin, director, "24681357", Role.DIRECTOR, "X") == (
        "NOT_SIGNED_IN"
    )


def test_every_pin_code_has_its_words() -> None:
    for code in ("PIN_INVALID", "PIN_NOT_SET", "PIN_ATTEMPTS_EXHAUSTED", "PIN_WAIT"):
        assert text(code, "es") != code and text(code, "en") != code
