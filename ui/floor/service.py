"""The floor service's rules, without HTTP and without Qt: who may check a card on the
gaming floor, how often, what the answer shows and what the audit trail keeps (art.
22.4: staff and inspectors may ask for the entry card at any time, wherever the
visitor is).

* Sign-in: username and PIN of an account with the FLOOR, INSPECTOR or DIRECTOR role
  (:meth:`admission.accounts.AccountService.sign_in_with_pin`: wrong PINs count
  towards the account's lockout). A session is a random 32-byte token, kept here in
  memory only (a restart signs everybody out): 12 hours at most, 30 minutes idle.
* Device tokens (:mod:`ui.floor.tokens`) check cards under ``token:NAME``.
* Rate limits (token buckets, :mod:`ui.floor.limits`) per client address, per session
  or token, and for sign-ins per address; 429 with ``Retry-After``.
* Each check is :func:`admission.cards.verification.verify_card`, recorded in the
  file's audit chain (``CARD_CHECK``) with ``channel`` ``floor`` / ``floor-token`` /
  ``floor-offline``, the ``place`` and ``role: inspector`` for an inspector's.
* The answer carries the holder's name only for a card of this file (VALID,
  NOT_YET_VALID, EXPIRED, VOID), never the document number (no personal data beyond
  what the floor needs).

Every method answers a :class:`Reply` (status, JSON body, headers); the HTTP module
(:mod:`ui.floor.http`) only maps requests to these calls and runs them off its loop.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from admission.accounts import AccountError, AccountErrorCode, AccountService, Operator, Role
from admission.cards.code import CardCodeError
from admission.cards.signed import CardKeyRing, CardPublicKeys, decode_signed_code
from admission.cards.verification import (
    CardCheckStatus,
    CardVerification,
    VerificationStore,
    verify_card,
)
from admission.errors import AdmissionError
from admission.ports import AuditTrail, Clock
from admission.records import AuditAnchor, AuditCheck, AuditHead
from ui.floor.limits import Buckets, Rate, retry_after
from ui.floor.tokens import DeviceTokens, TokenStore

__all__ = [
    "ANSWERS",
    "FLOOR_ROLES",
    "FloorService",
    "FloorStore",
    "Principal",
    "Reply",
    "error",
]

log = logging.getLogger(__name__)

FLOOR_ROLES = (Role.FLOOR, Role.INSPECTOR, Role.DIRECTOR)
SESSION_MAX = timedelta(hours=12)
SESSION_IDLE = timedelta(minutes=30)
MAX_SESSIONS = 2000
MAX_CODE = 256  # longer text is no card code: answered NOT_A_CARD without parsing
MAX_PLACE = 40
MAX_OFFLINE = 200
CARD_CODE_SECRET = "card_code"
KEYS_FOR = 5.0  # seconds the public keys are kept before they are read again
VOIDS_FORMAT = "adm-voids-1"
CHECK_RATE = Rate(10.0, 30)  # per client address and per session or token
SIGN_IN_RATE = Rate(5 / 60, 5)  # per client address

ANSWERS: dict[CardCheckStatus, str] = {
    CardCheckStatus.VALID: "VALID",
    CardCheckStatus.NOT_YET_VALID: "NOT_YET_VALID",
    CardCheckStatus.EXPIRED: "EXPIRED",
    CardCheckStatus.VOIDED: "VOID",
    CardCheckStatus.UNKNOWN_NUMBER: "UNKNOWN",
    CardCheckStatus.OTHER_CASINO: "NOT_THIS_CASINO",
    CardCheckStatus.CODE_TAMPERED: "FORGED",
    CardCheckStatus.CODE_MALFORMED: "NOT_A_CARD",
}
NAMED = {"VALID", "NOT_YET_VALID", "EXPIRED", "VOID"}  # a card of this file: its holder

MESSAGES: dict[str, tuple[str, str]] = {
    "BAD_REQUEST": ("Petición no válida", "Bad request"),
    "BAD_CREDENTIALS": ("Usuario o PIN incorrectos", "Wrong user name or PIN"),
    "ACCOUNT_LOCKED": (
        "Cuenta bloqueada por intentos fallidos",
        "Account locked after failed attempts",
    ),
    "ACCOUNT_DISABLED": ("Cuenta desactivada", "Account disabled"),
    "ROLE_REQUIRED": (
        "Esta cuenta no puede comprobar tarjetas en sala",
        "This account may not check cards on the floor",
    ),
    "NOT_SIGNED_IN": ("Inicie sesión", "Sign in"),
    "NOT_FOUND": ("No existe", "Not found"),
    "TOO_LARGE": ("Petición demasiado grande", "Request too large"),
    "RATE_LIMITED": ("Demasiadas peticiones: espere", "Too many requests: wait"),
    "UNAVAILABLE": (
        "El fichero no responde: inténtelo de nuevo",
        "The visitor file does not answer: try again",
    ),
    "INTERNAL": ("Error interno", "Internal error"),
}


@dataclass(frozen=True, slots=True)
class Reply:
    """What the HTTP layer sends: a status, a JSON body, headers; a session cookie to
    set (its value) or to clear (``""``)."""

    status: int
    body: Mapping[str, object]
    headers: Mapping[str, str] = field(default_factory=dict)
    cookie: str | None = None


def error(
    status: int, code: str, headers: Mapping[str, str] | None = None, **extra: object
) -> Reply:
    """The contract's error body: the code and its message in Spanish and English."""
    es, en = MESSAGES.get(code, MESSAGES["INTERNAL"])
    return Reply(
        status, {"error": code, "message_es": es, "message_en": en, **extra}, headers or {}
    )


@dataclass(frozen=True, slots=True)
class Principal:
    """Who asks: an account signed in on a phone, or a device token."""

    actor: str  # the username, or ``token:NAME``
    channel: str  # floor | floor-token
    inspector: bool
    limit_key: str  # the rate limit's key (never the token itself)


@dataclass(slots=True)
class _Session:
    operator: Operator
    place: str
    started: datetime
    seen: datetime


class FloorStore(TokenStore, VerificationStore, AuditTrail, CardKeyRing, Protocol):
    """What the floor reads and writes of the visitor file (both stores fit): its cards,
    audit trail, device tokens and card-signing keys (db/card_keys.py)."""

    def secret(self, name: str) -> bytes: ...


class _Annotated:
    """The store's audit trail with the floor's details added to each entry."""

    def __init__(self, store: FloorStore, extra: dict[str, str]) -> None:
        self._store, self._extra = store, extra

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:
        return self._store.append(actor, action, subject, at, {**(details or {}), **self._extra})

    def verify(
        self, anchors: Sequence[AuditAnchor] = (), *, settings: Mapping[str, str] | None = None
    ) -> AuditCheck:
        return self._store.verify(anchors, settings=settings)

    def head(self) -> AuditHead:
        return self._store.head()


def clean_place(text: object) -> str:
    """Where the check was made, as typed on the phone: printable, at most 40 chars."""
    if not isinstance(text, str):
        return ""
    shown = "".join(c if unicodedata.category(c)[0] not in "CZ" or c == " " else " " for c in text)
    return " ".join(shown.split())[:MAX_PLACE]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


class FloorService:
    """The floor's rules over one open visitor file (thread-safe: the HTTP layer calls
    it from a pool of threads)."""

    def __init__(
        self,
        store: FloorStore,
        accounts: AccountService,
        clock: Clock,
        casino_id: str,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        check_rate: Rate = CHECK_RATE,
        sign_in_rate: Rate = SIGN_IN_RATE,
        card_types: Mapping[str, tuple[str, str]] | None = None,
    ) -> None:
        self.store = store
        # code -> (Spanish, English) label (R10): a phone shows "Entrada de un día", not DAY
        self.card_types = dict(card_types or {})
        self.accounts = accounts
        self.clock = clock
        self.casino_id = casino_id
        self.tokens = DeviceTokens(store)
        self._monotonic = monotonic
        self._sessions: dict[str, _Session] = {}  # SHA-256 of the cookie -> session
        self._lock = threading.Lock()
        self._sign_in_lock = threading.Lock()  # one PIN check at a time: lockout counts
        self._per_client = Buckets(check_rate)
        self._per_principal = Buckets(check_rate)
        self._sign_ins = Buckets(sign_in_rate)
        self._code_key: bytes | None = None
        self._public: tuple[float, CardPublicKeys] | None = None  # (read at, keys)

    # -- sessions -------------------------------------------------------------------------
    def sign_in(self, client: str, body: object) -> Reply:
        wait = self._sign_ins.take(client, self._monotonic())
        if wait:
            return error(429, "RATE_LIMITED", {"Retry-After": retry_after(wait)})
        if not isinstance(body, dict):
            return error(400, "BAD_REQUEST")
        username, pin = body.get("username"), body.get("pin")
        if not isinstance(username, str) or not isinstance(pin, str):
            return error(400, "BAD_REQUEST")
        try:
            with self._sign_in_lock:
                operator = self.accounts.sign_in_with_pin(username[:64], pin[:16])
        except AccountError as err:
            if err.code is AccountErrorCode.ACCOUNT_LOCKED:
                until = err.locked_until.isoformat() if err.locked_until else None
                return error(423, "ACCOUNT_LOCKED", locked_until=until)
            if err.code is AccountErrorCode.ACCOUNT_DISABLED:
                return error(403, "ACCOUNT_DISABLED")
            return error(401, "BAD_CREDENTIALS")
        if not any(operator.has(r) for r in FLOOR_ROLES):
            return error(403, "ROLE_REQUIRED")
        now = self.clock.now()
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._expire(now)
            if len(self._sessions) >= MAX_SESSIONS:  # the oldest signed in goes
                oldest = min(self._sessions, key=lambda k: self._sessions[k].started)
                del self._sessions[oldest]
            self._sessions[_key(token)] = _Session(
                operator, clean_place(body.get("place")), now, now
            )
        body_out = {
            "display_name": operator.display_name,
            "inspector": operator.has(Role.INSPECTOR),
            "expires_at": (now + SESSION_MAX).isoformat(),
        }
        return Reply(200, body_out, cookie=token)

    def sign_out(self, token: str | None) -> Reply:
        with self._lock:
            found = self._sessions.pop(_key(token), None) if token else None
        if found is None:
            return error(401, "NOT_SIGNED_IN")
        return Reply(200, {"signed_out": True}, cookie="")

    def principal(self, cookie: str | None, authorization: str | None) -> Principal | None:
        """Who a request comes from: a live session's cookie, or ``Bearer <token>``."""
        if authorization:
            scheme, _, token = authorization.partition(" ")
            if scheme.lower() != "bearer":
                return None
            name = self.tokens.who(token.strip())
            if name is None:
                return None
            return Principal(f"token:{name}", "floor-token", False, f"token:{name}")
        if not cookie or len(cookie) > 128:
            return None
        now = self.clock.now()
        key = _key(cookie)
        with self._lock:
            found = self._sessions.get(key)
            if found is None:
                return None
            if now - found.started >= SESSION_MAX or now - found.seen >= SESSION_IDLE:
                del self._sessions[key]
                return None
            found.seen = now
            operator = found.operator
        return Principal(operator.username, "floor", operator.has(Role.INSPECTOR), f"s:{key[:16]}")

    def _expire(self, now: datetime) -> None:
        gone = [
            k
            for k, s in self._sessions.items()
            if now - s.started >= SESSION_MAX or now - s.seen >= SESSION_IDLE
        ]
        for k in gone:
            del self._sessions[k]

    def limited(self, client: str, who: Principal | None) -> Reply | None:
        """429 when the address or the session/token asks too often; else None."""
        now = self._monotonic()
        wait = self._per_client.take(client, now)
        if not wait and who is not None:
            wait = self._per_principal.take(who.limit_key, now)
        if wait:
            return error(429, "RATE_LIMITED", {"Retry-After": retry_after(wait)})
        return None

    # -- checks ---------------------------------------------------------------------------
    def check(self, who: Principal, code: str, place: object) -> Reply:
        extra = {"place": clean_place(place)}
        if who.inspector:
            extra["role"] = "inspector"
        result = self._verify(who, code, who.channel, extra)
        return Reply(200, answer(result))

    def _verify(
        self, who: Principal, code: str, channel: str, extra: dict[str, str]
    ) -> CardVerification:
        text = code if isinstance(code, str) and len(code) <= MAX_CODE else "-"
        secrets_now = self._secrets(text)
        return verify_card(
            text,
            key=secrets_now[0],
            casino_id=self.casino_id,
            store=self.store,
            clock=self.clock,
            actor=who.actor,
            channel=channel,
            audit=_Annotated(self.store, extra),
            public_keys=secrets_now[1],
        )

    def _secrets(self, code: str) -> tuple[bytes, CardPublicKeys]:
        """The ADM1 key (a secret never changes once made) and the public keys, read
        again every :data:`KEYS_FOR` seconds, or sooner (once a second at most) for a
        signed code whose key id is not among them: a card signed with a key made
        since, the first key or a rotation's, verifies at once."""
        now = self._monotonic()
        with self._lock:
            if self._code_key is None:
                self._code_key = self.store.secret(CARD_CODE_SECRET)
            public = self._public
            age = KEYS_FOR if public is None else now - public[0]
            if public is None or age >= KEYS_FOR or (age >= 1.0 and self._new_key(code)):
                public = self._public = (now, self.store.card_public_keys())
            return self._code_key, public[1]

    def _new_key(self, code: str) -> bool:
        try:
            key_id = decode_signed_code(code).fields.key_id
        except CardCodeError:
            return False
        return self._public is not None and key_id not in self._public[1].by_id

    def offline_checks(self, who: Principal, body: object) -> Reply:
        """Checks a phone made while the LAN was down, recorded now (art. 22.4): each
        verified again against the file, its ``checked_at`` and the phone's answer kept."""
        checks = body.get("checks") if isinstance(body, dict) else None
        if not isinstance(checks, list) or len(checks) > MAX_OFFLINE:
            return error(400, "BAD_REQUEST")
        parsed: list[tuple[str, datetime, str, str]] = []
        for item in checks:
            if not isinstance(item, dict):
                return error(400, "BAD_REQUEST")
            code, at, said = item.get("code"), item.get("checked_at"), item.get("answer")
            if not isinstance(code, str) or not isinstance(at, str) or not isinstance(said, str):
                return error(400, "BAD_REQUEST")
            try:
                when = datetime.fromisoformat(at)
            except ValueError:
                return error(400, "BAD_REQUEST")
            if when.tzinfo is None or len(said) > 20 or not said.replace("_", "").isalpha():
                return error(400, "BAD_REQUEST")
            parsed.append((code, when, said.upper(), clean_place(item.get("place"))))
        for code, when, said, place in parsed:
            extra = {"place": place, "checked_at": when.isoformat(), "answer": said}
            if who.inspector:
                extra["role"] = "inspector"
            self._verify(who, code, "floor-offline", extra)
        return Reply(200, {"recorded": len(parsed)})

    # -- keys and voids (what a phone needs to check offline) -------------------------------
    def card_keys(self) -> Reply:
        keys = [
            {
                "key_id": k.key_id,
                "public_key": b64url(bytes(k.public_key)),
                "created_at": k.created_at.isoformat(),
                "current": bool(k.current),
            }
            for k in self.store.card_signing_keys()
        ]
        types = {code: {"es": es, "en": en} for code, (es, en) in self.card_types.items()}
        return Reply(200, {"casino_id": self.casino_id, "keys": keys, "card_types": types})

    def voids(self) -> Reply:
        """The voided cards still in the file, signed with the current card key: a phone
        keeps it and says how old it is (no reasons, no names)."""
        numbers = sorted(n for n, _ in self.store.voided_cards())
        body = json.dumps(
            {
                "format": VOIDS_FORMAT,
                "casino_id": self.casino_id,
                "issued_at": self.clock.now().isoformat(),
                "voided": numbers,
            },
            separators=(",", ":"),
        )
        key_id, signature = self.store.sign_with_card_key(body.encode("utf-8"))
        return Reply(200, {"body": body, "key_id": key_id, "signature": b64url(signature)})


def answer(result: CardVerification) -> dict[str, object]:
    """The floor's JSON for a check: the answer, the check without the holder's document
    number, and the holder's name only for a card of this file."""
    said = ANSWERS.get(result.status, "NOT_A_CARD")
    check = result.to_json()
    holder = check.get("holder")
    name = None
    if said in NAMED and isinstance(holder, dict):
        holder.pop("identity", None)
        name = " ".join(p for p in (result.given_names, result.surname.upper()) if p) or None
    else:
        check["holder"] = None
    return {"answer": said, "check": check, "holder_name": name}


def _key(token: str | None) -> str:
    return hashlib.sha256((token or "").encode("utf-8", "replace")).hexdigest()


def unavailable(err: AdmissionError) -> Reply:
    """The file could not answer (busy, locked, the server away): 503, the code logged."""
    log.warning("floor: the visitor file did not answer (%s)", err.code)
    return error(503, "UNAVAILABLE")
