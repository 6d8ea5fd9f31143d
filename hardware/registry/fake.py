"""A scripted fake register (STYLE.md rule 9): same interface as the SOAP client.

``FakeRegistry`` answers ``check()`` from a listed set, or replays a script of
outcomes first (``"LISTED"``, ``"NOT_LISTED"``, ``"UNVERIFIABLE:REGISTRY_TIMEOUT"`` --
the part after the colon is a :class:`~admission.registry.port.RegistryErrorCode` value --
or an exception). ``changes_since()`` serves a change feed built with ``add()``
and ``remove()``. It records what it was asked (``asked``, ``feed_requests``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from datetime import datetime

from admission.identity import IdentityKey
from admission.ports import Clock
from admission.registry.port import (
    PersonDetails,
    RegistryAnswer,
    RegistryErrorCode,
    RegistrySource,
    RegistryStatus,
)
from admission.registry.snapshot import FeedAction, FeedEntry, FeedPage, clean_number
from hardware.registry.soap_messages import RegistryClientError

Outcome = str | Exception


class FakeRegistry:
    def __init__(
        self, clock: Clock, listed: Iterable[str] = (), script: Iterable[Outcome] = ()
    ) -> None:
        self._clock = clock
        self.listed = {n for n in (clean_number(x) for x in listed) if n}
        self.script: deque[Outcome] = deque(script)
        self.changes: list[FeedEntry] = []
        self.asked: list[IdentityKey] = []
        self.people: list[PersonDetails | None] = []  # what the desk sent besides numbers
        self.feed_requests: list[datetime | None] = []
        self._transaction = 0

    # --- scripting ------------------------------------------------------------------------

    def add(self, number: str, at: datetime | None = None) -> None:
        self._change(FeedAction.ADDED, number, at)

    def remove(self, number: str, at: datetime | None = None) -> None:
        self._change(FeedAction.REMOVED, number, at)

    def _change(self, action: FeedAction, number: str, at: datetime | None) -> None:
        clean = clean_number(number)
        if clean is None:
            raise ValueError("not an identity number")
        (self.listed.add if action is FeedAction.ADDED else self.listed.discard)(clean)
        self.changes.append(FeedEntry(action, clean, at or self._clock.now()))

    # --- the port and the feed source -----------------------------------------------------

    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        self.asked.append(identity)
        self.people.append(person)
        self._transaction += 1
        now = self._clock.now()
        version = f"FAKE-{self._transaction}"
        if self.script:
            outcome = self.script.popleft()
            if isinstance(outcome, Exception):
                raise outcome
            status, _, error = outcome.partition(":")
            return RegistryAnswer(
                RegistryStatus(status),
                RegistrySource.ONLINE,
                version=version,
                as_of=now,
                age_seconds=0,
                error=RegistryErrorCode(error) if error else "",
            )
        listed = identity.number in self.listed
        status_ = RegistryStatus.LISTED if listed else RegistryStatus.NOT_LISTED
        return RegistryAnswer(
            status_, RegistrySource.ONLINE, version=version, as_of=now, age_seconds=0
        )

    def changes_since(self, since: datetime | None) -> FeedPage:
        self.feed_requests.append(since)
        if self.script and isinstance(self.script[0], RegistryClientError):
            raise self.script.popleft()  # type: ignore[misc]
        entries = tuple(e for e in self.changes if since is None or e.at >= since)
        return FeedPage(since, self._clock.now(), entries)
