"""The data-protection operations on the visitor file on the shared PostgreSQL server
(art. 20.4; GDPR arts. 5, 15, 16): rectification of a name or an observation and the
retention view - the same answers and audit entries as db/data_protection.py.

A rectification changes the row and appends its audit entry in ONE transaction of the
store (after the chain's head lock, :meth:`db.pg.store.PgStore._write`). The entry
re-commits to the changed row (``("visitor:N", False)``, ``("observation:ID",
False)``), so ``audit verify`` checks the row as it is now, and names the fields
changed, the reason, the role used and each old value as a keyed hash under the file's
subject secret (:meth:`PgStore.keyed_hash`): the old value never reaches the server in
clear. The new values are sealed under the current data key version; a renamed
visitor's whole row is resealed (``key_version`` names the version of every sealed
value of a row) and its name tokens are rewritten, as an admission under a new name
rewrites them.

The retention counts are aggregates over clear columns (times, verdicts, card rows):
nothing is opened.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from admission.data_protection import (
    DataProtectionCode,
    DataProtectionError,
    MonthCount,
    MonthSpan,
    RetentionTotals,
)
from admission.identity import IdentityKey
from admission.records import Observation, Visitor
from db.pg.rows import VISITOR_BASE, opt_utc, utc
from db.pg.store import PgStore, _Tx

__all__ = ["RECTIFIED", "PgDataProtection"]

RECTIFIED = "RECTIFIED"  # the audit action of a rectification (as db.data_protection)


class PgDataProtection:
    """Rectification and the retention overview over an open :class:`PgStore`. With the
    store's ``visitor`` it is an :class:`admission.data_protection.DataProtectionStore`
    (:class:`db.pg.reports.PgDeskReads`)."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

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
        """Set the visitor's surname and given names (checked by the service), with its
        name tokens, and audit it: one transaction."""
        store = self._store
        ring = store.ring

        def work(tx: _Tx) -> None:
            row = tx.one(
                f"SELECT {VISITOR_BASE} FROM visitors AS v WHERE v.file_number = %s FOR UPDATE",
                (file_number,),
            )
            if row is None:
                raise DataProtectionError("no such file", code=DataProtectionCode.RECTIFY_NOT_FOUND)
            fn, identity, old_surname, old_given, birth, nationality = store.opener.visitor_plain(
                row
            )
            old = {"surname": old_surname, "given_names": old_given}
            new = {"surname": surname, "given_names": given_names}
            fields = [f for f in ("surname", "given_names") if old[f] != new[f]]
            if not fields:
                raise DataProtectionError(
                    "the name is already so", code=DataProtectionCode.RECTIFY_UNCHANGED
                )
            tx.conn.execute(
                "UPDATE visitors SET id_index = %s, identity = %s, surname = %s, "
                "given_names = %s, birth_date = %s, nationality = %s, key_version = %s "
                "WHERE file_number = %s",
                (
                    ring.identity_index(IdentityKey.parse(identity)),
                    store._seal(identity, "visitors", "identity", fn),
                    store._seal(surname, "visitors", "surname", fn),
                    store._seal(given_names, "visitors", "given_names", fn),
                    None if birth is None else store._seal(birth, "visitors", "birth_date", fn),
                    store._seal(nationality, "visitors", "nationality", fn),
                    ring.current_version,
                    fn,
                ),
            )
            tx.conn.execute("DELETE FROM name_tokens WHERE file_number = %s", (fn,))
            tokens = ring.name_tokens(surname, given_names)
            if tokens:
                tx.conn.execute(
                    "INSERT INTO name_tokens (token, file_number) "
                    "SELECT t, %s FROM unnest(%s::bytea[]) AS t",
                    (fn, list(tokens)),
                )
            store._audit(
                tx,
                actor,
                RECTIFIED,
                f"file:{fn}",
                at,
                self._rectified(tx, fields, old, reason, role),
                [(f"visitor:{fn}", False)],
            )

        store.write(work)
        found = store.visitor(file_number)
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
        store = self._store

        def work(tx: _Tx) -> Observation:
            row = tx.one(
                "SELECT at, author, text FROM observations "
                "WHERE observation_id = %s AND file_number = %s FOR UPDATE",
                (observation_id, file_number),
            )
            if row is None:
                raise DataProtectionError(
                    "no such observation in the file", code=DataProtectionCode.RECTIFY_NOT_FOUND
                )
            old = store.opener.text(row[2], "observations", "text", observation_id)
            if old == text:
                raise DataProtectionError(
                    "the text is already so", code=DataProtectionCode.RECTIFY_UNCHANGED
                )
            tx.conn.execute(
                "UPDATE observations SET text = %s, key_version = %s WHERE observation_id = %s",
                (
                    store._seal(text, "observations", "text", observation_id),
                    store.ring.current_version,
                    observation_id,
                ),
            )
            details = self._rectified(tx, ["text"], {"text": old}, reason, role)
            details["observation"] = str(observation_id)
            store._audit(
                tx,
                actor,
                RECTIFIED,
                f"file:{file_number}",
                at,
                details,
                [(f"observation:{observation_id}", False)],
            )
            return Observation(file_number, utc(row[0]), str(row[1]), text, observation_id)

        return store.write(work)

    def _rectified(
        self, tx: _Tx, fields: Sequence[str], old: dict[str, str], reason: str, role: str
    ) -> dict[str, str]:
        """The entry's details: the fields changed, the reason, the role, and each old
        value as a keyed hash (never in clear)."""
        details = {"fields": ",".join(fields), "reason": reason, "role": role}
        for name in fields:
            details[f"old_{name}"] = self._store._keyed_hash_in(tx, old[name])
        return details

    # -- the retention view ------------------------------------------------------------

    def retention_totals(self, cutoff: datetime) -> RetentionTotals:
        """How many visitors, visits, observations and cards the file holds, the oldest
        of each, and the visits older than ``cutoff`` (a purge is due)."""
        row = self._store.read(
            lambda tx: tx.one(
                "SELECT (SELECT count(*) FROM visitors), (SELECT count(*) FROM visits), "
                "(SELECT count(*) FROM observations), (SELECT count(*) FROM cards), "
                "(SELECT count(*) FROM visits WHERE at < %s), "
                "(SELECT min(at) FROM visits), (SELECT min(at) FROM observations), "
                "(SELECT min(issued_at) FROM cards)",
                (cutoff,),
            )
        )
        assert row is not None
        visitors, visits, observations, cards, overdue, first_visit, first_obs, first_card = row
        return RetentionTotals(
            int(visitors),
            int(visits),
            int(observations),
            int(cards),
            int(overdue),
            opt_utc(first_visit),
            opt_utc(first_obs),
            opt_utc(first_card),
        )

    def retention_months(self, months: Sequence[MonthSpan]) -> tuple[MonthCount, ...]:
        """Per Madrid month (in the order given): visits (admitted, refused), cards issued
        (by their issue instant: a card is issued at its visit's, and one whose visit the
        purge erased keeps its own), and visitors whose first visit held falls in it.
        One range read of ``visits_by_at`` per month, one of the cards, one pass over the
        visits grouped by file."""
        if not months:
            return ()
        spans = [(m.start, m.end) for m in months]

        def work(tx: _Tx) -> tuple[list[tuple[Any, ...]], tuple[Any, ...], tuple[Any, ...]]:
            visits = []
            for start, end in spans:
                found = tx.one(
                    "SELECT count(*), count(*) FILTER (WHERE verdict = 'ADMIT'), "
                    "count(*) FILTER (WHERE verdict = 'DENY') FROM visits "
                    "WHERE at >= %s AND at < %s",
                    (start, end),
                )
                assert found is not None
                visits.append(found)
            ranges = ", ".join("count(*) FILTER (WHERE t >= %s AND t < %s)" for _ in spans)
            flat = [stamp for pair in spans for stamp in pair]
            cards = tx.one(f"SELECT {ranges} FROM (SELECT issued_at AS t FROM cards) AS q", flat)
            firsts = tx.one(
                f"SELECT {ranges} FROM (SELECT min(at) AS t FROM visits GROUP BY file_number) AS q",
                flat,
            )
            assert cards is not None and firsts is not None
            return visits, cards, firsts

        visits, cards, firsts = self._store.read(work)
        return tuple(
            MonthCount(span.month, int(n), int(admitted), int(refused), int(c), int(first))
            for span, (n, admitted, refused), c, first in zip(
                months, visits, cards, firsts, strict=True
            )
        )
