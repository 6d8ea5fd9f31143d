"""The settings as the audit trail records them (admission/settings_record.py): a digest
per setting not at its default, never a value, and the keys that differ."""

from __future__ import annotations

from admission.settings import Settings
from admission.settings_record import changed_keys, settings_digests


def test_only_settings_off_their_default_have_a_digest_and_no_value_shows() -> None:
    assert settings_digests(Settings()) == {}  # a setting a newer release adds is no change
    changed = Settings({"casino.name": "Casino de Pruebas"})
    digests = settings_digests(changed)
    assert list(digests) == ["setting:casino.name"] and len(digests["setting:casino.name"]) == 16
    assert "Pruebas" not in str(digests)


def test_the_keys_changed_set_and_reset_are_named() -> None:
    before = settings_digests(Settings({"casino.name": "A", "ui.theme": "light"}))
    after = settings_digests(Settings({"casino.name": "B"}))  # the theme back to its default
    assert changed_keys(before, after) == ["casino.name", "ui.theme"]
    assert changed_keys(before, before) == []
