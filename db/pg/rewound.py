"""A visitor file that went back: the server restored to an earlier minute (a base backup
and its archived WAL, PostgreSQL 15 docs, section 26.3). The cards issued after that
minute exist on paper; a desk writing on would give their numbers again (art. 22.1), so
it refuses to write (``PG_FILE_WENT_BACK``) until an operator confirms the restore.

The desk keeps ``audit-head`` in its folder beside ``database-id``: the newest audit entry
it has seen (seq, digest, time; no personal data). At start it reads the server's entry
at that seq: missing (the chain ends before it) or another digest, the file went back.
The comparison is exact: a failover to a synchronous standby holds every acknowledged
entry and passes. A desk left open compares again before its first write on a new
timeline of the primary it follows (db/pg/primary.py): a restored server is promoted onto
one. Only a write that is the desk's very first call to the restored server (no read
before it, no probe of the status bar) would be made before that.

While refused, only the file's own bookkeeping is written: audit entries alone (every
query is recorded, art. 20.4: the inspectors' searches, the card checks), the accounts'
sign-ins and the file's secrets; admissions, cards, vouchers, bans and the register are
refused. ``server confirm-restore`` records ``FILE_RESTORED`` (the head this desk saw,
the server's) and the desk writes again. Another desk remembering a head the restore
lost accepts it when a ``FILE_RESTORED`` entry says the file went back to before that
head (its ``restored_seq``) and was recorded after it (its time): the restore was
confirmed after that desk's last entry was written.

The head is kept off the caller's thread: a keeper thread writes the file (whole, synced)
at most once a second when the store committed a newer entry, and once more at close.
A desk killed within that second remembers the entry before: the next start still finds
every older one.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from enum import unique
from pathlib import Path

from admission.atomic_file import write_atomically
from admission.codes import Code
from admission.errors import ConfigError, InvalidStateError, StoreError
from admission.hours import MADRID
from admission.records import AuditHead
from db import chain, codec
from db.file_guard import lock_exclusively, read_optional
from db.pg.store import PgStore
from db.pg.tx import PgTx

__all__ = [
    "AUDIT_HEAD_FILE",
    "FILE_RESTORED",
    "GuardedPgStore",
    "RewoundCode",
    "WentBack",
    "remember_head",
    "remembered_head",
]

log = logging.getLogger("admission.db.pg")

AUDIT_HEAD_FILE = "audit-head"
FILE_RESTORED = "FILE_RESTORED"  # the audit action of an operator's confirmation
KEEP_EVERY_S = 1.0  # the keeper's period: the head file is written at most this often
_LOCK_FILE = ".audit-head.lock"  # the desk's processes (window, commands) take turns
_MAX_HEAD = 512  # bytes: seq, a 64-hex digest and a time


@unique
class RewoundCode(Code):
    """Why a desk refuses the server's file as it is now, or its confirmation."""

    WENT_BACK = "PG_FILE_WENT_BACK"  # restored to an earlier minute: confirm it first
    NOT_WENT_BACK = "PG_FILE_NOT_WENT_BACK"  # confirm-restore with nothing to confirm
    HEAD_UNREADABLE = "PG_DESK_AUDIT_HEAD_UNREADABLE"  # postgresql/audit-head


# -- the head kept in the desk's folder -----------------------------------------------------


def _unreadable(why: str) -> ConfigError:
    return ConfigError(f"cannot read {AUDIT_HEAD_FILE}: {why}", code=RewoundCode.HEAD_UNREADABLE)


def _head(found: object) -> AuditHead:
    if not isinstance(found, dict):
        raise TypeError("not a head")
    seq, digest, at = int(found["seq"]), str(found["digest"]), found["at"]
    when = None if at is None else datetime.fromisoformat(str(at))
    if seq < 0 or not digest.isalnum() or (when is not None and when.tzinfo is None):
        raise ValueError("not a head")
    return AuditHead(seq, digest, when)


def _kept(folder: Path) -> tuple[AuditHead, AuditHead | None] | None:
    """The head kept, and the server's newest entry when the desk first noticed that the
    file went back from it (None: it did not)."""
    text = read_optional(folder / AUDIT_HEAD_FILE, _unreadable, "ascii")
    if text is None:
        return None
    try:
        if len(text) > _MAX_HEAD:
            raise ValueError("too long")
        found = json.loads(text)
        noticed = found.get("went_back_to")
        return _head(found), (None if noticed is None else _head(noticed))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _unreadable(type(exc).__name__) from exc


def remembered_head(folder: Path) -> AuditHead | None:
    """The newest audit entry this desk has seen (None before its first start)."""
    kept = _kept(folder)
    return None if kept is None else kept[0]


def _fields(head: AuditHead) -> dict[str, object]:
    at = None if head.at is None else head.at.isoformat()
    return {"seq": head.seq, "digest": head.digest, "at": at}


@contextlib.contextmanager
def _turn(folder: Path) -> Iterator[None]:
    """An exclusive lock on the folder's lock file: one process reads and replaces."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    with (folder / _LOCK_FILE).open("a") as handle:
        lock_exclusively(handle.fileno())
        yield


def remember_head(
    folder: Path, head: AuditHead, *, replace: bool = False, went_back_to: AuditHead | None = None
) -> bool:
    """Write ``audit-head`` whole (a temporary file synced and renamed over it) when
    ``head`` is newer than the one kept, or with ``replace`` (a confirmed restore, or
    ``went_back_to``: the server's newest entry when the desk first noticed); True when
    written."""
    fields = _fields(head)
    if went_back_to is not None:
        fields["went_back_to"] = _fields(went_back_to)
    with _turn(folder):
        kept = None if replace or went_back_to else remembered_head(folder)
        if kept is not None and kept.seq >= head.seq:
            return False
        write_atomically(folder / AUDIT_HEAD_FILE, (json.dumps(fields) + "\n").encode("ascii"))
    return True


# -- the comparison -------------------------------------------------------------------------


def _local(at: datetime | None) -> str:
    return "?" if at is None else at.astimezone(MADRID).strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True, slots=True)
class WentBack:
    """The server's file lacks the entry this desk saw: ``remembered`` (kept in the
    desk's folder), ``server`` (the server's newest entry when noticed); ``diverged``: the
    server holds another entry at that seq (written since the restore)."""

    remembered: AuditHead
    server: AuditHead
    diverged: bool

    @property
    def entries_missing(self) -> int | None:
        """At least this many entries were lost (None: unknown, the chain diverged)."""
        return None if self.diverged else self.remembered.seq - self.server.seq

    @property
    def minutes_missing(self) -> int | None:
        """Minutes from the server's newest entry to the one this desk saw."""
        if self.diverged or self.remembered.at is None or self.server.at is None:
            return None
        return max(0, int((self.remembered.at - self.server.at).total_seconds() // 60))

    def message(self) -> str:
        seen = f"entry {self.remembered.seq} ({_local(self.remembered.at)})"
        newest = f"entry {self.server.seq} ({_local(self.server.at)})"
        if self.diverged:
            how = f"holds another {seen} than this desk saw; its newest is {newest}"
        else:
            how = (
                f"ends at {newest}, this desk saw {seen}: {self.entries_missing} entries "
                f"and {self.minutes_missing} minutes missing"
            )
        return (
            f"the server's visitor file went back: it {how}; cards issued since exist on "
            "paper: confirm the restore with 'server confirm-restore' before writing"
        )

    def details(self) -> dict[str, str]:
        """The audit entry's details (numbers and times only)."""
        found = {
            "remembered_seq": str(self.remembered.seq),
            "remembered_at": codec.ts(self.remembered.at) if self.remembered.at else "",
            "restored_seq": str(self.server.seq),
            "restored_at": codec.ts(self.server.at) if self.server.at else "",
            "diverged": "yes" if self.diverged else "no",
        }
        if self.entries_missing is not None:
            found["entries_missing"] = str(self.entries_missing)
        if self.minutes_missing is not None:
            found["minutes_missing"] = str(self.minutes_missing)
        return found


def _entry(tx: PgTx, seq: int) -> AuditHead | None:
    found = tx.one("SELECT seq, digest, at FROM audit WHERE seq = ?", (seq,))
    if found is None:
        return None
    return AuditHead(int(found[0]), str(found[1]), codec.parse_ts(str(found[2])))


def _confirmed(tx: PgTx, remembered: AuditHead) -> bool:
    """A ``FILE_RESTORED`` entry says the file went back to before ``remembered`` and was
    recorded after it: the restore that lost it was confirmed (at another desk)."""
    rows = tx.all("SELECT at, details FROM audit WHERE action = ? ORDER BY seq", (FILE_RESTORED,))
    for at, details in rows:
        said = json.loads(str(details))
        restored = int(said.get("restored_seq", remembered.seq))
        after = remembered.at is None or codec.parse_ts(str(at)) >= remembered.at
        if restored < remembered.seq and after:
            return True
    return False


def compare(
    tx: PgTx, remembered: AuditHead | None, noticed: AuditHead | None = None
) -> tuple[AuditHead, WentBack | None]:
    """The server's newest entry, and how the file went back from ``remembered`` (None:
    it holds that very entry, or a confirmed restore lost it). The file went back to
    ``noticed`` (first noticed then) if the server still holds that entry: the audit
    entries recorded since (sign-ins, queries) are not what was restored."""
    newest = chain.head(tx)
    if remembered is None or remembered.seq == 0:
        return newest, None
    found = _entry(tx, remembered.seq)
    if found is not None and hmac.compare_digest(found.digest, remembered.digest):
        return newest, None
    if _confirmed(tx, remembered):
        return newest, None
    back_to = newest
    if noticed is not None:
        still = _entry(tx, noticed.seq)
        if still is not None and hmac.compare_digest(still.digest, noticed.digest):
            back_to = noticed
    return newest, WentBack(remembered, back_to, diverged=back_to.seq >= remembered.seq)


# -- the store that refuses to write on a file that went back -------------------------------

_BOOKKEEPING: ContextVar[bool] = ContextVar("admission_pg_bookkeeping", default=False)


@contextlib.contextmanager
def _bookkeeping() -> Iterator[None]:
    token = _BOOKKEEPING.set(True)
    try:
        yield
    finally:
        _BOOKKEEPING.reset(token)


class GuardedPgStore(PgStore):
    """A desk's :class:`PgStore` that keeps the newest audit head in its folder and
    refuses to write while the server's file went back (:meth:`watch`)."""

    folder: Path | None = None  # set by watch
    went_back: WentBack | None = None
    _kept: AuditHead | None = None  # the head last written into the folder
    _checked_timeline: int | None = None  # the primary's timeline when last compared

    def watch(self, folder: Path) -> WentBack | None:
        """Compare the server with the head kept in ``folder``; refuse writes from now on
        if it went back (the answer), else remember the server's head; keep the heads this
        store commits. Compared again before the first write on a new timeline (the
        primary it follows changed: a failover, or a restored server)."""
        self.folder = folder
        self._keeper_lock = threading.Lock()
        self._check_lock = threading.Lock()
        went = self._check(folder)
        self.write_gate = self._gate
        self._stop = threading.Event()
        self._keeper = threading.Thread(target=self._keep, name="audit-head", daemon=True)
        self._keeper.start()
        return went

    def _timeline(self) -> int | None:
        return None if self.primary is None else self.primary.timeline

    def _check(self, folder: Path) -> WentBack | None:
        timeline = self._timeline()
        kept = _kept(folder)
        remembered, noticed = (None, None) if kept is None else kept
        newest, went = self.read(lambda tx: compare(tx, remembered, noticed))
        with self._keeper_lock:
            if went is None:
                # the server holds what the desk saw, or a confirmed restore lost it
                remember_head(folder, newest, replace=True)
                # from here on (an accepted restore: a head of the restored chain)
                self.committed_head = self._kept = newest
            else:
                log.warning("%s: %s", RewoundCode.WENT_BACK, went.message())
                if went.server != noticed:  # the restore point, for the later starts
                    remember_head(folder, went.remembered, went_back_to=went.server)
            self.went_back = went
        self._checked_timeline = timeline
        return went

    def _gate(self) -> None:
        if self._timeline() != self._checked_timeline and self.folder is not None:
            with self._check_lock:  # one read, once per new timeline
                if self._timeline() != self._checked_timeline:
                    self._flush()  # what this store committed before is the desk's head
                    self._check(self.folder)
        went = self.went_back
        if went is not None and not _BOOKKEEPING.get():
            raise StoreError(went.message(), code=RewoundCode.WENT_BACK)

    def _keep(self) -> None:
        while not self._stop.wait(KEEP_EVERY_S):
            self._flush()

    def _flush(self) -> None:
        """The newest head this store committed into the folder, unless the file went
        back (its entries are then not the ones the desk saw)."""
        with self._keeper_lock:
            head = self.committed_head
            if self.folder is None or head is None or head == self._kept:
                return
            if self.went_back is not None:
                return
            try:
                remember_head(self.folder, head)
            except (OSError, ConfigError) as exc:  # said, and tried again next time
                log.warning("%s not kept: %s", AUDIT_HEAD_FILE, exc)
                return
            self._kept = head

    def confirm_restore(self, actor: str) -> dict[str, object]:
        """The operator's confirmation: ``FILE_RESTORED`` recorded with how far the file
        went back; this desk writes again and remembers that entry."""
        went = self.went_back
        if went is None or self.folder is None:
            raise InvalidStateError(
                "the server's file did not go back: nothing to confirm",
                code=RewoundCode.NOT_WENT_BACK,
            )
        details = went.details()
        seq = self.append(actor, FILE_RESTORED, "visitor-file", self.clock.now(), details)
        head = self.read(lambda tx: _entry(tx, seq))
        assert head is not None
        with self._keeper_lock:
            remember_head(self.folder, head, replace=True)
            self.committed_head = self._kept = head  # the restored chain's, from here on
            self.went_back = None
        return {"confirmed": True, "seq": seq, **details}

    # -- the bookkeeping a refused desk still writes (art. 20.4: every query recorded) --
    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: Sequence[tuple[str, bool]] = (),
    ) -> int:
        """An audit entry alone (committing to no row) passes a refusing gate."""
        scope = _bookkeeping() if not rows else contextlib.nullcontext()
        with scope:
            return super().append(actor, action, subject, at, details, rows)

    def secret(self, name: str) -> bytes:
        with _bookkeeping():
            return super().secret(name)

    def act_locks(self) -> Callable[[Sequence[str]], AbstractContextManager[None]]:
        """The accounts' acts (sign-in, lockout counts) pass a refusing gate."""
        locked = super().act_locks()

        @contextlib.contextmanager
        def held(names: Sequence[str]) -> Iterator[None]:
            with locked(names), _bookkeeping():
                yield

        return held

    def close(self) -> None:
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
            self._keeper.join(timeout=5)
            self._flush()
        super().close()
