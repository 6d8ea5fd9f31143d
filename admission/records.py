"""Records of the visitor file (fichero de visitantes, art. 20.3) as plain values.

All datetimes are timezone-aware UTC; dates are Madrid calendar dates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum, unique

from admission.codes import Code
from admission.errors import InvalidStateError
from admission.identity import IdentityKey


@unique
class RecordErrorCode(Code):
    """What the visitor file refuses to record (both stores enforce these rules)."""

    # Voids, reprints, bans, lifted bans and cancelled vouchers keep a written reason.
    REASON_REQUIRED = "REASON_REQUIRED"
    REASON_TOO_LONG = "REASON_TOO_LONG"  # over 500 characters
    CARD_VOIDED = "CARD_VOIDED"  # a voided card is never printed or changed again
    CARD_VISITOR_MISMATCH = "CARD_VISITOR_MISMATCH"  # the card belongs to another file
    CARD_ON_DENY = "CARD_ON_DENY"  # a refused visitor gets no card
    OFFICIAL_NO_CARD = "OFFICIAL_NO_CARD"  # officials on duty get no card (art. 24, R13)
    AUTHORISATION_REQUIRED = "AUTHORISATION_REQUIRED"  # exceptional card (art. 23.5, R12)
    BAD_VALIDITY = "BAD_VALIDITY"  # the card's validity ends before it starts
    BAN_LIFTED = "BAN_LIFTED"  # the internal ban was already lifted (art. 21.2-3)
    BAD_EXPIRY = "BAD_EXPIRY"  # a ban that expires before it starts


class CardStatus(StrEnum):
    ISSUED = "ISSUED"  # numbered and recorded, not (yet) printed
    PRINTED = "PRINTED"
    VOIDED = "VOIDED"  # kept with its reason, never deleted


class StaffRole(StrEnum):
    """Casino staff may not play (art. 18, R15); directors authorise exceptions."""

    STAFF = "STAFF"
    DIRECTOR = "DIRECTOR"


@dataclass(frozen=True, slots=True)
class Visitor:
    """A person in the visitor file; ``file_number`` is the ficha personal (art. 22.3)."""

    file_number: int
    identity: IdentityKey
    surname: str
    given_names: str
    birth_date: date | None
    nationality: str
    first_seen: datetime
    last_seen: datetime


@dataclass(frozen=True, slots=True)
class RegistryCheck:
    """What the RIAJ check used, recorded on the visit (not the register's contents)."""

    status: str  # LISTED / NOT_LISTED / UNVERIFIABLE
    source: str  # ONLINE / REPLICA / NONE
    version: str  # snapshot version or online transaction id, "" when none
    age_seconds: int | None  # replica age at the time of the check


@dataclass(frozen=True, slots=True)
class NewCard:
    """A card about to be issued: the number is assigned by the store."""

    card_type: str
    price_cents: int
    valid_from: date
    valid_until: date
    exceptional: bool = False  # art. 23.5 / R12, needs ``authorised_by``
    private_rooms: bool = False  # invitation to private rooms (R16)
    authorised_by: str = ""


@dataclass(frozen=True, slots=True)
class AdmissionEntry:
    """Everything recorded for one attempt at the desk, in one transaction."""

    identity: IdentityKey
    surname: str
    given_names: str
    birth_date: date | None
    nationality: str
    document_type: str
    document_number: str  # number of the document presented (R2)
    at: datetime
    desk_id: str
    operator: str
    verdict: str
    reasons: tuple[str, ...]
    registry: RegistryCheck
    card: NewCard | None = None  # None when refused, or for officials (R13)
    official_capacity: str = ""  # R13: capacity of an official on duty; no card, no charge
    # art. 22: one person, one valid card. Card types whose holder is admitted again on
    # the same card while it is valid (a multi-day pass); with any other open card the
    # visit is a re-entry on it (ALREADY_ADMITTED), never a second card.
    reentry_types: frozenset[str] = frozenset()
    # The Madrid day the session running at ``at`` opened (before ``at``'s own date
    # after midnight): a card valid on any day from it to ``at``'s date is held.
    session_day: date | None = None
    # Made by the desk before its first attempt and kept until the outcome is known: a
    # store that can lose a commit's answer (a server) records an admission under its id
    # once, whatever the number of attempts ("" = no id: the desk's own file).
    admission_id: str = ""


@dataclass(frozen=True, slots=True)
class RecordedAdmission:
    file_number: int
    visit_id: int
    card_number: int | None
    new_visitor: bool
    # The card the visitor already held, valid at the visit (art. 22): no second card
    # was issued; the visit was a re-entry on it (ALREADY_ADMITTED) or, for a card type
    # that admits its holder again, recorded as admitted on that card.
    existing_card: int | None = None
    # the card issued by this admission as recorded (None: none, or not told): the desk
    # prints it without reading it back; not part of what the admission is
    card: CardRecord | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class VisitRecord:
    visit_id: int
    file_number: int
    at: datetime
    desk_id: str
    operator: str
    verdict: str
    reasons: tuple[str, ...]
    document_type: str
    document_number: str
    registry: RegistryCheck
    card_number: int | None
    official_capacity: str


@dataclass(frozen=True, slots=True)
class CardRecord:
    number: int
    file_number: int
    visit_id: int
    card_type: str
    price_cents: int
    issued_at: datetime
    valid_from: date
    valid_until: date
    status: CardStatus
    exceptional: bool
    private_rooms: bool
    authorised_by: str
    print_count: int
    void_reason: str


@dataclass(frozen=True, slots=True)
class Ban:
    """Internal ban (art. 21.2-3, R5): dated, reasoned, optional expiry."""

    ban_id: int
    identity: IdentityKey
    reason: str
    decided_by: str
    created_at: datetime
    expires_at: datetime | None
    lifted_at: datetime | None = None
    lift_reason: str = ""

    def active_at(self, at: datetime) -> bool:
        if self.lifted_at is not None and self.lifted_at <= at:
            return False
        return self.created_at <= at and (self.expires_at is None or at < self.expires_at)


def check_new_ban(reason: str, at: datetime, expires_at: datetime | None) -> None:
    """A ban is reasoned (art. 21.3) and, when it expires, expires after it starts: every
    store checks this before it writes one."""
    if not reason.strip():
        raise InvalidStateError(
            "a ban needs a reason (art. 21.3)", code=RecordErrorCode.REASON_REQUIRED
        )
    if expires_at is not None and expires_at <= at:
        raise InvalidStateError(
            "a ban must expire after it starts", code=RecordErrorCode.BAD_EXPIRY
        )


@dataclass(frozen=True, slots=True)
class StaffMember:
    identity: IdentityKey
    name: str
    role: StaffRole
    active: bool = True


@dataclass(frozen=True, slots=True)
class Observation:
    file_number: int
    at: datetime
    author: str
    text: str
    observation_id: int = 0  # the store's id (rectification names it: GDPR art. 16)


@dataclass(frozen=True, slots=True)
class PurgeReport:
    cutoff: datetime
    visits: int
    visitors: int
    observations: int
    cards: int
    # The numbers of the cards erased: exactly their PDFs go with them (art. 20.4).
    purged_cards: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class AuditEntry:
    seq: int
    at: datetime
    actor: str
    action: str  # e.g. ADMISSION, INSPECTOR_QUERY, CARD_VOID, OVERRIDE, PURGE
    subject: str  # file number / card number / query — never a name in clear outside the DB
    details: dict[str, str] = field(default_factory=dict)
    digest: str = ""
    # What the entry commits to: "card:17" -> keyed digest of that row as written in the
    # same transaction (db/audit_chain.py); numbers and digests only, never a name.
    commits: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AuditCheck:
    ok: bool
    entries: int
    first_bad_seq: int | None
    problem: str  # "" or a db.audit_chain.AuditChainCode: DIGEST_MISMATCH, CHAIN_BROKEN, ...
    rows: int = 0  # visits, cards, bans... present in the file and checked against the chain
    anchors: int = 0  # heads printed outside the file (AuditAnchor) found in the chain
    row: str = ""  # the first row found wrong ("card:17") or the kind of row missing


@dataclass(frozen=True, slots=True)
class AuditHead:
    """The newest entry of the audit chain, to be kept outside the file (printed on the
    daily visitor book): a later rewrite of anything up to it changes its digest."""

    seq: int  # 0 for an empty chain
    digest: str
    at: datetime | None


@dataclass(frozen=True, slots=True)
class AuditAnchor:
    """A head kept outside the file: entry ``seq`` must still have ``digest``."""

    seq: int
    digest: str


@dataclass(frozen=True, slots=True)
class IntegrityReport:
    """The result of a full check of the visitor file (art. 20.4: a legal record): the
    pages checked and the damaged ones.

    ``bad_pages`` are page numbers (1 = the first 4096 bytes); 0 stands for a complaint
    about the file as a whole (its size). ``structure`` holds the English complaints of
    the structure check when it ran too (never personal data: page and tree numbers only).
    """

    pages: int
    bad_pages: tuple[int, ...] = ()
    structure: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.bad_pages and not self.structure
