"""Six-month retention (art. 20.4, R3) over both dialects (db/tx.py), in short batches. A
purge with cutoff C (Madrid date D) erases visits before C (their cards too once voided or
valid only until before D; a card still valid loses its link), cards whose visit is gone
once ended, observations before C, visitors with no visit, ban in force at C or later or
open card, and bans ended before C (R5). Each transaction's erasures get an ``ERASED``
entry, the last a ``PURGE``; the report names the cards erased (their PDFs go with them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime
from functools import partial
from typing import Any, Protocol, TypeVar

from admission.ports import madrid_date
from admission.records import PurgeReport
from db import cards, codec, people, visitors
from db.tx import Tx, when

# Visits erased per transaction. Measured on the 1,000,000-visitor file: a day of
# ~26,700 visits took 1.8-2.4 s in batches of 5,000 (six commits, pages re-encrypted
# each time) and 1.5-1.9 s in batches of 20,000; one batch holds the writer ~0.5 s,
# acceptable because the purge runs at start-up and once a day, not in the queue.
BATCH = 20000
T = TypeVar("T")
# The column that holds one identity's rows together: its text on the file, its blind
# index on the server (where the identity is sealed).
_SAME_IDENTITY = {"sqlite": "identity", "pg": "id_index"}
# the table and id each kind of row is erased by: those the chain covers it by
_COVERED = (cards.COVERED, people.COVERED, visitors.VISIT_COVERED, visitors.VISITOR_COVERED)
_ROWS = {c.kind: c for c in (*_COVERED, visitors.OBSERVATION_COVERED)}
Found = tuple[dict[str, int], list[int], bool]  # counts, card numbers erased, more due


class Batches(Protocol):
    """Runs one transaction of the purge (the store's, as the purge's role)."""

    def __call__(self, work: Callable[[Tx], T]) -> T: ...


def newest_event(tx: Tx) -> datetime | None:
    """The latest instant the file records: a visit, a card event or an audit entry (the
    clock must not be behind it; a purge must not run far ahead of it)."""
    # each a single index step: visits by their ``at`` index, the card events and the
    # audit trail by their last row (written in time order)
    sources = (
        "max(at) FROM visits",
        "at FROM card_events ORDER BY event_id DESC LIMIT 1",
        "at FROM audit ORDER BY seq DESC LIMIT 1",
    )
    found = [
        when(rows[0][0])
        for rows in tx.fetch([(f"SELECT {sql}", ()) for sql in sources])
        if rows and rows[0][0]
    ]
    return max(found) if found else None


def purge(
    run: Batches, cutoff: datetime, now: Callable[[], datetime], batch: int = BATCH
) -> PurgeReport:
    """Erase what the six-month rule says, each batch one transaction of ``run`` (which
    may run it again after a conflict: a batch changes the counts once it returned); the
    ``PURGE`` entry, stamped ``now()``, in the last."""
    day = madrid_date(cutoff)
    counts = {"visits": 0, "visitors": 0, "observations": 0}
    purged: list[int] = []

    def merge(found: Found) -> bool:
        for name, value in found[0].items():
            counts[name] += value
        purged.extend(found[1])
        return found[2]

    for step in (_old_visits, _ended_cards, _old_observations):  # steps 1-3, each in batches
        while merge(run(partial(step, cutoff=cutoff, day=day, batch=batch))):
            pass

    def last(tx: Tx) -> Found:
        # 4. visitors kept only by a ban that has ended since
        cut = tx.ts(cutoff)
        same = _SAME_IDENTITY[tx.dialect]
        files = tx.all(
            f"SELECT v.file_number FROM bans AS b JOIN visitors AS v ON v.{same} = b.{same} "
            "WHERE b.lifted_at < ? OR b.expires_at < ?",
            (cut, cut),
        )
        found, numbers = _orphans(tx, {int(r[0]) for r in files}, cutoff, day)
        # 5. bans that ended before the cutoff: kept six months after they stop applying
        bans = _erased(tx, "ban", "lifted_at < ? OR expires_at < ?", (cut, cut))
        total = {k: counts[k] + found.get(k, 0) for k in counts}
        total["cards"] = len(purged) + len(numbers)
        details = {"cutoff": codec.ts(cutoff), "bans": str(len(bans))}
        details.update((k, str(v)) for k, v in total.items())
        tx.audit("retention", "PURGE", "visitor-file", now(), details)
        return found, numbers, False

    merge(run(last))
    erased = (counts["visits"], counts["visitors"], counts["observations"], len(purged))
    return PurgeReport(cutoff, *erased, purged_cards=tuple(sorted(purged)))


def _old_visits(tx: Tx, cutoff: datetime, day: date, batch: int) -> Found:
    """1. A batch of the visits before the cutoff, oldest first."""
    rows = tx.all(
        "SELECT visit_id, file_number FROM visits WHERE at < ? ORDER BY at LIMIT ?",
        (tx.ts(cutoff), batch),
    )
    if not rows:
        return {}, [], False
    ids, params = tx.listed([int(r[0]) for r in rows])
    ended = f"visit_id IN ({ids}) AND (status = 'VOIDED' OR valid_until < ?)"
    numbers = _erased(tx, "card", ended, [*params, tx.day(day)])
    unlinked = tx.all(
        f"UPDATE cards SET visit_id = NULL WHERE visit_id IN ({ids}) RETURNING number", params
    )
    tx.note_erased((), [f"card:{number}" for (number,) in unlinked])
    visits = _erased(tx, "visit", f"visit_id IN ({ids})", params)
    found, more = _orphans(tx, {int(r[1]) for r in rows}, cutoff, day)
    return {**found, "visits": len(visits)}, numbers + more, True


def _ended_cards(tx: Tx, cutoff: datetime, day: date, batch: int) -> Found:
    """2. A batch of the cards that outlived their visit and have now ended."""
    rows = tx.all(
        "SELECT number, file_number FROM cards WHERE visit_id IS NULL AND "
        "(status = 'VOIDED' OR valid_until < ?) LIMIT ?",
        (tx.day(day), batch),
    )
    if not rows:
        return {}, [], False
    ids, params = tx.listed([int(r[0]) for r in rows])
    numbers = _erased(tx, "card", f"number IN ({ids})", params)
    found, more = _orphans(tx, {int(r[1]) for r in rows}, cutoff, day)
    return found, numbers + more, True


def _old_observations(tx: Tx, cutoff: datetime, day: date, batch: int) -> Found:
    """3. A batch of the observations before the cutoff; another is due after a full one."""
    batched = "observation_id IN (SELECT observation_id FROM observations WHERE at < ? LIMIT ?)"
    gone = _erased(tx, "observation", batched, (tx.ts(cutoff), batch))
    return {"observations": len(gone)}, [], len(gone) >= batch


def _orphans(
    tx: Tx, files: set[int], cutoff: datetime, day: date
) -> tuple[dict[str, int], list[int]]:
    """Erase those of ``files`` with no visit, no ban in force at/after the cutoff and
    no open card; the counts, and the numbers of their cards."""
    if not files:
        return {}, []
    cut = tx.ts(cutoff)
    same = _SAME_IDENTITY[tx.dialect]
    listed, params = tx.listed(sorted(files))
    doomed = [
        int(row[0])
        for row in tx.all(
            f"SELECT v.file_number FROM visitors AS v WHERE v.file_number IN ({listed}) "
            "AND NOT EXISTS (SELECT 1 FROM visits AS s WHERE s.file_number = v.file_number) "
            "AND NOT EXISTS (SELECT 1 FROM cards AS c WHERE c.file_number = v.file_number "
            "    AND c.status <> 'VOIDED' AND c.valid_until >= ?) "
            f"AND NOT EXISTS (SELECT 1 FROM bans AS b WHERE b.{same} = v.{same} "
            "    AND (b.lifted_at IS NULL OR b.lifted_at >= ?) "
            "    AND (b.expires_at IS NULL OR b.expires_at >= ?))",
            [*params, tx.day(day), cut, cut],
        )
    ]
    if not doomed:
        return {}, []
    ids, params = tx.listed(doomed)
    mine = f"file_number IN ({ids})"
    numbers = _erased(tx, "card", mine, params)
    observations = _erased(tx, "observation", mine, params)
    visitors = _erased(tx, "visitor", mine, params)
    return {"visitors": len(visitors), "observations": len(observations)}, numbers


def _erased(tx: Tx, kind: str, where: str, params: Iterable[Any]) -> list[int]:
    """Delete the rows of ``kind`` ``where`` says, noted for the ``ERASED`` entry; their ids."""
    rows = _ROWS[kind]
    sql = f"DELETE FROM {rows.table} WHERE {where} RETURNING {rows.key}"
    ids = [int(row[0]) for row in tx.all(sql, list(params))]
    tx.note_erased([f"{kind}:{i}" for i in ids])
    return ids
