"""The desk's settings as the audit trail records them (art. 20.4: prices, card types,
hours and devices matter to an inspector; the director answers for them, art. 14.1.b).

The settings live in ``settings.json`` beside the visitor file, outside the encrypted
file. Each ``SETTINGS_CHANGED`` entry carries a digest per declared setting
(``setting:<key>``, 16 hex of SHA-256 over the key and its value: no value in clear;
the settings left at their default have none):

* the settings screen writes one when it saves, under the administrator's name;
* the desk, when it starts, compares the file with the newest record and writes one
  under :data:`OUTSIDE_ACTOR` naming the keys changed outside the window;
* ``audit verify`` compares the file with the newest record in the chain and answers
  ``SETTINGS_UNRECORDED`` when they differ (db/audit_chain.py).

Until the first record (the first save on the settings screen) there is nothing to
compare with.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Protocol

from admission.settings import DECLARED, Settings

SETTINGS_CHANGED = "SETTINGS_CHANGED"  # audit action: details name the keys, never values
OUTSIDE_ACTOR = "settings-file"  # the actor of changes found in the file at start
DIGEST_PREFIX = "setting:"
RECORD_MARK = "digests"  # in a record's details: how many settings differ from the default
RECORDED = "audit.settings_recorded"  # the newest digests, kept in the file to compare fast


class SettingsLedger(Protocol):
    """The store's audit trail and settings rows (every store has them)."""

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int: ...

    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...


def settings_digests(settings: Settings) -> dict[str, str]:
    """``setting:<key>`` -> 16 hex of SHA-256 of the key and its JSON value, for each
    setting not at its default (a setting a newer release declares is no change)."""
    digests = {}
    for setting in DECLARED:
        value = settings[setting.key]
        if value == setting.default:
            continue
        text = json.dumps([setting.key, value], sort_keys=True)
        digests[DIGEST_PREFIX + setting.key] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return digests


def changed_keys(recorded: Mapping[str, str], current: Mapping[str, str]) -> list[str]:
    """The setting keys whose digests differ (sorted, without the prefix)."""
    names = {k for k in (*recorded, *current) if k.startswith(DIGEST_PREFIX)}
    return sorted(k[len(DIGEST_PREFIX) :] for k in names if recorded.get(k) != current.get(k))


def record_settings(
    store: SettingsLedger,
    settings: Settings,
    actor: str,
    at: datetime,
    keys: Iterable[str],
) -> int:
    """One ``SETTINGS_CHANGED`` entry naming ``keys`` with every setting's digest."""
    digests = settings_digests(settings)
    details = {"keys": ",".join(sorted(set(keys))), RECORD_MARK: str(len(digests)), **digests}
    seq = store.append(actor, SETTINGS_CHANGED, "settings", at, details)
    store.set_setting(RECORDED, json.dumps(digests, sort_keys=True))
    return seq


def record_saved_settings(
    store: SettingsLedger, path: Path, actor: str, at: datetime, keys: Iterable[str]
) -> int:
    """The settings screen saved ``path``: its entry, with the file as saved."""
    return record_settings(store, Settings.load(path), actor, at, keys)


def record_outside_changes(store: SettingsLedger, settings: Settings, at: datetime) -> list[str]:
    """At the desk's start: the keys changed in ``settings.json`` since the newest record
    (none before a first record), recorded under :data:`OUTSIDE_ACTOR`."""
    text = store.get_setting(RECORDED)
    if not text:
        return []
    try:
        recorded = json.loads(text)
    except ValueError:
        recorded = {}
    keys = changed_keys(recorded if isinstance(recorded, dict) else {}, settings_digests(settings))
    if keys:
        record_settings(store, settings, OUTSIDE_ACTOR, at, keys)
    return keys


__all__ = [
    "DIGEST_PREFIX",
    "OUTSIDE_ACTOR",
    "RECORDED",
    "SETTINGS_CHANGED",
    "SettingsLedger",
    "changed_keys",
    "record_outside_changes",
    "record_saved_settings",
    "record_settings",
    "settings_digests",
]
