"""The fake store's audit chain: the same keyed entries, commitments and checks as the
SQLCipher store's (db/audit.py), over lists and dicts (STYLE.md rule 9)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

from admission.records import AuditAnchor, AuditCheck, AuditEntry, AuditHead
from db import codec
from db.audit_chain import (
    ERASED,
    GENESIS,
    KINDS,
    ChainRow,
    CoveredRow,
    canonical_details,
    canonical_refs,
    check_rows,
    entry_mac,
    kind_of,
    parse_refs,
    row_mac,
    walk_chain,
)
from db.audit_key import AuditKey

RowContent = Callable[[str], list[object] | None]  # ref -> content, None when absent


class FakeChain:
    def __init__(self, key: AuditKey, content: RowContent) -> None:
        self.key = key
        self.rows: list[ChainRow] = []  # public: tests may tamper with them
        self.pointers: dict[str, int] = {}  # ref -> newest committing seq (audit_refs)
        self._content = content

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: Mapping[str, str] | None = None,
        rows: Sequence[tuple[str, bool]] = (),
    ) -> int:
        commits: dict[str, tuple[str, bool]] = {}
        for ref, created in rows:
            content = self._content(ref)
            assert content is not None, ref
            commits[ref] = (row_mac(self.key, ref, content), created)
        seq = len(self.rows) + 1
        prev = self.rows[-1].digest if self.rows else GENESIS
        stamp, text = codec.ts(at), canonical_details(details)
        refs = canonical_refs(commits)
        mac = entry_mac(self.key, prev, seq, stamp, actor, action, subject, text, refs)
        self.rows.append(ChainRow(seq, stamp, actor, action, subject, text, prev, mac, refs))
        self.pointers.update({ref: seq for ref in commits})
        return seq

    def erased(self, at: datetime, erased: Iterable[str], changed: Iterable[str]) -> None:
        """The ``ERASED`` entry of the real store's transactions that erase rows."""
        gone, touched = sorted(set(erased)), sorted(set(changed) - set(erased))
        if not gone and not touched:
            return
        details: dict[str, str] = {}
        for kind in KINDS:
            refs = [r for r in gone if kind_of(r) == kind]
            if refs:
                details[kind] = str(len(refs))
            if refs and kind != "staff":
                ids = sorted(int(r.split(":", 1)[1]) for r in refs)
                details[f"{kind}_first"], details[f"{kind}_last"] = str(ids[0]), str(ids[-1])
        for ref in gone:
            self.pointers.pop(ref, None)
        self.append("retention", ERASED, "visitor-file", at, details, [(r, False) for r in touched])

    def head(self) -> AuditHead:
        if not self.rows:
            return AuditHead(0, GENESIS, None)
        last = self.rows[-1]
        return AuditHead(last.seq, last.digest, codec.parse_ts(last.at))

    def verify(
        self,
        present: Iterable[tuple[str, list[object]]],
        anchors: Sequence[AuditAnchor],
        counters: Mapping[str, int] | None = None,
        settings: Mapping[str, str] | None = None,
    ) -> AuditCheck:
        walk = walk_chain(
            self.rows,
            self.key,
            anchors=anchors,
            pointers=self.pointers,
            counters=counters,
            settings=settings,
        )
        if not walk.check.ok:
            return walk.check
        by_seq = {row.seq: row.refs for row in self.rows}
        covered = (
            CoveredRow(ref, content, self.pointers.get(ref), by_seq.get(self.pointers.get(ref, 0)))
            for ref, content in present
        )
        return check_rows(self.key, covered, walk, Counter())

    def entries(self, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]:
        return [
            AuditEntry(
                r.seq,
                codec.parse_ts(r.at),
                r.actor,
                r.action,
                r.subject,
                json.loads(r.details),
                r.digest,
                {ref: mac for ref, (mac, _) in parse_refs(r.refs).items()},
            )
            for r in self.rows
            if r.seq > since_seq
        ][:limit]
