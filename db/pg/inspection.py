"""The inspectors' search (art. 20.4) on the shared server (arts. 154-155) over sealed values:
the server narrows (clear columns; blind indexes of names, of an identity - ~1,400 per key
version - and of visits' ``number_index``, migration 0060); the desk opens the rest, refusing
past :data:`MAX_SCANNED` or :data:`MAX_CANDIDATES` rows (``PG_INSPECT_TOO_BROAD``), checks
every criterion and sorts. Nothing written or logged."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from enum import unique
from typing import Any, cast

from admission.codes import Code
from admission.country_codes import MRZ_COUNTRY_CODES
from admission.errors import StoreError
from admission.identity import IdentityKey, IdKind
from admission.inspection import SearchCriteria
from db import names
from db.inspection import conditions, count_upto
from db.pg.crypto import KeyRing, NameQuery
from db.pg.tx import PgTx
from db.tx import Tx

MAX_CANDIDATES = 50_000  # visitors whose names are opened (and sorted) for one search
MAX_SCANNED = 400_000  # rows of one table opened when no criterion narrows the visitors
SCAN_BATCH = 10_000  # rows read per round trip of a scan
_DOCUMENTS = ("visits", "visit_id", "document_number")  # a scan of the documents shown


@unique
class PgInspectionCode(Code):
    """Why an inspectors' search on the server is refused (art. 20.4)."""

    INSPECT_TOO_BROAD = "PG_INSPECT_TOO_BROAD"  # more rows to open than one search opens


def _bounded(tx: Tx, sql: str, params: list[Any], most: int, what: str) -> None:
    """Refuse a search whose ``sql`` leaves more than ``most`` rows to open."""
    if count_upto(tx, sql, params, most + 1) > most:
        raise StoreError(
            f"the search leaves too many {what} to open: add a date range, a name or a number",
            code=PgInspectionCode.INSPECT_TOO_BROAD,
        )


def find_visitors(tx: Tx, criteria: SearchCriteria, limit: int) -> list[int]:
    """The file numbers of the visitors matching every criterion given (at least one), by
    folded name then file number, at most ``limit``; in one read transaction."""
    ring = cast(PgTx, tx).ring
    query: NameQuery | None = None
    if criteria.name is not None:
        query = ring.name_query(criteria.name)
        if not query.words:  # nothing a name is made of (e.g. only "%")
            return []
    where, params = _narrowing(tx, criteria, query)
    if not where and criteria.id_number is not None:
        where.append("v.file_number = ANY(?::bigint[])")
        params.append(sorted(_by_number(tx, ring, criteria.id_number)))
    elif not where and criteria.observation is not None:
        where.append("v.file_number = ANY(?::bigint[])")
        params.append(sorted(_by_observation(tx, criteria.observation, None)))
    clause = " WHERE " + " AND ".join(where) if where else ""
    _bounded(tx, f"SELECT 1 FROM visitors AS v{clause}", params, MAX_CANDIDATES, "visitors")
    # the candidates' names (and identities when asked): all of them, to sort them
    keys: dict[int, str] = {}
    numbers: dict[int, str] = {}
    sql = f"SELECT v.file_number, v.identity, v.surname, v.given_names FROM visitors AS v{clause}"
    for raw, identity, surname, given in tx.all(sql, params):
        fn = int(raw)
        surname_text = tx.open(surname, "visitors", "surname", fn)
        given_text = tx.open(given, "visitors", "given_names", fn)
        if not (query is None or query.exact or query.matches(surname_text, given_text)):
            continue
        keys[fn] = names.search_name(surname_text, given_text)
        if criteria.id_number is not None:
            text = tx.open(identity, "visitors", "identity", fn)
            numbers[fn] = text.rsplit(":", 1)[-1]  # KIND:COUNTRY:NUMBER
    if criteria.id_number is not None:
        number = criteria.id_number
        held = {fn for fn, own in numbers.items() if own == number}
        held |= _documents(tx, ring, number, [fn for fn in keys if fn not in held])
        keys = {fn: key for fn, key in keys.items() if fn in held}
    if criteria.observation is not None and keys:
        noted = _by_observation(tx, criteria.observation, list(keys))
        keys = {fn: key for fn, key in keys.items() if fn in noted}
    return [fn for _key, fn in sorted((key, fn) for fn, key in keys.items())[:limit]]


def _by_number(tx: Tx, ring: KeyRing, number: str) -> set[int]:
    """Every visitor whose identity's number is ``number`` (by the blind indexes of every
    identity it can be) or who showed such a document at a visit (by the visits' number
    index, and by opening those recorded before it while at most :data:`MAX_SCANNED`)."""
    indexes = [i for identity in _identities_of(number) for i in ring.identity_indexes(identity)]
    found = {
        int(fn)
        for (fn,) in tx.all(
            "SELECT file_number FROM visitors WHERE id_index = ANY(?::bytea[]) "
            "UNION SELECT file_number FROM visits WHERE number_index = ANY(?::bytea[])",
            (indexes, list(ring.number_indexes(number))),
        )
    }
    unindexed = "SELECT 1 FROM visits WHERE number_index IS NULL"
    if 0 < count_upto(tx, unindexed, [], MAX_SCANNED + 1) <= MAX_SCANNED:
        for visit_id, fn, doc in _scan(tx, *_DOCUMENTS, None, unindexed=True):
            if tx.open(doc, "visits", "document_number", visit_id) == number:
                found.add(fn)
    return found


def _documents(tx: Tx, ring: KeyRing, number: str, files: list[int]) -> set[int]:
    """Those of ``files`` that showed a document numbered ``number`` at a visit: by the
    visits' number index, and by opening the numbers of their visits recorded before it."""
    if not files:
        return set()
    found = {
        int(fn)
        for (fn,) in tx.all(
            "SELECT DISTINCT file_number FROM visits WHERE file_number = ANY(?::bigint[]) "
            "AND number_index = ANY(?::bytea[])",
            (sorted(set(files)), list(ring.number_indexes(number))),
        )
    }
    for visit_id, fn, doc in _scan(tx, *_DOCUMENTS, files, unindexed=True):
        if fn not in found and tx.open(doc, "visits", "document_number", visit_id) == number:
            found.add(fn)
    return found


def _by_observation(tx: Tx, text: str, files: list[int] | None) -> set[int]:
    """The visitors (of ``files``, or any: bounded) with an observation holding ``text``."""
    needle = text.lower()
    found: set[int] = set()
    for oid, fn, sealed in _scan(tx, "observations", "observation_id", "text", files):
        if fn not in found and needle in tx.open(sealed, "observations", "text", oid).lower():
            found.add(fn)
    return found


def _identities_of(number: str) -> list[IdentityKey]:
    """Every identity whose number is ``number``: DNI and NIE are issued by Spain only,
    other documents by any state or organisation an MRZ names (as the parser accepts)."""
    found = []
    for kind in IdKind:
        states = ("ESP",) if kind in (IdKind.DNI, IdKind.NIE) else _STATES
        for state in states:
            try:
                found.append(IdentityKey(kind, state, number))
            except ValueError:  # not a number an identity can hold
                return []
    return found


_STATES = tuple(sorted({code.rstrip("<") for code in MRZ_COUNTRY_CODES}))


def _narrowing(
    tx: Tx, criteria: SearchCriteria, query: NameQuery | None
) -> tuple[list[str], list[Any]]:
    """The clauses the server can decide over ``visitors AS v``, and their parameters:
    the file's own (:func:`db.inspection.conditions`) but for sealed values."""
    clear = replace(criteria, name=None, id_number=None, observation=None)
    where, params = conditions(clear, ts=tx.ts) or ([], [])
    if query is not None and query.narrows:
        parts = []
        for group in (list(t) for t in query.tokens.values() if t):
            parts.append(
                "SELECT file_number FROM name_tokens WHERE token = ANY(?::bytea[]) "
                "GROUP BY file_number HAVING count(DISTINCT token) = ?"
            )
            params += [group, len(group)]
        where.append("v.file_number IN (" + " UNION ".join(parts) + ")")
    return where, params


def _scan(
    tx: Tx, table: str, key: str, column: str, files: Iterable[int] | None, unindexed: bool = False
) -> Iterable[tuple[int, int, Any]]:
    """(row key, file number, sealed value) of ``table``'s rows - of ``files``, or every
    row when None, refused past :data:`MAX_SCANNED` rows - read in batches by key.
    ``unindexed``: only the visits without a number index (recorded before it)."""
    restrict = "" if files is None else " AND file_number = ANY(?::bigint[])"
    if unindexed:
        restrict += " AND number_index IS NULL"
    extra: list[Any] = [] if files is None else [sorted(set(files))]
    if files is None:
        _bounded(tx, f"SELECT 1 FROM {table} WHERE true{restrict}", [], MAX_SCANNED, table)
    after = 0
    while True:
        rows = tx.all(
            f"SELECT {key}, file_number, {column} FROM {table} WHERE {key} > ?{restrict} "
            f"ORDER BY {key} LIMIT ?",
            [after, *extra, SCAN_BATCH],
        )
        for row_key, fn, value in rows:
            yield int(row_key), int(fn), value
        if len(rows) < SCAN_BATCH:
            return
        after = int(rows[-1][0])
