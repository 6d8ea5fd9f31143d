"""Device tokens of the floor service: a fixed scanner or a shared tablet checks cards
with ``Authorization: Bearer flr_...`` instead of a person's PIN (art. 22.4).

``floor token add NAME`` prints the token once; the file keeps only its SHA-256, in the
file's settings (``floor:tokens``, sealed on the server like every setting), beside the
date it was made. Adding and revoking are audited (``FLOOR_TOKEN_ADDED``,
``FLOOR_TOKEN_REVOKED``, subject ``floor-token:NAME``) in the same transaction as the
change. A check made with a token is recorded under the actor ``token:NAME``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

__all__ = [
    "PREFIX",
    "SETTING",
    "DeviceToken",
    "DeviceTokens",
    "TokenError",
]

T = TypeVar("T")
PREFIX = "flr_"
SETTING = "floor:tokens"
ADDED = "FLOOR_TOKEN_ADDED"
REVOKED = "FLOOR_TOKEN_REVOKED"
NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")
MAX_TOKEN = 128  # a presented token longer than this is no token of ours


TOKEN_NAME_INVALID = "TOKEN_NAME_INVALID"  # 1-32 of a-z 0-9 . _ - (lower case)
TOKEN_NAME_TAKEN = "TOKEN_NAME_TAKEN"
TOKEN_UNKNOWN = "TOKEN_UNKNOWN"
MESSAGES = {
    TOKEN_NAME_INVALID: (
        "Nombre de dispositivo no válido (1-32 de a-z 0-9 . _ -)",
        "Device name not valid (1-32 of a-z 0-9 . _ -)",
    ),
    TOKEN_NAME_TAKEN: ("Ya hay un dispositivo con ese nombre", "A device has that name already"),
    TOKEN_UNKNOWN: ("No hay ningún dispositivo con ese nombre", "No device has that name"),
}


class TokenError(Exception):
    """A device token refused: ``code`` is one of :data:`MESSAGES`."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class DeviceToken:
    name: str
    created_at: str  # ISO-8601, as stored
    created_by: str


class TokenStore(Protocol):
    """The file's one write transaction (``SqlCipherStore`` and ``PgStore``): its
    settings and its audit chain (db/tx.py)."""

    def write(self, work: Callable[[Any], T]) -> T: ...

    def read(self, work: Callable[[Any], T]) -> T: ...


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _table(tx: Any) -> dict[str, dict[str, str]]:
    found = tx.setting(SETTING)
    if found is None:
        return {}
    text = found.decode("utf-8") if isinstance(found, bytes) else str(found)
    table = json.loads(text)
    return table if isinstance(table, dict) else {}


def _name(text: str) -> str:
    name = text.strip().lower() if isinstance(text, str) else ""
    if not NAME.fullmatch(name):
        raise TokenError(TOKEN_NAME_INVALID)
    return name


class DeviceTokens:
    """The file's device tokens: add (printed once), list, revoke, and who a token is."""

    def __init__(self, store: TokenStore) -> None:
        self._store = store

    def add(self, name: str, actor: str, at: datetime) -> str:
        """A new token named ``name``; the only time its text exists outside the phone."""
        chosen = _name(name)
        token = PREFIX + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")

        def work(tx: Any) -> None:
            table = _table(tx)
            if chosen in table:
                raise TokenError(TOKEN_NAME_TAKEN)
            table[chosen] = {"sha256": _digest(token), "created_at": at.isoformat(), "by": actor}
            tx.put_setting(SETTING, json.dumps(table, sort_keys=True))
            tx.audit(actor, ADDED, f"floor-token:{chosen}", at, {})

        self._store.write(work)
        return token

    def revoke(self, name: str, actor: str, at: datetime) -> None:
        chosen = _name(name)

        def work(tx: Any) -> None:
            table = _table(tx)
            if table.pop(chosen, None) is None:
                raise TokenError(TOKEN_UNKNOWN)
            tx.put_setting(SETTING, json.dumps(table, sort_keys=True))
            tx.audit(actor, REVOKED, f"floor-token:{chosen}", at, {})

        self._store.write(work)

    def listed(self) -> list[DeviceToken]:
        table = self._store.read(_table)
        return [
            DeviceToken(name, str(row.get("created_at", "")), str(row.get("by", "")))
            for name, row in sorted(table.items())
        ]

    def who(self, token: str) -> str | None:
        """The name of the device ``token`` belongs to, or None (compared in constant
        time against every stored digest)."""
        if not isinstance(token, str) or not token.startswith(PREFIX) or len(token) > MAX_TOKEN:
            return None
        digest = _digest(token)
        found = None
        for name, row in self._store.read(_table).items():
            if hmac.compare_digest(str(row.get("sha256", "")), digest):
                found = name
        return found
