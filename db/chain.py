"""The audit trail's rules (arts. 20.4, 14.1.b) over a transaction of either dialect
(db/tx.py): append an entry committing to its act's rows, count the rows a transaction
erased (``ERASED``), read and verify the chain; the file's settings and secrets. Subjects
are numbers or keyed hashes, never names or document numbers in clear."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from admission.errors import StoreError, StoreErrorCode
from admission.records import AuditAnchor, AuditCheck, AuditEntry, AuditHead
from db import accounts, cards, codec, people, visitors, voucher_book
from db.audit_chain import (
    COVERAGE,
    ERASED,
    GENESIS,
    KINDS,
    AuditChainCode,
    ChainKey,
    ChainRow,
    IndexMismatch,
    canonical_details,
    canonical_refs,
    chain_row,
    check_rows,
    counters_details,
    entries_digest,
    entry_mac,
    kind_of,
    parse_refs,
    registry_content,
    row_mac,
    walk_chain,
)
from db.audit_rows import Content, Covered
from db.tx import AuditRows, Tx, scalar

SUBJECT_SECRET = "audit_subject"
UPGRADE_ACTOR = "audit-upgrade"  # the chain's own entries: keyed, baseline, coverage
Commits = dict[str, tuple[str, bool]]  # ref -> (row mac, created)
Clock = Callable[[], datetime]
NO_TRAIL = "this transaction keeps no audit trail"
CHAIN_COLUMNS = "seq, at, actor, action, subject, details, prev_digest, digest, refs"
# The first entry committing to a row whose pointer names an older entry. The server's
# joins once in a materialised step (with ORDER BY ... LIMIT 1 it scans audit_refs once
# per entry: quadratic in the file's size).
_ROLLED_BACK = {
    "sqlite": "SELECT a.seq, j.key FROM audit AS a, json_each(a.refs) AS j "
    "JOIN audit_refs AS r ON r.ref = j.key WHERE r.seq < a.seq ORDER BY a.seq LIMIT 1",
    "pg": "WITH late AS MATERIALIZED (SELECT a.seq, j.ref FROM audit AS a "
    "CROSS JOIN LATERAL jsonb_object_keys(a.refs::jsonb) AS j(ref) "
    "JOIN audit_refs AS r ON r.ref = j.ref WHERE r.seq < a.seq) "
    "SELECT seq, ref FROM late ORDER BY seq LIMIT 1",
}


class Chained:
    """The append both dialects' transactions share: each says only where its chain's
    key comes from; ``now`` stamps the ERASED entry counted first (None in a read)."""

    __slots__ = ("head", "primed")
    now: Clock | None
    head: AuditHead | None  # the chain's newest entry as this transaction knows it
    primed: dict[str, int]  # counters read under the head's lock (Tx.prime)

    def chain_key(self) -> ChainKey:  # pragma: no cover - each dialect's own
        raise NotImplementedError

    def appended(self, head: AuditHead) -> None:
        """Told of each entry this transaction appends (the server's store keeps the
        newest it committed: a file restored to an earlier minute is then noticed)."""
        self.head = head

    def new_id(self, table: str, column: str) -> int:
        tx = cast(Tx, self)
        return int(scalar(tx, f"SELECT {tx.id_sql(table, column)}"))

    def prime(self, counters: Mapping[str, int], head: AuditHead | None) -> None:
        self.primed = dict(counters)
        self.head = head

    def primed_number(self, counter: str) -> int | None:
        """The next number of a primed counter, its new value sent; None if not primed."""
        number = self.primed.get(counter)
        if number is not None:
            self.primed[counter] = number + 1
            tx = cast(Tx, self)
            tx.send("UPDATE counters SET next = ? WHERE name = ?", (number + 1, counter))
        return number

    def audit(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: AuditRows = (),
    ) -> int:
        """Append inside this transaction, committing to ``rows`` (``(ref, created)``)
        as they are now: the entry and the act commit together. The rows erased so far
        are counted first."""
        return self.audit_written(actor, action, subject, at, details, rows, {})

    def audit_written(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None,
        rows: AuditRows,
        contents: Mapping[str, Sequence[object]],
    ) -> int:
        """:meth:`audit`, given the content of rows this transaction has just written, as
        the chain reads them (db/audit_rows.py): they are not read back (``verify`` reads
        every row and would find any difference)."""
        if self.now is None:
            raise StoreError(NO_TRAIL, code=StoreErrorCode.WRITE_FAILED)
        tx, key = cast(Tx, self), self.chain_key()
        account_erasures(tx, key, self.now)
        commits = {
            ref: (
                row_mac(key, ref, contents[ref]) if ref in contents else _row_mac(tx, key, ref),
                new,
            )
            for ref, new in rows
        }
        return append_entry(tx, key, actor, action, subject, at, details, commits)


def _row_mac(tx: Tx, key: ChainKey, ref: str) -> str:
    content = COVERED[kind_of(ref)].one(tx, ref)
    if content is None:
        raise StoreError(f"no row {ref} to record", code=AuditChainCode.ROW_UNRECORDED)
    return row_mac(key, ref, content)


def append_entry(
    tx: Tx,
    key: ChainKey,
    actor: str,
    action: str,
    subject: str,
    at: datetime,
    details: Mapping[str, str] | None,
    commits: Commits,
) -> int:
    """The entry itself, chained to the one before, with the macs already taken."""
    seq = tx.next_number("audit")
    known = tx.head
    if known is not None and known.seq == seq - 1:  # primed, or this transaction's own
        prev = known.digest
    else:
        found = tx.one("SELECT digest FROM audit WHERE seq = ?", (seq - 1,))
        prev = str(found[0]) if found else GENESIS
    stamp, text, refs = codec.ts(at), canonical_details(details), canonical_refs(commits)
    mac = entry_mac(key, prev, seq, stamp, actor, action, subject, text, refs)
    tx.appended(AuditHead(seq, mac, at))
    keyed = ("", "") if tx.dialect == "pg" else (", keyed", ", 1")  # SQLite's 0030 column
    tx.send(
        f"INSERT INTO audit ({CHAIN_COLUMNS}{keyed[0]}) "
        f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?{keyed[1]})",
        (seq, stamp, actor, action, subject, text, prev, mac, refs),
    )
    if commits:
        sub, params = tx.listed(list(commits))
        tx.send(
            f"INSERT INTO audit_refs (ref, seq) SELECT value, ? FROM ({sub}) AS l WHERE true "
            "ON CONFLICT (ref) DO UPDATE SET seq = excluded.seq",
            (seq, *params),
        )
    return seq


def account_erasures(tx: Tx, key: ChainKey, now: Clock) -> None:
    """The rows this transaction erased so far, counted (:func:`count_erasures`)."""
    erased, changed = tx.erasures()
    if erased or changed:
        count_erasures(tx, key, now, erased, changed)


def count_erasures(
    tx: Tx, key: ChainKey, now: Clock, erased: Sequence[str], changed: Sequence[str]
) -> None:
    """One ``ERASED`` entry: per kind, how many rows were erased and which ids (art.
    20.4); it commits to the cards that only lost the link to an erased visit. An erased
    row's pointer goes, but a snapshot's: its id is never given again, and the server's
    desks that swap the register may not delete pointers."""
    erased = [
        "staff:" + keyed_hash_in(tx, r.split(":", 1)[1]) if kind_of(r) == "staffid" else r
        for r in erased
    ]
    details: dict[str, str] = {}
    for kind in KINDS:
        refs = [r for r in erased if kind_of(r) == kind]
        if refs:
            details[kind] = str(len(refs))
        if refs and kind != "staff":
            ids = sorted(int(r.split(":", 1)[1]) for r in refs)
            details[f"{kind}_first"], details[f"{kind}_last"] = str(ids[0]), str(ids[-1])
    dropped = [r for r in erased if kind_of(r) != "registry"]
    if dropped:
        sub, params = tx.listed(dropped)
        tx.execute(f"DELETE FROM audit_refs WHERE ref IN ({sub})", params)
    cards = {r: (_row_mac(tx, key, r), False) for r in changed}
    append_entry(tx, key, "retention", ERASED, "visitor-file", now(), details, cards)


def adopt_coverage(tx: Tx, key: ChainKey, at: datetime) -> int:
    """Once, for a file whose chain began before it covered vouchers and RIAJ snapshots
    (SQLCipher migration 0060, server migration 0070): one entry committing to those
    present and saying where the counters stand. The caller clears its flag."""
    commits = {
        ref: (row_mac(key, ref, content), True)
        for kind in ("voucher", "registry")
        for ref, content in list(COVERED[kind].every(tx))
    }
    details = counters_details(counters(tx))
    return append_entry(tx, key, UPGRADE_ACTOR, COVERAGE, "audit", at, details, commits)


# -- reading ------------------------------------------------------------------------------


def head(tx: Tx) -> AuditHead:
    """The newest entry: its seq and digest, to be printed outside the file."""
    found = tx.one("SELECT seq, digest, at FROM audit ORDER BY seq DESC LIMIT 1")
    if found is None:
        return AuditHead(0, GENESIS, None)
    return AuditHead(int(found[0]), str(found[1]), codec.parse_ts(str(found[2])))


def entries(tx: Tx, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]:
    """Entries after ``since_seq``, oldest first (inspector reports)."""
    rows = tx.all(
        "SELECT seq, at, actor, action, subject, details, digest, refs FROM audit "
        "WHERE seq > ? ORDER BY seq LIMIT ?",
        (since_seq, limit),
    )
    found = []
    for seq, at, actor, action, subject, details, dig, refs in rows:
        who = (str(actor), str(action), str(subject))
        macs = {ref: mac for ref, (mac, _) in parse_refs(str(refs)).items()}
        said = json.loads(str(details))
        found.append(AuditEntry(int(seq), codec.parse_ts(str(at)), *who, said, str(dig), macs))
    return found


def keyed_ends(tx: Tx) -> list[ChainRow]:
    """The first and the newest keyed entries: a key that verifies neither is not this
    chain's (one changed entry alone is left to verification to report)."""
    columns = CHAIN_COLUMNS + (", 1 AS keyed" if tx.dialect == "pg" else ", keyed")
    keyed = "" if tx.dialect == "pg" else " WHERE keyed = 1"
    one = f"SELECT * FROM (SELECT {columns} FROM audit{keyed} ORDER BY seq{{}} LIMIT 1) AS e"
    return [chain_row(r) for r in tx.all(one.format("") + " UNION " + one.format(" DESC"))]


def signed_by(key: ChainKey, row: ChainRow) -> bool:
    return hmac.compare_digest(row.digest, entry_mac(key, row.prev_digest, *row.fields))


def counters(tx: Tx) -> dict[str, int]:
    """The numbered counters the chain checks (``{"card": next, "voucher": next}``)."""
    rows = tx.all("SELECT name, next FROM counters WHERE name IN ('card', 'voucher')")
    return {str(name): int(value) for name, value in rows}


def verify_in(
    tx: Tx,
    key: ChainKey,
    anchors: Sequence[AuditAnchor] = (),
    settings: Mapping[str, str] | None = None,
) -> AuditCheck:
    """Walk the whole chain (streamed) with the key, check it against ``anchors`` (heads
    kept outside the file) and ``settings`` (the desk's settings digests), then every row
    present against the newest entry committing to it - in one snapshot, ``tx``."""
    keyed = "1" if tx.dialect == "pg" else "keyed"  # SQLite's entries from before the key: 0
    sql = f"SELECT {CHAIN_COLUMNS}, {keyed} FROM audit ORDER BY seq"
    found = tx.one("SELECT next - 1 FROM counters WHERE name = 'audit'")
    assert found is not None
    walk = walk_chain(
        (chain_row(row) for rows in tx.batches(sql) for row in rows),
        key,
        expected_count=int(found[0]),
        anchors=anchors,
        counters=counters(tx),
        settings=settings,
    )
    if not walk.check.ok:
        return walk.check
    rolled = tx.one(_ROLLED_BACK[tx.dialect])
    if rolled is not None:
        problem = AuditChainCode.ROW_ROLLED_BACK
        return AuditCheck(False, walk.check.entries, int(rolled[0]), problem, row=str(rolled[1]))
    covered = (row for kind in KINDS for row in COVERED[kind].pointed(tx))
    try:
        return check_rows(key, covered, walk)
    except IndexMismatch as exc:
        problem = AuditChainCode.BLIND_INDEX_MISMATCH
        return AuditCheck(False, walk.check.entries, None, problem, row=exc.ref)


# -- settings and secrets (sealed on the server) ------------------------------------------


def secret_in(tx: Tx, name: str) -> bytes:
    """A random 32-byte secret, created on first use (e.g. ``"card_code"``)."""
    key = f"secret:{name}"
    found = tx.setting(key)
    if found is None:
        tx.put_setting(key, os.urandom(32), replace=False)
        found = tx.setting(key)
    assert found is not None
    return bytes(found) if not isinstance(found, str) else found.encode()


def keyed_hash(secret: bytes, text: str) -> str:
    """``hmac:`` + 16 hex of HMAC-SHA256 under the file's subject secret: lets the audit
    name a query or an identity without showing it, and link repeated ones."""
    return "hmac:" + hmac.new(secret, text.encode("utf-8"), hashlib.sha256).hexdigest()[:16]


def keyed_hash_in(tx: Tx, text: str) -> str:
    return keyed_hash(secret_in(tx, SUBJECT_SECRET), text)


def get_setting(tx: Tx, key: str) -> str | None:
    if key.startswith("secret:"):
        raise ValueError("secrets are read with secret()")
    found = tx.setting(key)
    return None if found is None else str(found)


def set_setting(tx: Tx, key: str, value: str) -> None:
    if key.startswith("secret:"):
        raise ValueError("secrets are created by secret()")
    tx.put_setting(key, value)


# -- the kinds of row the chain commits to, in the order it verifies them ------------------
# The RIAJ snapshots (art. 20.2) are registered here: one row each, whose content ends with
# the SHA-256 of its identifier digests in order, recomputed only at an import, a feed page
# or verification; the other kinds are registered by their modules.


def _registry(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    digests = "SELECT digest FROM registry_entry WHERE snapshot_id = ? ORDER BY digest"  # no sort
    found: list[Content] = []
    for snapshot_id, *row in rows:
        values = [
            codec.ts(v) if isinstance(v, datetime) else int(v) if isinstance(v, bool) else v
            for v in row
        ]
        batches = tx.batches(digests, (int(snapshot_id),))
        content = registry_content(values, entries_digest(bytes(d) for b in batches for (d,) in b))
        found.append((f"registry:{int(snapshot_id)}", content))
    return found


_SNAPSHOT = (
    "t.snapshot_id, t.version, t.scheme, t.salt, t.scope, t.as_of, t.imported_at, "
    "t.entry_count, t.content_sha256, t.signed, t.feed_as_of, t.feed_applied, {page}t.active"
)
COVERED: dict[str, Covered] = {  # in the order of KINDS
    c.kind: c
    for c in (
        visitors.VISITOR_COVERED,
        visitors.VISIT_COVERED,
        cards.COVERED,
        people.COVERED,
        people.STAFF_COVERED,
        visitors.OBSERVATION_COVERED,
        accounts.COVERED,
        voucher_book.COVERED,
        Covered(  # the server keeps the feed's page too
            "registry",
            "registry_snapshot",
            "snapshot_id",
            _SNAPSHOT.format(page=""),
            _registry,
            _SNAPSHOT.format(page="t.feed_page, "),
            optional=True,
        ),
    )
}
assert tuple(COVERED) == KINDS
