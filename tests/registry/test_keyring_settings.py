"""Endpoint from settings, secrets from the OS keyring (never from the settings file)."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend

from admission.clock import FixedClock
from admission.settings import BY_KEY, Settings
from hardware.registry.soap_client import (
    KEYRING_KEY_PASSPHRASE,
    KEYRING_PASSWORD,
    KEYRING_SERVICE,
    client_from_settings,
    credentials_from_keyring,
)


class MemoryKeyring(KeyringBackend):
    # Below the fail backend's 0: keyring's automatic choice, made once per process from
    # every subclass defined so far, must never pick this test's keyring for later tests.
    priority = -1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.data.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.data[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.data.pop((service, username), None)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_secrets_come_from_the_keyring(memory_keyring: MemoryKeyring) -> None:
    assert credentials_from_keyring().password == ""
    memory_keyring.set_password(KEYRING_SERVICE, KEYRING_PASSWORD, "pw")
    memory_keyring.set_password(KEYRING_SERVICE, KEYRING_KEY_PASSPHRASE, "pp")
    creds = credentials_from_keyring()
    assert (creds.password, creds.key_passphrase) == ("pw", "pp")


def test_client_from_settings(memory_keyring: MemoryKeyring, clock: FixedClock) -> None:
    settings = Settings(
        {"registry.online_url": "https://127.0.0.1:8443/rgiaj", "registry.timeout_seconds": 4}
    )
    client = client_from_settings(settings, clock)
    assert client.check  # built without touching the network


def test_no_registry_secret_is_a_setting() -> None:
    for key in BY_KEY:
        if key.startswith("registry."):
            assert not any(word in key for word in ("password", "secret", "passphrase")), key
