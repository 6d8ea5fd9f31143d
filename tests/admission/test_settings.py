import json
from pathlib import Path

import pytest

from admission.errors import ConfigError
from admission.settings import DECLARED, SETTINGS_VERSION, Settings


def test_every_setting_is_declared_with_a_default_of_its_type() -> None:
    for s in DECLARED:
        assert isinstance(s.default, s.type), s.key
        assert s.description
        assert not any(w in s.key for w in ("password", "secret", "key_hex")), s.key


def test_round_trip_and_atomic_save(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    s = Settings({"desk.id": "DESK2"})
    s.save(path)
    assert Settings.load(path)["desk.id"] == "DESK2"
    assert Settings.load(path)["casino.id"] == "CAS01"  # defaults fill the rest
    assert json.loads(path.read_text())["version"] == SETTINGS_VERSION


def test_old_files_are_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 1, "card.price": 5, "desk.id": "D9"}))
    assert Settings.load(path)["desk.id"] == "D9"


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("{not json", "SETTINGS_UNREADABLE"),
        ("[]", "SETTINGS_UNREADABLE"),
        ('{"version": 99}', "SETTINGS_VERSION"),
        ('{"version": 2, "nope": 1}', "UNKNOWN_SETTING"),
        ('{"version": 2, "registry.timeout_seconds": "5"}', "SETTING_BAD_TYPE"),
        ('{"version": 2, "admission.unverifiable": "ADMIT"}', "SETTING_BAD_CHOICE"),
        ('{"version": 2, "casino.id": "casino-1"}', "SETTING_BAD_FORMAT"),
    ],
)
def test_bad_settings_files_are_refused(tmp_path: Path, content: str, code: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content)
    with pytest.raises(ConfigError) as err:
        Settings.load(path)
    assert err.value.code == code
