"""The casino's card-signing keys (art. 22.4) on every store: the SQLCipher file, the fake
and the PostgreSQL server (``any_store``, tests/db/conftest.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from admission.cards.signed import decode_signed_code, key_id_of
from admission.cards.verification import CardCheckStatus, verify_card
from admission.clock import FixedClock
from admission.ports import madrid_date
from db import card_keys
from tests.db.factories import T0, entry


def test_first_use_makes_generation_one(any_store: Any) -> None:
    assert card_keys.public_keys(any_store).by_id == {}  # reading makes no key
    keys = card_keys.card_keys(any_store)
    assert len(keys) == 1
    (key,) = keys
    assert key.current and key.created_at == T0
    assert key.key_id == key_id_of(key.public_key) and len(key.public_key) == 32
    assert card_keys.card_keys(any_store) == keys  # made once
    assert card_keys.public_keys(any_store).by_id == {key.key_id: key.public_key}


def test_sign_bytes_verifies_with_the_public_key(any_store: Any) -> None:
    key_id, signature = card_keys.sign_bytes(any_store, b"floor list")
    (key,) = card_keys.card_keys(any_store)
    assert key_id == key.key_id and len(signature) == 64
    Ed25519PublicKey.from_public_bytes(key.public_key).verify(signature, b"floor list")
    assert card_keys.ed25519_check(key.public_key, signature, b"floor list")
    assert not card_keys.ed25519_check(key.public_key, signature, b"floor lisT")


def test_rotation_is_audited_and_old_keys_stay(any_store: Any) -> None:
    first = card_keys.card_keys(any_store)[0]
    later = T0 + timedelta(days=3)
    new = card_keys.rotate_card_key(any_store, "director1", later)
    keys = card_keys.card_keys(any_store)
    assert [k.key_id for k in keys] == [new.key_id, first.key_id]  # newest first
    assert [k.current for k in keys] == [True, False]
    assert new.created_at == later and new.key_id != first.key_id
    assert card_keys.sign_bytes(any_store, b"x")[0] == new.key_id
    entry_ = any_store.audit_entries()[-1]
    assert (entry_.actor, entry_.action, entry_.subject) == (
        "director1",
        card_keys.AUDIT_ROTATED,
        "card-key",
    )
    assert entry_.details == {"old_key": first.key_id, "new_key": new.key_id}
    assert any_store.verify().ok


def test_rotation_on_a_file_without_a_key_makes_both(any_store: Any) -> None:
    new = card_keys.rotate_card_key(any_store, "admin1", T0)
    assert [k.current for k in card_keys.card_keys(any_store)] == [True, False]
    assert card_keys.card_keys(any_store)[0] == new


def test_seeds_are_secrets_not_settings(any_store: Any) -> None:
    card_keys.card_keys(any_store)
    with pytest.raises(ValueError):
        any_store.get_setting("secret:card_sign:1")
    assert any_store.get_setting("card_sign.generation") == "1"


def test_signed_card_verifies_and_voids_are_listed(any_store: Any) -> None:
    clock = FixedClock(T0)
    numbers = [any_store.record_admission(entry(n)).card_number for n in (1, 2, 3)]
    codes = [card_keys.signed_card_code(any_store, "MAD01", any_store.card(n)) for n in numbers]
    assert decode_signed_code(codes[0]).fields.number == numbers[0]
    voided_at = T0 + timedelta(hours=3)  # 00:30 in Madrid: the next day there
    any_store.void_card(numbers[2], "lost", "sup-1", voided_at)
    any_store.void_card(numbers[0], "wrong type", "sup-1", T0)
    assert card_keys.voided_cards(any_store) == [
        (numbers[0], madrid_date(T0)),
        (numbers[2], madrid_date(voided_at)),
    ]
    keys = card_keys.public_keys(any_store)
    answers = [
        verify_card(
            code,
            key=any_store.secret("card_code"),
            casino_id="MAD01",
            store=any_store,
            clock=clock,
            actor="floor-1",
            channel="floor",
            public_keys=keys,
        )
        for code in codes
    ]
    assert [a.status for a in answers] == [
        CardCheckStatus.VOIDED,
        CardCheckStatus.VALID,
        CardCheckStatus.VOIDED,
    ]
    assert answers[0].void_reason == "wrong type" and answers[1].signed
    assert any_store.verify().ok


def test_a_server_file_that_went_back_still_checks_signed_cards(
    request: pytest.FixtureRequest, clock: FixedClock
) -> None:
    """A desk refusing to write (db/pg/rewound.py: the server restored to an earlier
    minute) still answers card checks, audited as bookkeeping (art. 20.4), and signs
    with the key it has; a rotation, a write, is refused until the restore is confirmed."""
    pytest.importorskip("psycopg")
    from admission.errors import StoreError
    from admission.records import AuditHead
    from db.audit_key import AuditKey
    from db.pg.crypto import InstallationKey
    from db.pg.rewound import GuardedPgStore, RewoundCode, WentBack
    from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

    cluster = request.getfixturevalue("pg_cluster")
    with GuardedPgStore.open(
        schema_conninfo(cluster, fresh_schema(cluster)),
        InstallationKey.generate("test"),
        audit_key=AuditKey.generate("test"),
        create=True,
        clock=clock,
        max_connections=2,
    ) as store:
        number = store.record_admission(entry(1)).card_number
        code = store.signed_card_code("MAD01", store.card(number))
        head = store.head()
        later = AuditHead(head.seq + 5, head.digest, head.at)
        store.went_back = WentBack(later, head, diverged=False)
        store.write_gate = store._gate
        answer = verify_card(
            code,
            key=store.secret("card_code"),
            casino_id="MAD01",
            store=store,
            clock=clock,
            actor="floor-1",
            channel="floor",
            public_keys=store.card_public_keys(),
        )
        assert answer.status is CardCheckStatus.VALID and answer.signed
        assert store.signed_card_code("MAD01", store.card(number)) == code  # deterministic
        with pytest.raises(StoreError) as refused:
            store.rotate_card_key("director1", T0)
        assert refused.value.code == RewoundCode.WENT_BACK
