"""The casino's card-signing keys (art. 22.4: a card verified anywhere, offline too).

Ed25519 keys (``cryptography``) kept where the file keeps its other keys: each private key
is a 32-byte seed, a secret of the file (``secret:card_sign:<generation>``, made as
``db/chain.py``'s ``secret_in`` makes every secret: never printed, logged or exported);
the current generation and each key's creation time are settings. The first signature
makes generation 1; a rotation makes the next one and its ``CARD_KEY_ROTATED`` audit
entry in one transaction. Old keys stay: the cards signed with them keep verifying.

Every function takes the store (``SqlCipherStore`` or ``PgStore``) and runs on its
``read``/``write`` transactions (db/tx.py), so both dialects share it. Reading keys never
writes: a file with no key yet verifies no ADM2 code (none was ever printed).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any, Protocol, TypeVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from admission.cards.signed import (
    HOLDER_SECRET,
    CardKey,
    CardPublicKeys,
    SignedFields,
    encode_payload,
    encode_signed_code,
    holder_digest,
    key_id_of,
    signed_message,
)
from admission.ports import madrid_date
from admission.records import CardRecord
from db import chain, codec
from db.tx import Tx, when

__all__ = [
    "AUDIT_ROTATED",
    "CardKey",
    "card_keys",
    "ed25519_check",
    "public_keys",
    "rotate_card_key",
    "sign_bytes",
    "signed_card_code",
    "voided_cards",
]

T = TypeVar("T")

AUDIT_ROTATED = "CARD_KEY_ROTATED"
GENERATION = "card_sign.generation"  # the current generation, a setting
CREATED = "card_sign.created:{}"  # each generation's creation time, a setting
SECRET = "card_sign:{}"  # each generation's seed, a secret of the file
_UNKNOWN = datetime.min.replace(tzinfo=UTC)  # pragma: no cover - made with its time


class KeyStore(Protocol):
    """The store's transactions (db/file_ports.py) and its secrets."""

    def read(self, work: Callable[[Any], T]) -> T: ...

    def write(self, work: Callable[[Any], T]) -> T: ...

    def secret(self, name: str) -> bytes: ...


def _generation(tx: Tx) -> int:
    found = tx.setting(GENERATION)
    return 0 if found is None else int(found)


def _seed(tx: Tx, generation: int) -> bytes | None:
    found = tx.setting(f"secret:{SECRET.format(generation)}")
    return None if found is None else bytes(found) if isinstance(found, bytes) else None


def _public(seed: bytes) -> bytes:
    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()


def _ring(tx: Tx) -> list[CardKey]:
    """Every key, newest first."""
    current = _generation(tx)
    found = []
    for generation in range(current, 0, -1):
        seed = _seed(tx, generation)
        if seed is None:  # pragma: no cover - a generation is made with its seed
            continue
        public = _public(seed)
        created = tx.setting(CREATED.format(generation))
        found.append(
            CardKey(
                key_id_of(public),
                public,
                when(str(created)) if created is not None else _UNKNOWN,
                generation == current,
            )
        )
    return found


def _make(tx: Tx, generation: int, at: datetime) -> None:
    chain.secret_in(tx, SECRET.format(generation))
    tx.put_setting(CREATED.format(generation), codec.ts(at), replace=False)
    tx.put_setting(GENERATION, str(generation))


def _now(tx: Tx) -> datetime:
    clock = getattr(tx, "now", None)
    return clock() if clock is not None else datetime.now(UTC)


def _first(tx: Tx) -> list[CardKey]:
    if _generation(tx) == 0:  # another desk may have made it meanwhile
        _make(tx, 1, _now(tx))
    return _ring(tx)


def card_keys(store: KeyStore) -> list[CardKey]:
    """Every key ever made, newest first; the first call makes generation 1."""
    found = store.read(_ring)
    return found if found else store.write(_first)


def _current(store: KeyStore) -> tuple[str, Ed25519PrivateKey]:
    card_keys(store)  # generation 1 on first use
    seed = store.read(lambda tx: _seed(tx, _generation(tx)))
    assert seed is not None
    private = Ed25519PrivateKey.from_private_bytes(seed)
    return key_id_of(private.public_key().public_bytes_raw()), private


def sign_bytes(store: KeyStore, data: bytes) -> tuple[str, bytes]:
    """``data`` signed with the current key: (key id, 64-byte Ed25519 signature)."""
    key_id, private = _current(store)
    return key_id, private.sign(data)


def signed_card_code(store: KeyStore, casino_id: str, card: CardRecord) -> str:
    """The ADM2 text printed in ``card``'s QR, signed with the current key; raises
    ValueError for a card the format cannot carry (e.g. a non-ASCII type code)."""
    key_id, private = _current(store)
    fields = SignedFields(
        key_id=key_id,
        casino_id=casino_id,
        number=card.number,
        card_type=card.card_type,
        valid_from=card.valid_from,
        valid_until=card.valid_until,
        holder_digest=holder_digest(store.secret(HOLDER_SECRET), card.file_number),
    )
    payload = encode_payload(fields)
    return encode_signed_code(payload, private.sign(signed_message(payload)))


def rotate_card_key(store: KeyStore, actor: str, at: datetime) -> CardKey:
    """Make the next generation current, audited (``CARD_KEY_ROTATED``: the old and the
    new key id) in the same transaction; the new key."""

    def rotate(tx: Tx) -> CardKey:
        old = _first(tx)[0]
        generation = _generation(tx) + 1
        _make(tx, generation, at)
        new = _ring(tx)[0]
        details = {"old_key": old.key_id, "new_key": new.key_id}
        tx.audit(actor, AUDIT_ROTATED, "card-key", at, details)
        return new

    return store.write(rotate)


def ed25519_check(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """The signature check :func:`admission.cards.verification.verify_card` is given."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def public_keys(store: KeyStore) -> CardPublicKeys:
    """What an ADM2 check needs (``verify_card(..., public_keys=...)``); never writes a
    key (a file without one has printed no signed card), the holder secret is read or
    made as every secret is."""
    keys = store.read(_ring)
    return CardPublicKeys(
        {k.key_id: k.public_key for k in keys}, store.secret(HOLDER_SECRET), ed25519_check
    )


_VOIDED = (
    "SELECT c.number, max(e.at) FROM cards AS c JOIN card_events AS e "
    "ON e.card_number = c.number AND e.kind = 'VOIDED' "
    "WHERE c.status = 'VOIDED' GROUP BY c.number ORDER BY c.number"
)


def voided_cards(store: KeyStore) -> list[tuple[int, date]]:
    """(number, Madrid date it was voided) of the voided cards still in the file,
    ascending: the floor's signed void list."""
    rows = store.read(lambda tx: tx.all(_VOIDED))
    return [(int(number), madrid_date(when(at))) for number, at in rows]
