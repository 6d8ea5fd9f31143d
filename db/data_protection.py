"""The data-protection operations on the visitor file (art. 20.4; GDPR arts. 5, 15, 16):
rectification of a name or an observation and the retention view.

A rectification changes the row and appends its audit entry in ONE transaction; the
entry re-commits to the changed row (``("visitor:N", False)``, ``("observation:ID",
False)``), so ``audit verify`` checks the row as it is now, and names the fields
changed, the reason, the role used and the old value as a keyed hash - never in clear.
A renamed visitor's search name and word index are rewritten as an admission under a
new name rewrites them (:meth:`db.visitors.VisitorsMixin._write_tokens`,
:func:`db.names.search_name`).

The retention counts are a few aggregate reads: the totals through the indexes
(``visits_by_at``, ``observations_by_at``), the months as ranges of ``visits_by_at``
(the Madrid month boundaries converted to the UTC the file stores) and one pass over
``visits_by_file`` (:meth:`DataProtectionMixin.retention_months`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from admission.data_protection import (
    DataProtectionCode,
    DataProtectionError,
    MonthCount,
    MonthSpan,
    RetentionTotals,
)
from admission.records import Observation, Visitor
from db import codec, names
from db.retention import RetentionMixin

__all__ = ["RECTIFIED", "DataProtectionMixin"]

RECTIFIED = "RECTIFIED"  # the audit action of a rectification (GDPR art. 16)


def _opt_ts(value: object) -> datetime | None:
    return None if value is None else codec.parse_ts(str(value))


class DataProtectionMixin(RetentionMixin):
    """Rectification and the retention overview, over the SQLCipher file."""

    def rectify_visitor_name(
        self,
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
        search name and word index, and audit it: one transaction."""
        with self._tx() as conn:
            row = conn.execute(
                "SELECT surname, given_names FROM visitors WHERE file_number = ?",
                (file_number,),
            ).fetchone()
            if row is None:
                raise DataProtectionError("no such file", code=DataProtectionCode.RECTIFY_NOT_FOUND)
            old = {"surname": str(row[0]), "given_names": str(row[1])}
            new = {"surname": surname, "given_names": given_names}
            fields = [f for f in ("surname", "given_names") if old[f] != new[f]]
            if not fields:
                raise DataProtectionError(
                    "the name is already so", code=DataProtectionCode.RECTIFY_UNCHANGED
                )
            conn.execute(
                "UPDATE visitors SET surname = ?, given_names = ?, search_name = ? "
                "WHERE file_number = ?",
                (surname, given_names, names.search_name(surname, given_names), file_number),
            )
            conn.execute("DELETE FROM visitor_tokens WHERE file_number = ?", (file_number,))
            self._write_tokens(conn, file_number, surname, given_names)
            details = self._rectified(conn, fields, old, reason, role)
            self._audit(
                conn,
                actor,
                RECTIFIED,
                f"file:{file_number}",
                at,
                details,
                rows=[(f"visitor:{file_number}", False)],
            )
        found = self.visitor(file_number)
        assert found is not None
        return found

    def rectify_observation_text(
        self,
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
        author and date kept) and audit it: one transaction."""
        with self._tx() as conn:
            row = conn.execute(
                "SELECT at, author, text FROM observations "
                "WHERE observation_id = ? AND file_number = ?",
                (observation_id, file_number),
            ).fetchone()
            if row is None:
                raise DataProtectionError(
                    "no such observation in the file", code=DataProtectionCode.RECTIFY_NOT_FOUND
                )
            if str(row[2]) == text:
                raise DataProtectionError(
                    "the text is already so", code=DataProtectionCode.RECTIFY_UNCHANGED
                )
            conn.execute(
                "UPDATE observations SET text = ? WHERE observation_id = ?",
                (text, observation_id),
            )
            details = self._rectified(conn, ["text"], {"text": str(row[2])}, reason, role)
            details["observation"] = str(observation_id)
            self._audit(
                conn,
                actor,
                RECTIFIED,
                f"file:{file_number}",
                at,
                details,
                rows=[(f"observation:{observation_id}", False)],
            )
        return Observation(
            file_number, codec.parse_ts(str(row[0])), str(row[1]), text, observation_id
        )

    def _rectified(
        self,
        conn: sqlite3.Connection,
        fields: Sequence[str],
        old: dict[str, str],
        reason: str,
        role: str,
    ) -> dict[str, str]:
        """The entry's details: the fields changed, the reason, the role, and each old
        value as a keyed hash (never in clear)."""
        details = {"fields": ",".join(fields), "reason": reason, "role": role}
        for name in fields:
            details[f"old_{name}"] = self._keyed_hash_in(conn, old[name])
        return details

    # -- the retention view ----------------------------------------------------------------

    def retention_totals(self, cutoff: datetime) -> RetentionTotals:
        """How many visitors, visits, observations and cards the file holds, the oldest
        of each, and the visits older than ``cutoff`` (a purge is due)."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT (SELECT count(*) FROM visitors), (SELECT count(*) FROM visits), "
                "(SELECT count(*) FROM observations), (SELECT count(*) FROM cards), "
                "(SELECT count(*) FROM visits WHERE at < ?), "
                "(SELECT min(at) FROM visits), (SELECT min(at) FROM observations), "
                "(SELECT min(issued_at) FROM cards)",
                (codec.ts(cutoff),),
            ).fetchone()
        visitors, visits, observations, cards, overdue, first_visit, first_obs, first_card = row
        return RetentionTotals(
            int(visitors),
            int(visits),
            int(observations),
            int(cards),
            int(overdue),
            _opt_ts(first_visit),
            _opt_ts(first_obs),
            _opt_ts(first_card),
        )

    def retention_months(self, months: Sequence[MonthSpan]) -> tuple[MonthCount, ...]:
        """Per Madrid month: visits (admitted, refused), cards issued, and visitors whose
        first visit held falls in it.

        One query per month over its range of ``visits_by_at`` (the month's boundaries
        are UTC instants, as the file stores them), joined to the card each visit gave
        (a card is issued at its visit's instant); the few cards whose visit the purge
        erased are counted by their own date (found through the ``visit_id`` index); and
        one pass over ``visits_by_file`` for each visitor's first visit held. Grouping
        every row with GROUP BY sorts them all and was slower. Measured on 1,000,000
        visits: about 2 s; 5,000,000: about 6 s (see docs/data-protection.md)."""
        if not months:
            return ()
        bounds = [(codec.ts(m.start), codec.ts(m.end)) for m in months]
        firsts = ", ".join("total(first >= ? AND first < ?)" for _ in bounds)
        flat = [stamp for pair in bounds for stamp in pair]
        with self._read() as conn:
            visits = [
                conn.execute(
                    "SELECT count(*), total(v.verdict = 'ADMIT'), total(v.verdict = 'DENY'), "
                    "count(c.number) FROM visits AS v INDEXED BY visits_by_at "
                    "LEFT JOIN cards AS c ON c.visit_id = v.visit_id "
                    "WHERE v.at >= ? AND v.at < ?",
                    pair,
                ).fetchone()
                for pair in bounds
            ]
            orphans = [
                str(row[0])
                for row in conn.execute("SELECT issued_at FROM cards WHERE visit_id IS NULL")
            ]
            new = conn.execute(
                f"SELECT {firsts} FROM (SELECT min(at) AS first FROM visits "
                "INDEXED BY visits_by_file GROUP BY file_number)",
                flat,
            ).fetchone()
        out = []
        for (start, end), span, (n, admitted, refused, cards), first in zip(
            bounds, months, visits, new, strict=True
        ):
            cards += sum(1 for at in orphans if start <= at < end)
            out.append(
                MonthCount(
                    span.month,
                    int(n),
                    int(admitted),
                    int(refused),
                    int(cards),
                    int(first or 0),
                )
            )
        return tuple(out)
