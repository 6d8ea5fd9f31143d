"""Rectification (GDPR art. 16) and the retention view (art. 20.4; GDPR art. 5) over both
dialects (db/tx.py). A rectification changes the row and appends its entry in ONE
transaction; the entry re-commits to the row and names each old value as a keyed hash,
never in clear. The retention view reads clear columns through the indexes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from admission.data_protection import (
    DataProtectionCode,
    DataProtectionError,
    MonthCount,
    MonthSpan,
    RetentionTotals,
)
from admission.identity import IdentityKey
from admission.records import Observation, Visitor
from db import visitors
from db.tx import Tx, opt_when, update_row, when

RECTIFIED = "RECTIFIED"  # the audit action of a rectification (GDPR art. 16)


def rectify_visitor_name(
    tx: Tx,
    file_number: int,
    surname: str,
    given_names: str,
    *,
    actor: str,
    role: str,
    reason: str,
    at: datetime,
) -> Visitor:
    """Set the visitor's surname and given names (checked by the service), with the
    name's indexes, and audit it; the visitor as now recorded."""
    base = visitors.VISITOR_BASE
    row = tx.one(
        f"SELECT {base} FROM visitors AS v WHERE v.file_number = ?" + tx.lock_rows, (file_number,)
    )
    if row is None:
        raise DataProtectionError("no such file", code=DataProtectionCode.RECTIFY_NOT_FOUND)
    fn, identity, *name, birth, nationality = visitors.visitor_plain(tx.open, row)
    new = {"surname": surname, "given_names": given_names}
    old = dict(zip(new, name, strict=True))
    fields = [f for f in new if old[f] != new[f]]
    if not fields:
        raise DataProtectionError(
            "the name is already so", code=DataProtectionCode.RECTIFY_UNCHANGED
        )
    # the whole row sealed again: on the server ``key_version`` names the version of
    # every sealed value of a row (on the file the other values are rewritten as they are)
    plain = {"identity": identity, **new, "birth_date": birth, "nationality": nationality}
    columns = {c: None if v is None else tx.seal(v, "visitors", c, fn) for c, v in plain.items()}
    columns.update(tx.index_columns(identity=IdentityKey.parse(identity)))
    update_row(tx, "visitors", columns, "file_number", fn)
    tx.index_name(fn, surname, given_names)
    details = _rectified(tx, fields, old, reason, role)
    tx.audit(actor, RECTIFIED, f"file:{fn}", at, details, [(f"visitor:{fn}", False)])
    found = visitors.by_number(tx, fn)
    assert found is not None
    return found


def rectify_observation_text(
    tx: Tx,
    file_number: int,
    observation_id: int,
    text: str,
    *,
    actor: str,
    role: str,
    reason: str,
    at: datetime,
) -> Observation:
    """Set the text of observation ``observation_id`` of file ``file_number`` (its
    author and date kept) and audit it."""
    row = tx.one(
        "SELECT at, author, text FROM observations WHERE observation_id = ? "
        "AND file_number = ?" + tx.lock_rows,
        (observation_id, file_number),
    )
    if row is None:
        raise DataProtectionError(
            "no such observation in the file", code=DataProtectionCode.RECTIFY_NOT_FOUND
        )
    old = tx.open(row[2], "observations", "text", observation_id)
    if old == text:
        raise DataProtectionError(
            "the text is already so", code=DataProtectionCode.RECTIFY_UNCHANGED
        )
    sealed = {"text": tx.seal(text, "observations", "text", observation_id), **tx.index_columns()}
    update_row(tx, "observations", sealed, "observation_id", observation_id)
    details = _rectified(tx, ["text"], {"text": old}, reason, role)
    details["observation"] = str(observation_id)
    rows = [(f"observation:{observation_id}", False)]
    tx.audit(actor, RECTIFIED, f"file:{file_number}", at, details, rows)
    return Observation(file_number, when(row[0]), str(row[1]), text, observation_id)


def _rectified(
    tx: Tx, fields: Sequence[str], old: dict[str, str], reason: str, role: str
) -> dict[str, str]:
    """The entry's details: the fields changed, the reason, the role, and each old
    value as a keyed hash (never in clear)."""
    details = {"fields": ",".join(fields), "reason": reason, "role": role}
    return details | {f"old_{name}": tx.keyed_hash(old[name]) for name in fields}


def retention_totals(tx: Tx, cutoff: datetime) -> RetentionTotals:
    """How many visitors, visits, observations and cards the file holds, the oldest of
    each, and the visits older than ``cutoff`` (a purge is due)."""
    row = tx.one(
        "SELECT (SELECT count(*) FROM visitors), (SELECT count(*) FROM visits), "
        "(SELECT count(*) FROM observations), (SELECT count(*) FROM cards), "
        "(SELECT count(*) FROM visits WHERE at < ?), "
        "(SELECT min(at) FROM visits), (SELECT min(at) FROM observations), "
        "(SELECT min(issued_at) FROM cards)",
        (tx.ts(cutoff),),
    )
    assert row is not None
    people, visits, observations, cards, overdue = map(int, row[:5])
    return RetentionTotals(people, visits, observations, cards, overdue, *map(opt_when, row[5:]))


def retention_months(tx: Tx, months: Sequence[MonthSpan]) -> tuple[MonthCount, ...]:
    """Per Madrid month, in the order given: visits (admitted, refused), cards issued,
    and visitors whose first visit held falls in it. One query per month over its range
    of ``visits_by_at`` joined to the card each visit gave (a card is issued at its
    visit's instant), the cards whose visit the purge erased by their own date, one pass
    over ``visits_by_file`` for the first visits: GROUP BY over every row was slower
    (1,000,000 visits: about 2 s; 5,000,000: about 6 s; docs/data-protection.md)."""
    if not months:
        return ()
    spans = [(tx.ts(m.start), tx.ts(m.end)) for m in months]
    # SQLite's planner needs the index named (the server plans alone)
    hint = " INDEXED BY visits_by_{}" if tx.dialect == "sqlite" else ""
    by_at, by_file = hint.format("at"), hint.format("file")
    month = (
        "SELECT count(*), count(*) FILTER (WHERE v.verdict = 'ADMIT'), "
        "count(*) FILTER (WHERE v.verdict = 'DENY'), count(c.number) "
        f"FROM visits AS v{by_at} LEFT JOIN cards AS c ON c.visit_id = v.visit_id "
        "WHERE v.at >= ? AND v.at < ?"
    )
    visits = [tx.all(month, span)[0] for span in spans]  # an aggregate: one row each
    orphans = [when(r[0]) for r in tx.all("SELECT issued_at FROM cards WHERE visit_id IS NULL")]
    ranges = ", ".join("count(*) FILTER (WHERE q.first >= ? AND q.first < ?)" for _ in spans)
    firsts = tx.one(
        f"SELECT {ranges} FROM (SELECT min(at) AS first FROM visits{by_file} "
        "GROUP BY file_number) AS q",
        [stamp for span in spans for stamp in span],
    )
    assert firsts is not None
    return tuple(
        MonthCount(
            span.month,
            int(n),
            int(admitted),
            int(refused),
            int(cards) + sum(1 for at in orphans if span.start <= at < span.end),
            int(first or 0),
        )
        for span, (n, admitted, refused, cards), first in zip(months, visits, firsts, strict=True)
    )
