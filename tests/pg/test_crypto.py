"""Application-level encryption for the server's visitor file (pure, no server)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from admission.identity import IdentityKey
from db import names
from db.keys import DbKey
from db.pg.crypto import (
    MAX_PREFIX,
    MIN_PREFIX,
    OVERHEAD,
    InstallationKey,
    KeyRing,
    PgCryptoCode,
    PgCryptoError,
    SealedRow,
    WrappedKey,
    reseal_selected,
    run_reencrypt,
)

DB_ID = "3f1c0d5e9a7b4c21"


def envelope_version(envelope: bytes) -> int:
    """The key version a sealed value was made with (not authenticated until opened)."""
    if len(envelope) < OVERHEAD:
        raise PgCryptoError("sealed value truncated", code=PgCryptoCode.VALUE_TRUNCATED)
    return int.from_bytes(envelope[1:3], "big")  # after the format byte


def reencrypt_batches(
    rows: Sequence[SealedRow], ring: KeyRing, *, batch_size: int = 500
) -> Iterator[list[SealedRow]]:
    """The rows not yet at the current version, resealed, in batches of ``batch_size``."""
    behind = [row for row in rows if row.key_version != ring.current_version]
    for start in range(0, len(behind), batch_size):
        yield reseal_selected(behind[start : start + batch_size], ring)


class Where(TypedDict):
    table: str
    column: str
    row: str | int


WHERE: Where = {"table": "visitors", "column": "surname", "row": 17}


@pytest.fixture(scope="module")
def installation() -> InstallationKey:
    return InstallationKey.generate()


@pytest.fixture(scope="module")
def ring_and_record(installation: InstallationKey) -> tuple[KeyRing, WrappedKey]:
    return KeyRing.create(installation, DB_ID)


@pytest.fixture(scope="module")
def ring(ring_and_record: tuple[KeyRing, WrappedKey]) -> KeyRing:
    return ring_and_record[0]


def code_of(excinfo: pytest.ExceptionInfo[PgCryptoError]) -> PgCryptoCode:
    code = excinfo.value.code
    assert isinstance(code, PgCryptoCode)
    return code


# -- values -----------------------------------------------------------------------------
def test_a_value_round_trips_compactly_and_never_twice_the_same(ring: KeyRing) -> None:
    sealed = ring.seal_text("GARCÍA LÓPEZ", **WHERE)
    assert ring.open_text(sealed, **WHERE) == "GARCÍA LÓPEZ"
    assert len(sealed) == len("GARCÍA LÓPEZ".encode()) + OVERHEAD == len(sealed)
    assert OVERHEAD == 33  # format 1 + version 2 + key tag 2 + nonce 12 + tag 16
    assert b"GARC" not in sealed
    assert ring.seal_text("GARCÍA LÓPEZ", **WHERE) != sealed  # a fresh nonce each time
    assert envelope_version(sealed) == ring.current_version == 1
    assert ring.open(ring.seal(b"", **WHERE), **WHERE) == b""


@pytest.mark.parametrize(
    "elsewhere",
    [
        {"table": "visitors", "column": "surname", "row": 18},  # another row
        {"table": "visitors", "column": "given_names", "row": 17},  # another column
        {"table": "bans", "column": "surname", "row": 17},  # another table
        {"table": "visitors", "column": "surname", "row": "17 "},
    ],
)
def test_a_value_moved_elsewhere_does_not_open(ring: KeyRing, elsewhere: Where) -> None:
    sealed = ring.seal_text("ANA", **WHERE)
    with pytest.raises(PgCryptoError) as excinfo:
        ring.open(sealed, **elsewhere)
    assert code_of(excinfo) is PgCryptoCode.VALUE_TAMPERED


def test_every_flipped_bit_is_refused_with_the_code_of_its_place(ring: KeyRing) -> None:
    sealed = ring.seal_text("MARÍA", **WHERE)
    expected_by_byte = {0: PgCryptoCode.VALUE_FORMAT_UNKNOWN}
    expected_by_byte |= {1: PgCryptoCode.DATA_KEY_UNKNOWN, 2: PgCryptoCode.DATA_KEY_UNKNOWN}
    expected_by_byte |= {3: PgCryptoCode.VALUE_WRONG_KEY, 4: PgCryptoCode.VALUE_WRONG_KEY}
    for index, bit in itertools.product(range(len(sealed)), range(8)):
        changed = bytearray(sealed)
        changed[index] ^= 1 << bit
        with pytest.raises(PgCryptoError) as excinfo:
            ring.open(bytes(changed), **WHERE)
        # nonce, ciphertext and tag: the GCM tag fails
        assert code_of(excinfo) is expected_by_byte.get(index, PgCryptoCode.VALUE_TAMPERED)


def test_a_truncated_value_is_refused(ring: KeyRing) -> None:
    sealed = ring.seal_text("MARÍA", **WHERE)
    for length in (0, 1, 5, OVERHEAD - 1):
        with pytest.raises(PgCryptoError) as excinfo:
            ring.open(sealed[:length], **WHERE)
        assert code_of(excinfo) is PgCryptoCode.VALUE_TRUNCATED
    with pytest.raises(PgCryptoError) as excinfo:
        envelope_version(sealed[:4])
    assert code_of(excinfo) is PgCryptoCode.VALUE_TRUNCATED
    # cut inside the ciphertext: still long enough to parse, the tag says no
    with pytest.raises(PgCryptoError) as excinfo:
        ring.open(sealed[:-1], **WHERE)
    assert code_of(excinfo) is PgCryptoCode.VALUE_TAMPERED


def test_a_value_of_another_database_names_the_wrong_key(ring: KeyRing) -> None:
    other, _record = KeyRing.create(InstallationKey.generate(), "another-casino")
    with pytest.raises(PgCryptoError) as excinfo:
        ring.open(other.seal_text("ANA", **WHERE), **WHERE)
    # same version number, another key: its tag tells (1 in 65,536 falls to TAMPERED)
    assert code_of(excinfo) in {PgCryptoCode.VALUE_WRONG_KEY, PgCryptoCode.VALUE_TAMPERED}


# -- data keys --------------------------------------------------------------------------
def test_the_data_key_is_stored_wrapped_and_loads_back(
    installation: InstallationKey, ring_and_record: tuple[KeyRing, WrappedKey]
) -> None:
    ring, record = ring_and_record
    assert record.version == 1 and record.wrapping_key_id == installation.key_id
    assert len(record.blob) == 12 + 32 + 16
    loaded = KeyRing.load(installation, DB_ID, [record])
    sealed = ring.seal_text("ANA", **WHERE)
    assert loaded.open_text(sealed, **WHERE) == "ANA"
    assert "hidden" in repr(loaded) and "hidden" in repr(installation)


def flipped_last(blob: bytes) -> bytes:
    """The blob with its last byte changed (a zero byte set to zero would change nothing)."""
    return blob[:-1] + bytes([blob[-1] ^ 1])


def test_a_wrong_installation_key_or_a_foreign_record_is_refused(
    installation: InstallationKey, ring_and_record: tuple[KeyRing, WrappedKey]
) -> None:
    _ring, record = ring_and_record
    cases: list[tuple[InstallationKey, str, list[WrappedKey], PgCryptoCode]] = [
        (InstallationKey.generate(), DB_ID, [record], PgCryptoCode.INSTALLATION_KEY_WRONG),
        (installation, "another-database", [record], PgCryptoCode.WRAPPED_KEY_TAMPERED),
        (
            installation,
            DB_ID,
            [WrappedKey(2, record.key_tag, record.wrapping_key_id, record.blob)],
            PgCryptoCode.WRAPPED_KEY_TAMPERED,
        ),
        (
            installation,
            DB_ID,
            [WrappedKey(1, record.key_tag, record.wrapping_key_id, flipped_last(record.blob))],
            PgCryptoCode.WRAPPED_KEY_TAMPERED,
        ),
        (installation, DB_ID, [], PgCryptoCode.NO_DATA_KEY),
    ]
    for key, database_id, records, expected in cases:
        with pytest.raises(PgCryptoError) as excinfo:
            KeyRing.load(key, database_id, records)
        assert code_of(excinfo) is expected


def test_the_installation_key_comes_from_the_desk_key() -> None:
    raw = DbKey.from_raw(bytes(range(32)))
    a = InstallationKey.from_db_key(raw, database_id="a")
    assert a.key_id == InstallationKey.from_db_key(raw, database_id="b").key_id
    phrase = DbKey.from_passphrase("correct horse battery staple")
    p_a = InstallationKey.from_db_key(phrase, database_id="a")
    assert p_a.key_id == InstallationKey.from_db_key(phrase, database_id="a").key_id
    assert p_a.key_id != InstallationKey.from_db_key(phrase, database_id="b").key_id
    # never the marker's key-check value of the SQLCipher file (that one is stored)
    assert p_a.key_id != a.key_id and len(p_a.key_id) == 16


# -- blind indexes ----------------------------------------------------------------------
def test_identity_blind_index_is_exact_keyed_and_per_version(
    installation: InstallationKey, ring: KeyRing
) -> None:
    same = IdentityKey.of("DNI", "ESP", "12345678-z")
    assert ring.identity_index(same) == ring.identity_index(
        IdentityKey.of("DNI", "ESP", "12345678Z")
    )
    assert ring.identity_index(same) != ring.identity_index(
        IdentityKey.of("DNI", "ESP", "12345679Z")
    )
    assert len(ring.identity_index(same)) == 16
    other, _ = KeyRing.create(installation, DB_ID)
    assert other.identity_index(same) != ring.identity_index(same)
    two, _ = ring.with_new_version(installation)
    assert two.identity_indexes(same) == (two.identity_index(same), ring.identity_index(same))


def test_name_tokens_are_the_two_to_six_letter_prefixes_of_the_folded_words(ring: KeyRing) -> None:
    tokens = ring.name_tokens("García López", "Ana")
    # GA GAR GARC GARCI GARCIA + LO LOP LOPE LOPEZ + AN ANA
    assert len(tokens) == 11 and list(tokens) == sorted(tokens)
    assert tokens == ring.name_tokens("GARCIA LOPEZ", "ana")
    assert len(ring.name_tokens("Fernández-Villaverde", "J")) == 5 + 5  # long words: 5; "J": none
    assert (MIN_PREFIX, MAX_PREFIX) == (2, 6)


PEOPLE = [
    ("GARCÍA LÓPEZ", "ANA"),
    ("GARCÍA", "JOSÉ MARÍA"),
    ("GARRIDO PEÑA", "ANABEL"),
    ("GONZÁLEZ", "ÁNGEL"),
    ("GONZALO RUIZ", "ANA"),
    ("LÓPEZ DE LA FUENTE", "M"),
    ("FERNÁNDEZ-VILLAVERDE", "JUAN"),
    ("O", "XI"),
    ("PEÑA", "NÚÑEZ"),
]
QUERIES = [
    "garcia",
    "gar ana",
    "GONZAL",
    "gonzalez",
    "gonzalo ana",
    "lopez m",
    "de la",
    "fernandez-vill",
    "villaverde juan",
    "x",
    "o xi",
    "pena nunez",
    "a",
    "zz",
    "anab",
]


@pytest.mark.parametrize("query", QUERIES)
def test_name_search_finds_what_the_sqlcipher_word_prefix_search_finds(
    ring: KeyRing, query: str
) -> None:
    stored = {i: set(ring.name_tokens(s, g)) for i, (s, g) in enumerate(PEOPLE)}
    expected = {
        i for i, (s, g) in enumerate(PEOPLE) if names.matches(names.words(query), names.words(s, g))
    }
    q = ring.name_query(query)
    wanted = set(q.tokens[ring.current_version])
    candidates = {i for i, tokens in stored.items() if wanted <= tokens}  # the server's part
    assert expected <= candidates  # the server never drops a match
    found = candidates if q.exact else {i for i in candidates if q.matches(*PEOPLE[i])}
    assert found == expected
    assert q.narrows == any(len(w) >= MIN_PREFIX for w in names.words(query))


# -- rotation ---------------------------------------------------------------------------
def test_rewrap_changes_only_the_wrapping_and_a_second_run_finishes_the_first(
    installation: InstallationKey,
) -> None:
    # the records a re-wrap (db/pg/rotation.py) makes from the keys its ring holds
    ring1, first = KeyRing.create(installation, DB_ID)
    ring2, second = ring1.with_new_version(installation)
    sealed = ring1.seal_text("ANA", **WHERE)
    new = InstallationKey.generate()
    stored = [first, second]
    # interrupted: only the first record was written back
    stored[0] = ring2.wrapped(1, new)
    with pytest.raises(PgCryptoError) as excinfo:
        KeyRing.load(new, DB_ID, stored)
    assert code_of(excinfo) is PgCryptoCode.INSTALLATION_KEY_WRONG
    stored[1] = ring2.wrapped(2, new)  # run again: finishes (the first kept as written)
    assert {r.wrapping_key_id for r in stored} == {new.key_id}
    assert stored[0] is not first and stored[0].blob != first.blob
    loaded = KeyRing.load(new, DB_ID, stored)
    assert loaded.open_text(sealed, **WHERE) == "ANA" and loaded.current_version == 2
    with pytest.raises(PgCryptoError):
        KeyRing.load(installation, DB_ID, stored)


def _table(ring: KeyRing, count: int) -> dict[int, SealedRow]:
    rows = {}
    for n in range(1, count + 1):
        surname, given = f"APELLIDO{n}", "ANA"
        rows[n] = SealedRow(
            "visitors",
            n,
            ring.current_version,
            {
                "surname": ring.seal_text(surname, table="visitors", column="surname", row=n),
                "given_names": ring.seal_text(given, table="visitors", column="given_names", row=n),
                "notes": None,
            },
            _indexes(ring, {"surname": surname.encode(), "given_names": given.encode()}),
        )
    return rows


def _indexes(ring: KeyRing, plain: Mapping[str, bytes | None]) -> dict[str, tuple[bytes, ...]]:
    surname = (plain["surname"] or b"").decode()
    given = (plain["given_names"] or b"").decode()
    return {"name_tokens": ring.name_tokens(surname, given)}


class Interrupted(Exception):
    pass


def test_reencryption_interrupted_halfway_is_finished_by_a_second_run(
    installation: InstallationKey,
) -> None:
    ring1, _ = KeyRing.create(installation, DB_ID)
    table = _table(ring1, 23)
    ring2, _record = ring1.with_new_version(installation)
    fetched: list[int] = []

    def fetch(current: int, limit: int) -> Sequence[SealedRow]:
        stale = [r for key, r in sorted(table.items()) if r.key_version != current]
        fetched.append(len(stale))
        return stale[:limit]

    def apply_until_third(batch: Sequence[SealedRow]) -> None:
        if len(fetched) == 3:
            raise Interrupted  # the desk switched off while writing the third batch
        for row in batch:
            table[int(row.row)] = row

    with pytest.raises(Interrupted):
        run_reencrypt(fetch, apply_until_third, ring2, batch_size=5, reindex=_indexes)
    versions = [table[n].key_version for n in sorted(table)]
    assert versions == [2] * 10 + [1] * 13  # two batches written, the third never was
    # meanwhile a search under either version finds every row
    query = ring2.name_query("apellido1")
    found = {
        n
        for n, row in table.items()
        if set(query.tokens[row.key_version]) <= set(row.indexes["name_tokens"])
    }
    assert len(found) == 23  # APELLI... is the 6-letter prefix of every surname

    def apply(batch: Sequence[SealedRow]) -> None:
        for row in batch:
            table[int(row.row)] = row

    report = run_reencrypt(fetch, apply, ring2, batch_size=5, reindex=_indexes)
    assert (report.rows, report.batches) == (13, 3)
    assert all(row.key_version == 2 for row in table.values())
    # the old key can go: a ring holding version 2 only opens everything
    only_new = KeyRing.load(installation, DB_ID, [_record])
    for n, row in table.items():
        assert envelope_version(row.values["surname"] or b"") == 2
        assert only_new.open_text(
            row.values["surname"] or b"", table="visitors", column="surname", row=n
        ) == (f"APELLIDO{n}")
        assert row.values["notes"] is None
        assert row.indexes["name_tokens"] == only_new.name_tokens(f"APELLIDO{n}", "ANA")
    assert run_reencrypt(fetch, apply, ring2, batch_size=5).rows == 0  # nothing left


def test_batches_skip_rows_already_done_and_a_stuck_store_is_named(
    installation: InstallationKey,
) -> None:
    ring1, _ = KeyRing.create(installation, DB_ID)
    table = _table(ring1, 7)
    ring2, _ = ring1.with_new_version(installation)
    done = next(reencrypt_batches([table[1]], ring2))[0]
    batches = list(reencrypt_batches([done, *table.values()], ring2, batch_size=4))
    assert [len(b) for b in batches] == [4, 3]
    with pytest.raises(PgCryptoError) as excinfo:
        run_reencrypt(lambda current, limit: [done], lambda batch: None, ring2)
    assert code_of(excinfo) is PgCryptoCode.ROTATION_STUCK


_WORD = st.text(alphabet="AÁBCDEÉGNÑOÓRZ", min_size=1, max_size=9)
_NAME = st.lists(_WORD, min_size=1, max_size=4).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(people=st.lists(st.tuples(_NAME, _NAME), min_size=1, max_size=6), query=_NAME)
def test_name_search_agrees_with_the_word_prefix_search_on_any_names(
    ring: KeyRing, people: list[tuple[str, str]], query: str
) -> None:
    q = ring.name_query(query)
    wanted = set(q.tokens[ring.current_version])
    for surname, given_names in people:
        expected = names.matches(names.words(query), names.words(surname, given_names))
        candidate = wanted <= set(ring.name_tokens(surname, given_names))
        assert candidate or not expected  # the server never drops a match
        assert (candidate if q.exact else candidate and q.matches(surname, given_names)) == (
            expected
        )
