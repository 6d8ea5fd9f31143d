"""``FakeStore``: a pure-Python, in-memory store with the same ports and rules as
``SqlCipherStore`` (gapless card numbers, one valid card per person, the same purge
rules, the same keyed audit chain committing to the same rows: db/fake_chain.py).

For domain and flow tests (STYLE.md rule 9). It records every call in ``calls`` and can
be scripted to fail: ``store.fail_next("record_admission", StoreError(...))``.
The contract tests in ``tests/db/test_contract.py`` run against both implementations.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime

from admission.errors import AdmissionError, InvalidStateError, NotFoundError
from admission.identity import IdentityKey
from admission.ports import Clock, madrid_date
from admission.records import (
    AdmissionEntry,
    AuditAnchor,
    AuditCheck,
    AuditEntry,
    AuditHead,
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
    check_new_ban,
)
from db import codec, names
from db.audit_chain import (
    KINDS,
    ChainRow,
    ban_content,
    card_content,
    observation_content,
    staff_content,
    visit_content,
    visit_entry,
    visitor_content,
)
from db.audit_key import AuditKey
from db.fake_chain import FakeChain
from db.fake_data_protection import FakeDataProtectionMixin
from db.fake_reports import FakeReportsMixin
from db.visitors import check_entry, second_card


def _utc(at: datetime) -> datetime:
    return codec.parse_ts(codec.ts(at))  # same precision and zone as the real store


class FakeStore(FakeReportsMixin, FakeDataProtectionMixin):
    def __init__(self, clock: Clock | None = None, audit_key: AuditKey | None = None) -> None:
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        self._failures: dict[str, list[AdmissionError]] = {}
        self._clock = clock
        self._visitors: dict[int, Visitor] = {}
        self._by_identity: dict[str, int] = {}
        self._next_file = 1
        self._visits: dict[int, VisitRecord] = {}
        self._observations: dict[int, Observation] = {}
        self._cards: dict[int, CardRecord] = {}
        self._card_events: dict[int, list[tuple[datetime, str, str, str]]] = {}
        self._next_card = 1
        self._bans: dict[int, Ban] = {}
        self._staff: dict[str, StaffMember] = {}
        self._settings: dict[str, str] = {}
        self._secrets: dict[str, bytes] = {}
        self.chain = FakeChain(audit_key or AuditKey.generate("fake"), self._row_content)
        self.closed = False
        # as the server: an admission id is recorded once (db/pg/store.py)
        self._admissions: dict[str, RecordedAdmission] = {}
        self._lost_answers: list[AdmissionError] = []

    @property
    def audit_key_source(self) -> str:
        return self.chain.key.source

    @property
    def audit_rows(self) -> list[ChainRow]:
        """The chain's entries (public: tests may tamper with them)."""
        return self.chain.rows

    # -- scripting -------------------------------------------------------------------------

    def fail_next(self, method: str, error: AdmissionError) -> None:
        self._failures.setdefault(method, []).append(error)

    def lose_next_answer(self, error: AdmissionError) -> None:
        """The next admission is recorded, then ``error`` is raised instead of its answer
        (a server's link cut while it committed: ``error.outcome_unknown``)."""
        self._lost_answers.append(error)

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
            (o for o in self._observations.values() if o.file_number == file_number),
            key=lambda o: (o.at, o.observation_id),
        )

    def add_observation(
        self, file_number: int, text: str, author: str, at: datetime
    ) -> Observation:
        self._call("add_observation", file_number, text, author, at)
        if file_number not in self._visitors:
            raise NotFoundError("no such file number")
        observation_id = max(self._observations, default=0) + 1
        self._observations[observation_id] = Observation(
            file_number, _utc(at), author, text, observation_id
        )
        self.chain.append(
            author,
            "OBSERVATION",
            f"file:{file_number}",
            at,
            rows=[(f"observation:{observation_id}", True)],
        )
        return self._observations[observation_id]

    def record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        self._call("record_admission", entry)
        check_entry(entry)
        done = self._admissions.get(entry.admission_id) if entry.admission_id else None
        if done is not None:
            return done
        recorded = self._record_admission(entry)
        if entry.admission_id:
            self._admissions[entry.admission_id] = recorded
        if self._lost_answers:
            raise self._lost_answers.pop(0)
        return recorded

    def _record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        at = _utc(entry.at)
        existing = None
        if entry.card is not None:
            held = self.open_card(entry.identity, madrid_date(entry.at), entry.session_day)
            if held is not None:  # art. 22: one person, one valid card
                existing = held.number
                entry = second_card(entry, held.card_type)
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
                self.chain.append(
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
        details, rows = visit_entry(number, visit_id, entry.verdict, card_number, existing, new)
        self.chain.append(entry.operator, "VISIT", f"file:{number}", entry.at, details, rows)
        return RecordedAdmission(number, visit_id, card_number, new, existing)

    # -- CardBook -----------------------------------------------------------------------

    def card(self, number: int) -> CardRecord | None:
        self._call("card", number)
        return self._cards.get(number)

    def open_card(
        self, identity: IdentityKey, on: date, since: date | None = None
    ) -> CardRecord | None:
        """The newest card of this identity, not voided, valid on a day from ``since``
        (the session's first day) to Madrid date ``on``."""
        self._call("open_card", identity, on, since)
        file_number = self._by_identity.get(identity.text)
        first = min(since or on, on)
        valid = [
            c
            for c in self._cards.values()
            if c.file_number == file_number
            and c.status is not CardStatus.VOIDED
            and c.valid_from <= on
            and c.valid_until >= first
        ]
        return max(valid, key=lambda c: c.number, default=None)

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
        self.chain.append("card-printer", "CARD_PRINTED", f"card:{number}", at, None, _card(number))

    def void_card(self, number: int, reason: str, actor: str, at: datetime) -> None:
        self._call("void_card", number, reason, actor, at)
        _require_reason(reason)
        card = self._live_card(number)
        self._cards[number] = replace(card, status=CardStatus.VOIDED, void_reason=reason)
        self._card_events[number].append((_utc(at), "VOIDED", reason, actor))
        self.chain.append(actor, "CARD_VOID", f"card:{number}", at, None, _card(number))

    def record_reprint(self, number: int, reason: str, actor: str, at: datetime) -> None:
        self._call("record_reprint", number, reason, actor, at)
        _require_reason(reason)
        self._live_card(number)
        self._card_events[number].append((_utc(at), "REPRINT", reason, actor))
        self.chain.append(actor, "CARD_REPRINT", f"card:{number}", at, None, _card(number))

    # -- BanList, StaffList ---------------------------------------------------------------

    def bans(self, identity: IdentityKey) -> Sequence[Ban]:
        return [b for b in self._bans.values() if b.identity == identity]

    def bans_in_force(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        bans = sorted(self._bans.values(), key=lambda b: b.ban_id, reverse=True)
        return [b for b in bans if b.active_at(at)][:limit]

    def bans_ended(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        bans = sorted(self._bans.values(), key=lambda b: b.ban_id, reverse=True)
        return [b for b in bans if _ended(b, at)][:limit]

    def staff_members(self, limit: int = 500) -> Sequence[StaffMember]:
        members = sorted(self._staff.values(), key=lambda m: (m.name, m.identity.text))
        return members[:limit]

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
        check_new_ban(reason, at, expires_at)
        ban = Ban(
            max(self._bans, default=0) + 1,
            identity,
            reason,
            decided_by,
            _utc(at),
            None if expires_at is None else _utc(expires_at),
        )
        self._bans[ban.ban_id] = ban
        self.chain.append(
            decided_by,
            "BAN_ADD",
            f"ban:{ban.ban_id}",
            at,
            {"identity": self.keyed_hash(identity.text)},
            [(f"ban:{ban.ban_id}", True)],
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
        self.chain.append(actor, "BAN_LIFT", f"ban:{ban_id}", at, None, [(f"ban:{ban_id}", False)])

    def staff_member(self, identity: IdentityKey) -> StaffMember | None:
        self._call("staff_member", identity)
        return self._staff.get(identity.text)

    def add_staff(self, member: StaffMember, actor: str, at: datetime) -> None:
        self._call("add_staff", member, actor, at)
        created = member.identity.text not in self._staff
        self._staff[member.identity.text] = member
        subject = self.keyed_hash(member.identity.text)
        self.chain.append(
            actor,
            "STAFF_SET",
            subject,
            at,
            {"role": member.role.value, "active": str(int(member.active))},
            [(f"staff:{subject}", created)],
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
        return self.chain.append(actor, action, subject, at, details)

    def verify(
        self, anchors: Sequence[AuditAnchor] = (), *, settings: Mapping[str, str] | None = None
    ) -> AuditCheck:
        self._call("verify")
        counters = {"card": self._next_card}  # the chain knows the numbers (art. 22.1)
        return self.chain.verify(self._present_rows(), anchors, counters, settings)

    def head(self) -> AuditHead:
        return self.chain.head()

    def audit_entries(self, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]:
        return self.chain.entries(since_seq, limit)

    # -- the rows the chain commits to (the same content as db/audit.py's readers) -----------

    def _row_content(self, ref: str) -> list[object] | None:
        for found, content in self._rows_of(ref.split(":", 1)[0]):
            if found == ref:
                return content
        return None

    def _present_rows(self) -> Iterator[tuple[str, list[object]]]:
        for kind in KINDS:
            yield from self._rows_of(kind)

    def _rows_of(self, kind: str) -> Iterator[tuple[str, list[object]]]:
        if kind == "visitor":
            for n, v in sorted(self._visitors.items()):
                birth = None if v.birth_date is None else codec.day(v.birth_date)
                content = visitor_content(
                    v.identity.text, v.surname, v.given_names, birth, v.nationality
                )
                yield f"visitor:{n}", content
        elif kind == "visit":
            for n, visit in sorted(self._visits.items()):
                yield f"visit:{n}", visit_content(visit)
        elif kind == "card":
            for n, card in sorted(self._cards.items()):
                yield f"card:{n}", card_content(card, self._card_events.get(n, []))
        elif kind == "ban":
            for n, ban in sorted(self._bans.items()):
                yield f"ban:{n}", ban_content(ban)
        elif kind == "staff":
            for m in self._staff.values():
                yield "staff:" + self.keyed_hash(m.identity.text), staff_content(m)
        elif kind == "observation":
            for n, o in sorted(self._observations.items()):
                yield f"observation:{n}", observation_content(o)

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

    def newest_event(self) -> datetime | None:
        """The latest instant recorded: a visit, a card event or an audit entry."""
        head = self.chain.head()
        stamps = [v.at for v in self._visits.values()]
        stamps += [event[0] for events in self._card_events.values() for event in events]
        if head.seq:
            stamps.append(self.chain.entries(head.seq - 1, 1)[0].at)
        return max(stamps, default=None)

    def purge(self, cutoff: datetime) -> PurgeReport:
        self._call("purge", cutoff)
        cut, cut_day = _utc(cutoff), madrid_date(cutoff)

        def ended(card: CardRecord) -> bool:
            return card.status is CardStatus.VOIDED or card.valid_until < cut_day

        erased: list[str] = []  # refs, for the ERASED entry (db/audit.py)
        unlinked: list[str] = []
        purged: list[int] = []
        old = {vid for vid, v in self._visits.items() if v.at < cut}
        for number, card in list(self._cards.items()):
            if card.visit_id in old or card.visit_id == 0:
                if ended(card):
                    self._drop_card(number)
                    purged.append(number)
                elif card.visit_id != 0:
                    self._cards[number] = replace(card, visit_id=0)
                    unlinked.append(f"card:{number}")
        for vid in old:
            del self._visits[vid]
        erased += [f"visit:{vid}" for vid in old]
        gone_obs = [n for n, o in self._observations.items() if o.at < cut]
        visitors = 0
        for number, visitor in list(self._visitors.items()):
            if any(v.file_number == number for v in self._visits.values()):
                continue
            if any(c.file_number == number and not ended(c) for c in self._cards.values()):
                continue
            if any(_in_force(b, cut) for b in self.bans(visitor.identity)):
                continue
            for card_number in [n for n, c in self._cards.items() if c.file_number == number]:
                self._drop_card(card_number)
                purged.append(card_number)
            gone_obs += [n for n, o in self._observations.items() if o.file_number == number]
            del self._visitors[number]
            del self._by_identity[visitor.identity.text]
            erased.append(f"visitor:{number}")
            visitors += 1
        for n in set(gone_obs):
            del self._observations[n]
        ended_bans = [i for i, b in self._bans.items() if not _in_force(b, cut)]
        for ban_id in ended_bans:
            del self._bans[ban_id]
        erased += [f"card:{n}" for n in purged] + [f"ban:{i}" for i in ended_bans]
        erased += [f"observation:{n}" for n in set(gone_obs)]
        report = PurgeReport(
            cutoff,
            len(old),
            visitors,
            len(set(gone_obs)),
            len(purged),
            purged_cards=tuple(sorted(purged)),
        )
        now = self._clock.now() if self._clock else datetime.now(UTC)
        self.chain.erased(now, erased, unlinked)
        self.chain.append(
            "retention",
            "PURGE",
            "visitor-file",
            now,
            {
                "cutoff": codec.ts(cutoff),
                "bans": str(len(ended_bans)),
                "visits": str(report.visits),
                "visitors": str(visitors),
                "observations": str(report.observations),
                "cards": str(report.cards),
            },
        )
        return report

    def _drop_card(self, number: int) -> None:
        del self._cards[number]
        self._card_events.pop(number, None)


def _in_force(ban: Ban, cut: datetime) -> bool:
    return (ban.lifted_at is None or ban.lifted_at >= cut) and (
        ban.expires_at is None or ban.expires_at >= cut
    )


def _require_reason(reason: str) -> None:
    if not reason.strip():
        raise InvalidStateError("a reason is required", code=RecordErrorCode.REASON_REQUIRED)


def _card(number: int) -> list[tuple[str, bool]]:
    return [(f"card:{number}", False)]


def _ended(ban: Ban, at: datetime) -> bool:
    """Lifted or expired by ``at`` (``PeopleListings.bans_ended``)."""
    lifted = ban.lifted_at is not None and ban.lifted_at <= at
    expired = ban.expires_at is not None and ban.expires_at <= at
    return (lifted or expired) and not ban.active_at(at)
