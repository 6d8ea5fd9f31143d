"""``FakeStore``: a pure-Python, in-memory store with the same ports and rules as
``SqlCipherStore`` (gapless card numbers, the same purge rules, the same audit chain).

For domain and flow tests (STYLE.md rule 9). It records every call in ``calls`` and can
be scripted to fail: ``store.fail_next("record_admission", StoreError(...))``.
The contract tests in ``tests/db/test_contract.py`` run against both implementations.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from admission.errors import AdmissionError, InvalidStateError, NotFoundError
from admission.identity import IdentityKey
from admission.ports import Clock, madrid_date
from admission.records import (
    AdmissionEntry,
    AuditCheck,
    AuditEntry,
    Ban,
    CardRecord,
    CardStatus,
    Observation,
    PurgeReport,
    RecordedAdmission,
    RecordErrorCode,
    StaffMember,
    Visitor,
    VisitRecord,
)
from db import codec, names
from db.audit_chain import GENESIS, ChainRow, canonical_details, digest, verify_chain
from db.visitors import check_entry


def _utc(at: datetime) -> datetime:
    return codec.parse_ts(codec.ts(at))  # same precision and zone as the real store


class FakeStore:
    def __init__(self, clock: Clock | None = None) -> None:
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        self._failures: dict[str, list[AdmissionError]] = {}
        self._clock = clock
        self._visitors: dict[int, Visitor] = {}
        self._by_identity: dict[str, int] = {}
        self._next_file = 1
        self._visits: dict[int, VisitRecord] = {}
        self._observations: list[Observation] = []
        self._cards: dict[int, CardRecord] = {}
        self._card_events: dict[int, list[tuple[datetime, str, str, str]]] = {}
        self._next_card = 1
        self._bans: dict[int, Ban] = {}
        self._staff: dict[str, StaffMember] = {}
        self._settings: dict[str, str] = {}
        self._secrets: dict[str, bytes] = {}
        self.audit_rows: list[ChainRow] = []  # public: tests may tamper with it
        self.closed = False

    # -- scripting -------------------------------------------------------------------------

    def fail_next(self, method: str, error: AdmissionError) -> None:
        self._failures.setdefault(method, []).append(error)

    def _call(self, method: str, *args: object) -> None:
        self.calls.append((method, args))
        queue = self._failures.get(method)
        if queue:
            raise queue.pop(0)

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> FakeStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- VisitorFile -------------------------------------------------------------------------

    def find_visitor(self, identity: IdentityKey) -> Visitor | None:
        self._call("find_visitor", identity)
        number = self._by_identity.get(identity.text)
        return None if number is None else self._view(number)

    def visitor(self, file_number: int) -> Visitor | None:
        self._call("visitor", file_number)
        return self._view(file_number) if file_number in self._visitors else None

    def _view(self, number: int) -> Visitor:
        """Visit dates derived like the real store: visits, else open card, else ban."""
        visitor = self._visitors[number]
        dates = (
            [v.at for v in self._visits.values() if v.file_number == number]
            or [c.issued_at for c in self._cards.values() if c.file_number == number]
            or [b.created_at for b in self.bans(visitor.identity)]
            or [datetime(1970, 1, 1, tzinfo=UTC)]
        )
        return replace(visitor, first_seen=min(dates), last_seen=max(dates))

    def search_visitors(self, text: str, limit: int = 50) -> Sequence[Visitor]:
        self._call("search_visitors", text, limit)
        query = names.words(text)
        if not query or limit <= 0:
            return []
        found = [
            self._view(v.file_number)
            for v in self._visitors.values()
            if names.matches(query, names.words(v.surname, v.given_names))
        ]
        found.sort(key=lambda v: (names.search_name(v.surname, v.given_names), v.file_number))
        return found[:limit]

    def visits(self, file_number: int) -> Sequence[VisitRecord]:
        self._call("visits", file_number)
        return sorted(
            (v for v in self._visits.values() if v.file_number == file_number),
            key=lambda v: (v.at, v.visit_id),
        )

    def observations(self, file_number: int) -> Sequence[Observation]:
        self._call("observations", file_number)
        return sorted(
            (o for o in self._observations if o.file_number == file_number), key=lambda o: o.at
        )

    def add_observation(self, file_number: int, text: str, author: str, at: datetime) -> None:
        self._call("add_observation", file_number, text, author, at)
        if file_number not in self._visitors:
            raise NotFoundError("no such file number")
        self._observations.append(Observation(file_number, _utc(at), author, text))

    def record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        self._call("record_admission", entry)
        check_entry(entry)
        at = _utc(entry.at)
        number = self._by_identity.get(entry.identity.text)
        new = number is None
        if number is None:
            number = self._next_file
            self._next_file += 1
        previous = self._visitors.get(number)
        self._visitors[number] = Visitor(
            number,
            entry.identity,
            entry.surname,
            entry.given_names,
            entry.birth_date if entry.birth_date or previous is None else previous.birth_date,
            entry.nationality,
            at,
            at,
        )  # dates derived on read (_view)
        self._by_identity[entry.identity.text] = number
        # SQLite rowid semantics: max + 1 (only an empty table starts again at 1).
        visit_id = max(self._visits, default=0) + 1
        card_number = None
        if entry.card is not None:
            card_number = self._next_card
            self._next_card += 1
            c = entry.card
            self._cards[card_number] = CardRecord(
                card_number,
                number,
                visit_id,
                c.card_type,
                c.price_cents,
                at,
                c.valid_from,
                c.valid_until,
                CardStatus.ISSUED,
                c.exceptional,
                c.private_rooms,
                c.authorised_by,
                0,
                "",
            )
            self._card_events[card_number] = []
            if c.exceptional:
                self._audit(
                    c.authorised_by,
                    "EXCEPTIONAL_CARD",
                    f"card:{card_number}",
                    at,
                    {"file": str(number), "card_type": c.card_type},
                )
        self._visits[visit_id] = VisitRecord(
            visit_id,
            number,
            at,
            entry.desk_id,
            entry.operator,
            entry.verdict,
            tuple(entry.reasons),
            entry.document_type,
            entry.document_number,
            entry.registry,
            card_number,
            entry.official_capacity,
        )
        return RecordedAdmission(number, visit_id, card_number, new)

    # -- CardBook -----------------------------------------------------------------------

    def card(self, number: int) -> CardRecord | None:
        self._call("card", number)
        return self._cards.get(number)

    def card_events(self, number: int) -> list[tuple[datetime, str, str, str]]:
        return list(self._card_events.get(number, []))

    def last_card_number(self) -> int:
        return self._next_card - 1

    def _live_card(self, number: int) -> CardRecord:
        card = self._cards.get(number)
        if card is None:
            raise NotFoundError("no such card number")
        if card.status is CardStatus.VOIDED:
            raise InvalidStateError("the card is voided", code=RecordErrorCode.CARD_VOIDED)
        return card

    def mark_printed(self, number: int, at: datetime) -> None:
        self._call("mark_printed", number, at)
        card = self._live_card(number)
        self._cards[number] = replace(
            card, status=CardStatus.PRINTED, print_count=card.print_count + 1
        )
        self._card_events[number].append((_utc(at), "PRINTED", "", ""))

    def void_card(self, number: int, reason: str, actor: str, at: datetime) -> None:
        self._call("void_card", number, reason, actor, at)
        _require_reason(reason)
        card = self._live_card(number)
        self._cards[number] = replace(card, status=CardStatus.VOIDED, void_reason=reason)
        self._card_events[number].append((_utc(at), "VOIDED", reason, actor))
        self._audit(actor, "CARD_VOID", f"card:{number}", at)

    def record_reprint(self, number: int, reason: str, actor: str, at: datetime) -> None:
        self._call("record_reprint", number, reason, actor, at)
        _require_reason(reason)
        self._live_card(number)
        self._card_events[number].append((_utc(at), "REPRINT", reason, actor))
        self._audit(actor, "CARD_REPRINT", f"card:{number}", at)

    # -- BanList, StaffList ---------------------------------------------------------------

    def bans(self, identity: IdentityKey) -> Sequence[Ban]:
        return [b for b in self._bans.values() if b.identity == identity]

    def active_bans(self, identity: IdentityKey, at: datetime) -> Sequence[Ban]:
        self._call("active_bans", identity, at)
        return [b for b in self.bans(identity) if b.active_at(at)]

    def add_ban(
        self,
        identity: IdentityKey,
        reason: str,
        decided_by: str,
        at: datetime,
        expires_at: datetime | None = None,
    ) -> Ban:
        self._call("add_ban", identity, reason, decided_by, at, expires_at)
        if not reason.strip():
            raise InvalidStateError(
                "a ban needs a reason (art. 21.3)", code=RecordErrorCode.REASON_REQUIRED
            )
        if expires_at is not None and expires_at <= at:
            raise InvalidStateError(
                "a ban must expire after it starts", code=RecordErrorCode.BAD_EXPIRY
            )
        ban = Ban(
            max(self._bans, default=0) + 1,
            identity,
            reason,
            decided_by,
            _utc(at),
            None if expires_at is None else _utc(expires_at),
        )
        self._bans[ban.ban_id] = ban
        self._audit(
            decided_by,
            "BAN_ADD",
            f"ban:{ban.ban_id}",
            at,
            {"identity": self.keyed_hash(identity.text)},
        )
        return ban

    def lift_ban(self, ban_id: int, reason: str, actor: str, at: datetime) -> None:
        self._call("lift_ban", ban_id, reason, actor, at)
        if not reason.strip():
            raise InvalidStateError(
                "lifting a ban needs a reason", code=RecordErrorCode.REASON_REQUIRED
            )
        ban = self._bans.get(ban_id)
        if ban is None:
            raise NotFoundError("no such ban")
        if ban.lifted_at is not None:
            raise InvalidStateError("the ban is already lifted", code=RecordErrorCode.BAN_LIFTED)
        self._bans[ban_id] = replace(ban, lifted_at=_utc(at), lift_reason=reason)
        self._audit(actor, "BAN_LIFT", f"ban:{ban_id}", at)

    def staff_member(self, identity: IdentityKey) -> StaffMember | None:
        self._call("staff_member", identity)
        return self._staff.get(identity.text)

    def add_staff(self, member: StaffMember, actor: str, at: datetime) -> None:
        self._call("add_staff", member, actor, at)
        self._staff[member.identity.text] = member
        self._audit(
            actor,
            "STAFF_SET",
            self.keyed_hash(member.identity.text),
            at,
            {"role": member.role.value, "active": str(int(member.active))},
        )

    # -- AuditTrail, settings ---------------------------------------------------------------

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:
        self._call("append", actor, action, subject, at, details)
        return self._audit(actor, action, subject, at, details)

    def _audit(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:
        seq = len(self.audit_rows) + 1
        prev = self.audit_rows[-1].digest if self.audit_rows else GENESIS
        stamp, text = codec.ts(at), canonical_details(details)
        self.audit_rows.append(
            ChainRow(
                seq,
                stamp,
                actor,
                action,
                subject,
                text,
                prev,
                digest(prev, seq, stamp, actor, action, subject, text),
            )
        )
        return seq

    def verify(self) -> AuditCheck:
        self._call("verify")
        return verify_chain(self.audit_rows)

    def audit_entries(self, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]:
        import json

        return [
            AuditEntry(
                r.seq,
                codec.parse_ts(r.at),
                r.actor,
                r.action,
                r.subject,
                json.loads(r.details),
                r.digest,
            )
            for r in self.audit_rows
            if r.seq > since_seq
        ][:limit]

    def secret(self, name: str) -> bytes:
        return self._secrets.setdefault(name, os.urandom(32))

    def keyed_hash(self, text: str) -> str:
        mac = hmac.new(self.secret("audit_subject"), text.encode("utf-8"), hashlib.sha256)
        return "hmac:" + mac.hexdigest()[:16]

    def get_setting(self, key: str) -> str | None:
        return self._settings.get(key)

    def set_setting(self, key: str, value: str) -> None:
        self._settings[key] = value

    # -- Retention (same rules as db/retention.py) --------------------------------------------

    def purge(self, cutoff: datetime) -> PurgeReport:
        self._call("purge", cutoff)
        cut, cut_day = _utc(cutoff), madrid_date(cutoff)

        def ended(card: CardRecord) -> bool:
            return card.status is CardStatus.VOIDED or card.valid_until < cut_day

        old = {vid for vid, v in self._visits.items() if v.at < cut}
        cards = 0
        for number, card in list(self._cards.items()):
            if card.visit_id in old or card.visit_id == 0:
                if ended(card):
                    del self._cards[number]
                    self._card_events.pop(number, None)
                    cards += 1
                else:
                    self._cards[number] = replace(card, visit_id=0)
        for vid in old:
            del self._visits[vid]
        kept_obs = [o for o in self._observations if o.at >= cut]
        observations = len(self._observations) - len(kept_obs)
        self._observations = kept_obs
        visitors = 0
        for number, visitor in list(self._visitors.items()):
            if any(v.file_number == number for v in self._visits.values()):
                continue
            if any(c.file_number == number and not ended(c) for c in self._cards.values()):
                continue
            if any(_in_force(b, cut) for b in self.bans(visitor.identity)):
                continue
            for card_number in [n for n, c in self._cards.items() if c.file_number == number]:
                del self._cards[card_number]
                cards += 1
            before = len(self._observations)
            self._observations = [o for o in self._observations if o.file_number != number]
            observations += before - len(self._observations)
            del self._visitors[number]
            del self._by_identity[visitor.identity.text]
            visitors += 1
        ended_bans = [i for i, b in self._bans.items() if not _in_force(b, cut)]
        for ban_id in ended_bans:
            del self._bans[ban_id]
        report = PurgeReport(cutoff, len(old), visitors, observations, cards)
        now = self._clock.now() if self._clock else datetime.now(UTC)
        self._audit(
            "retention",
            "PURGE",
            "visitor-file",
            now,
            {
                "cutoff": codec.ts(cutoff),
                "bans": str(len(ended_bans)),
                "visits": str(report.visits),
                "visitors": str(visitors),
                "observations": str(observations),
                "cards": str(cards),
            },
        )
        return report


def _in_force(ban: Ban, cut: datetime) -> bool:
    return (ban.lifted_at is None or ban.lifted_at >= cut) and (
        ban.expires_at is None or ban.expires_at >= cut
    )


def _require_reason(reason: str) -> None:
    if not reason.strip():
        raise InvalidStateError("a reason is required", code=RecordErrorCode.REASON_REQUIRED)
