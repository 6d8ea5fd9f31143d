"""The print spooler never inherits a password or key given to the command line."""

from __future__ import annotations

import pytest

from hardware.printer.cups import _child_env


def test_the_spooler_gets_the_c_locale_and_no_sign_in_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", "s3cret-clerk")
    monkeypatch.setenv("ADMISSION_DIRECTOR_PASSWORD", "s3cret-director")
    monkeypatch.setenv("ADMISSION_DB_KEY", "00" * 32)
    monkeypatch.setenv("ADMISSION_USER", "ana")
    env = _child_env()
    assert not {"ADMISSION_PASSWORD", "ADMISSION_DIRECTOR_PASSWORD", "ADMISSION_DB_KEY"} & set(env)
    assert env["ADMISSION_USER"] == "ana"  # a user name is no secret
    assert env["LC_ALL"] == "C"
