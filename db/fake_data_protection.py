"""The fake store's data-protection operations (see db/data_protection.py): the same
rules, the same audit entry committing to the same rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from admission.data_protection import (
    DataProtectionCode,
    DataProtectionError,
    MonthCount,
    MonthSpan,
    RetentionTotals,
)
from admission.records import CardRecord, Observation, Visitor, VisitRecord
from db.fake_chain import FakeChain

__all__ = ["FakeDataProtectionMixin"]

RECTIFIED = "RECTIFIED"  # as db.data_protection.RECTIFIED


class FakeDataProtectionMixin:
    """Mixed into :class:`db.fake.FakeStore`; declares the attributes it uses."""

    _visitors: dict[int, Visitor]
    _visits: dict[int, VisitRecord]
    _observations: dict[int, Observation]
    _cards: dict[int, CardRecord]
    chain: FakeChain

    # FakeStore's own (it comes first in the class order); declared for the type checker
    def _call(self, method: str, *args: object) -> None:
        raise NotImplementedError

    def _view(self, number: int) -> Visitor:
        raise NotImplementedError

    def keyed_hash(self, text: str) -> str:
        raise NotImplementedError

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
        self._call("rectify_visitor_name", file_number, surname, given_names)
        visitor = self._visitors.get(file_number)
        if visitor is None:
            raise DataProtectionError("no such file", code=DataProtectionCode.RECTIFY_NOT_FOUND)
        old = {"surname": visitor.surname, "given_names": visitor.given_names}
        new = {"surname": surname, "given_names": given_names}
        fields = [f for f in ("surname", "given_names") if old[f] != new[f]]
        if not fields:
            raise DataProtectionError(
                "the name is already so", code=DataProtectionCode.RECTIFY_UNCHANGED
            )
        self._visitors[file_number] = replace(visitor, surname=surname, given_names=given_names)
        self.chain.append(
            actor,
            RECTIFIED,
            f"file:{file_number}",
            at,
            self._rectified(fields, old, reason, role),
            [(f"visitor:{file_number}", False)],
        )
        return self._view(file_number)

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
        self._call("rectify_observation_text", file_number, observation_id, text)
        found = self._observations.get(observation_id)
        if found is None or found.file_number != file_number:
            raise DataProtectionError(
                "no such observation in the file", code=DataProtectionCode.RECTIFY_NOT_FOUND
            )
        if found.text == text:
            raise DataProtectionError(
                "the text is already so", code=DataProtectionCode.RECTIFY_UNCHANGED
            )
        changed = replace(found, text=text, observation_id=observation_id)
        self._observations[observation_id] = changed
        details = self._rectified(["text"], {"text": found.text}, reason, role)
        details["observation"] = str(observation_id)
        self.chain.append(
            actor,
            RECTIFIED,
            f"file:{file_number}",
            at,
            details,
            [(f"observation:{observation_id}", False)],
        )
        return changed

    def _rectified(
        self, fields: Sequence[str], old: dict[str, str], reason: str, role: str
    ) -> dict[str, str]:
        details = {"fields": ",".join(fields), "reason": reason, "role": role}
        for name in fields:
            details[f"old_{name}"] = self.keyed_hash(old[name])
        return details

    def retention_totals(self, cutoff: datetime) -> RetentionTotals:
        self._call("retention_totals", cutoff)
        visits = [v.at for v in self._visits.values()]
        observations = [o.at for o in self._observations.values()]
        cards = [c.issued_at for c in self._cards.values()]
        return RetentionTotals(
            len(self._visitors),
            len(visits),
            len(observations),
            len(cards),
            sum(1 for at in visits if at < cutoff),
            min(visits, default=None),
            min(observations, default=None),
            min(cards, default=None),
        )

    def retention_months(self, months: Sequence[MonthSpan]) -> tuple[MonthCount, ...]:
        self._call("retention_months", tuple(months))
        first: dict[int, datetime] = {}
        for v in self._visits.values():
            if v.file_number not in first or v.at < first[v.file_number]:
                first[v.file_number] = v.at
        out = []
        for span in months:

            def inside(at: datetime, span: MonthSpan = span) -> bool:
                return span.start <= at < span.end

            held = [v for v in self._visits.values() if inside(v.at)]
            out.append(
                MonthCount(
                    span.month,
                    len(held),
                    sum(1 for v in held if v.verdict == "ADMIT"),
                    sum(1 for v in held if v.verdict == "DENY"),
                    sum(1 for c in self._cards.values() if inside(c.issued_at)),
                    sum(1 for at in first.values() if inside(at)),
                )
            )
        return tuple(out)
