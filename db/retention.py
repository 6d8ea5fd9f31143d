"""Six-month retention (art. 20.4, R3), in short batches so the desk is never blocked long.

A purge with cutoff C (Madrid date D = madrid_date(C)) erases:

* visits before C; their cards too when voided or valid only until before D — a card
  still valid keeps its number and file but loses its link to the erased visit;
* cards whose visit is gone once they are voided or their validity ended before D;
* observations before C;
* visitors left with no visit, no ban in force at C or later, and no open card
  (not voided, valid on D or later), with their remaining cards and observations.

``secure_delete`` zeroes the erased rows; the WAL is checkpointed and truncated after.
The report names the cards erased, so that exactly their PDFs go with them. Every purge
first checks the HMAC of every page (the daily full check, db/integrity.py): a damaged
file erases nothing and takes no more writes (DAMAGED_FILE).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime

from admission.ports import madrid_date
from admission.records import PurgeReport
from db import codec
from db.connection import DB_ERRORS
from db.visitors import VisitorsMixin

# Visits erased per transaction. Measured on the 1,000,000-visitor file: a day of
# ~26,700 visits took 1.8-2.4 s in batches of 5,000 (six commits, pages re-encrypted
# each time) and 1.5-1.9 s in batches of 20,000; one batch holds the writer ~0.5 s,
# acceptable because the purge runs at start-up and once a day, not in the queue.
BATCH = 20000
_IDS = "(SELECT value FROM json_each(?))"


def _ids(values: Iterable[int]) -> str:
    return json.dumps(sorted(set(values)))


def _numbers(cursor: sqlite3.Cursor) -> list[int]:
    """The numbers a ``DELETE ... RETURNING number`` erased (read before the next
    statement, as SQLite requires)."""
    return [int(row[0]) for row in cursor.fetchall()]


class RetentionMixin(VisitorsMixin):
    def newest_event(self) -> datetime | None:
        """The latest instant the file records: a visit, a card event or an audit entry
        (the clock must not be behind it; a purge must not run far ahead of it)."""
        # each a single index step: visits by their ``at`` index, the card events and
        # the audit trail by their last row (written in time order)
        queries = (
            "SELECT max(at) FROM visits",
            "SELECT at FROM card_events ORDER BY rowid DESC LIMIT 1",
            "SELECT at FROM audit ORDER BY seq DESC LIMIT 1",
        )
        with self._read() as conn:
            stamps = [(conn.execute(sql).fetchone() or (None,))[0] for sql in queries]
        found = [codec.parse_ts(str(s)) for s in stamps if s]
        return max(found) if found else None

    def purge(self, cutoff: datetime, *, batch: int = BATCH) -> PurgeReport:
        self._check_whole()
        if not self.integrity_check().ok:  # the daily full check (art. 20.4)
            self._check_whole()
        cut = codec.ts(cutoff)
        cut_day = codec.day(madrid_date(cutoff))
        counts = {"visits": 0, "visitors": 0, "observations": 0}
        purged: list[int] = []  # card numbers

        def add(found: dict[str, int]) -> None:
            for name, value in found.items():
                counts[name] += value

        while True:  # 1. visits before the cutoff, oldest first
            with self._tx() as conn:
                rows = conn.execute(
                    "SELECT visit_id, file_number FROM visits WHERE at < ? ORDER BY at LIMIT ?",
                    (cut, batch),
                ).fetchall()
                if not rows:
                    break
                add(
                    self._erase_visits(
                        conn, [r[0] for r in rows], {r[1] for r in rows}, cut, cut_day, purged
                    )
                )
        while True:  # 2. cards that outlived their visit and have now ended
            with self._tx() as conn:
                rows = conn.execute(
                    "SELECT number, file_number FROM cards WHERE visit_id IS NULL AND "
                    "(status = 'VOIDED' OR valid_until < ?) LIMIT ?",
                    (cut_day, batch),
                ).fetchall()
                if not rows:
                    break
                purged += _numbers(
                    conn.execute(
                        f"DELETE FROM cards WHERE number IN {_IDS} RETURNING number",
                        (_ids(r[0] for r in rows),),
                    )
                )
                add(self._erase_orphans(conn, {r[1] for r in rows}, cut, cut_day, purged))
        while True:  # 3. observations before the cutoff
            with self._tx() as conn:
                deleted = conn.execute(
                    "DELETE FROM observations WHERE observation_id IN (SELECT observation_id "
                    "FROM observations WHERE at < ? LIMIT ?)",
                    (cut, batch),
                ).rowcount
                counts["observations"] += deleted
            if deleted < batch:
                break
        with self._tx() as conn:  # 4. visitors kept only by a ban that has ended since
            files = [
                row[0]
                for row in conn.execute(
                    "SELECT v.file_number FROM bans AS b "
                    "JOIN visitors AS v ON v.identity = b.identity "
                    "WHERE b.lifted_at < ? OR b.expires_at < ?",
                    (cut, cut),
                )
            ]
            add(self._erase_orphans(conn, set(files), cut, cut_day, purged))
            # 5. bans that ended before the cutoff: a dated, reasoned ban (R5) is personal
            # data too, kept six months after it stops applying, like a visit.
            bans = conn.execute(
                "DELETE FROM bans WHERE lifted_at < ? OR expires_at < ?", (cut, cut)
            ).rowcount
            counts["cards"] = len(purged)
            report = PurgeReport(
                cutoff,
                counts["visits"],
                counts["visitors"],
                counts["observations"],
                counts["cards"],
                purged_cards=tuple(sorted(purged)),
            )
            self._audit(
                conn,
                "retention",
                "PURGE",
                "visitor-file",
                self._now(),
                {"cutoff": cut, "bans": str(bans), **{k: str(v) for k, v in counts.items()}},
            )
        self.checkpoint()
        return report

    def checkpoint(self) -> None:
        """Copy the WAL into the file and truncate it (erased rows leave the WAL too)."""
        with self._lock:
            self._check_open()
            # Busy readers: SQLite checkpoints again later and at close.
            with contextlib.suppress(*DB_ERRORS):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def _erase_visits(
        self,
        conn: sqlite3.Connection,
        visit_ids: list[int],
        files: set[int],
        cut: str,
        cut_day: str,
        purged: list[int],
    ) -> dict[str, int]:
        ids = _ids(visit_ids)
        purged += _numbers(
            conn.execute(
                f"DELETE FROM cards WHERE visit_id IN {_IDS} AND "
                "(status = 'VOIDED' OR valid_until < ?) RETURNING number",
                (ids, cut_day),
            )
        )
        conn.execute(f"UPDATE cards SET visit_id = NULL WHERE visit_id IN {_IDS}", (ids,))
        visits = conn.execute(f"DELETE FROM visits WHERE visit_id IN {_IDS}", (ids,)).rowcount
        found = self._erase_orphans(conn, files, cut, cut_day, purged)
        found["visits"] = visits
        return found

    @staticmethod
    def _erase_orphans(
        conn: sqlite3.Connection, files: set[int], cut: str, cut_day: str, purged: list[int]
    ) -> dict[str, int]:
        """Erase those of ``files`` with no visit, no ban in force at/after the cutoff and
        no open card; their card numbers are added to ``purged``."""
        if not files:
            return {"visitors": 0, "observations": 0}
        doomed = _ids(
            row[0]
            for row in conn.execute(
                f"SELECT v.file_number FROM visitors AS v WHERE v.file_number IN {_IDS} "
                "AND NOT EXISTS (SELECT 1 FROM visits AS s WHERE s.file_number = v.file_number) "
                "AND NOT EXISTS (SELECT 1 FROM cards AS c WHERE c.file_number = v.file_number "
                "    AND c.status <> 'VOIDED' AND c.valid_until >= ?) "
                "AND NOT EXISTS (SELECT 1 FROM bans AS b WHERE b.identity = v.identity "
                "    AND (b.lifted_at IS NULL OR b.lifted_at >= ?) "
                "    AND (b.expires_at IS NULL OR b.expires_at >= ?))",
                (_ids(files), cut_day, cut, cut),
            )
        )
        purged += _numbers(
            conn.execute(
                f"DELETE FROM cards WHERE file_number IN {_IDS} RETURNING number", (doomed,)
            )
        )
        return {
            "observations": conn.execute(
                f"DELETE FROM observations WHERE file_number IN {_IDS}", (doomed,)
            ).rowcount,
            "visitors": conn.execute(
                f"DELETE FROM visitors WHERE file_number IN {_IDS}", (doomed,)
            ).rowcount,
        }
