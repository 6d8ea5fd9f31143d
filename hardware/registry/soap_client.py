"""Online client for the RGIAJ-style SOAP verification service (art. 20.2, R1).

:class:`RgiajSoapClient` implements :class:`admission.registry.port.InterdictionRegistry`
(source ONLINE) and is the change-feed source of the background sync.

* Batches: ``verify()`` splits any number of persons into requests of at most
  ``batch_size`` (service limit 100).
* Timeouts: ``timeout_s`` per socket operation, and an overall ``deadline_s`` per
  call so a desk never waits longer than that, retries included.
* Bounded retries with exponential backoff for transient failures (timeouts,
  dropped connections, HTTP 5xx / SOAP faults). TLS failures, malformed answers and
  answers about persons not asked are never retried: they are not transient.
* TLS with a client certificate; the server is verified against ``ca_file``.
* Endpoint and file paths come from settings; the password and the client key's
  passphrase come from the OS keyring (:func:`credentials_from_keyring`), never a
  settings file.

Errors become UNVERIFIABLE answers with a code (fail closed); nothing here logs a
document number.
"""

from __future__ import annotations

import http.client
import ssl
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from admission.errors import ConfigError
from admission.host_names import host_name_refusal
from admission.identity import IdentityKey
from admission.ports import Clock
from admission.registry.port import (
    PersonDetails,
    RegistryAnswer,
    RegistryConfigCode,
    RegistryErrorCode,
    RegistrySource,
    RegistryStatus,
)
from admission.registry.snapshot import FeedEntry, FeedPage, clean_number, validate_feed
from hardware.registry.soap_messages import (
    MAX_PERSONS,
    PersonQuery,
    PersonResult,
    RegistryClientError,
    changes_request,
    parse_changes_response,
    parse_verify_response,
    verify_request,
)

KEYRING_SERVICE = "admission-desk"
KEYRING_PASSWORD = "registry.online.password"
KEYRING_KEY_PASSPHRASE = "registry.online.client_key_passphrase"
_RETRYABLE = frozenset(
    {
        RegistryErrorCode.REGISTRY_TIMEOUT,
        RegistryErrorCode.REGISTRY_CONNECTION,
        RegistryErrorCode.REGISTRY_HTTP_5XX,
        RegistryErrorCode.REGISTRY_FAULT,
    }
)
_MAX_FEED_PAGES = 50


@dataclass(frozen=True, slots=True)
class SoapClientSettings:
    """Settings keys ``registry.online.*`` (declared by the settings module)."""

    endpoint: str
    ca_file: str = ""  # PEM bundle that signs the service's certificate
    client_cert: str = ""  # PEM certificate granted by the regulator
    client_key: str = ""  # PEM private key (passphrase in the keyring)
    username: str = ""  # WS-Security user (password in the keyring)
    timeout_s: float = 2.0
    deadline_s: float = 4.0
    max_attempts: int = 3
    backoff_s: float = 0.25
    batch_size: int = MAX_PERSONS
    max_response_bytes: int = 8_000_000
    allow_plain_http: bool = False  # only for development against a loopback fake


@dataclass(frozen=True, slots=True)
class Credentials:
    password: str = ""
    key_passphrase: str = ""


def credentials_from_keyring(service: str = KEYRING_SERVICE) -> Credentials:
    """Read the secrets from the OS keyring; missing entries are empty strings."""
    import keyring  # imported here: tests and the fake never need a keyring backend

    try:
        password = keyring.get_password(service, KEYRING_PASSWORD) or ""
        passphrase = keyring.get_password(service, KEYRING_KEY_PASSPHRASE) or ""
    except keyring.errors.KeyringError as exc:
        raise ConfigError(
            "OS keyring unavailable", code=RegistryConfigCode.KEYRING_UNAVAILABLE
        ) from exc
    return Credentials(password, passphrase)


def tls_context(settings: SoapClientSettings, credentials: Credentials) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=settings.ca_file or None)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    if settings.client_cert:
        try:
            ctx.load_cert_chain(
                settings.client_cert,
                settings.client_key or None,
                password=credentials.key_passphrase or None,
            )
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(
                "client certificate unusable", code=RegistryConfigCode.REGISTRY_CLIENT_CERT
            ) from exc
    return ctx


class RgiajSoapClient:
    """The online register (source ONLINE)."""

    def __init__(
        self,
        settings: SoapClientSettings,
        clock: Clock,
        credentials: Credentials | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        url = urlsplit(settings.endpoint)
        if url.scheme not in ("https", "http") or not url.hostname:
            raise ConfigError(
                "registry endpoint must be an https URL", code=RegistryConfigCode.REGISTRY_ENDPOINT
            )
        try:
            url.port  # noqa: B018 (a port out of range raises here, not at the first check)
        except ValueError:
            raise ConfigError(
                "registry endpoint: the port must be 1-65535",
                code=RegistryConfigCode.REGISTRY_ENDPOINT,
            ) from None
        refusal = host_name_refusal(url.hostname)
        if refusal is not None:  # the resolver's refusal would be a traceback
            raise ConfigError(
                f"registry endpoint: {refusal}", code=RegistryConfigCode.REGISTRY_ENDPOINT
            )
        if url.scheme == "http" and not settings.allow_plain_http:
            raise ConfigError(
                "registry endpoint must use TLS", code=RegistryConfigCode.REGISTRY_ENDPOINT
            )
        if not 1 <= settings.batch_size <= MAX_PERSONS or settings.max_attempts < 1:
            raise ConfigError(
                "bad batch size or attempts", code=RegistryConfigCode.REGISTRY_SETTINGS
            )
        self._settings = settings
        self._url = url
        self._clock = clock
        self._creds = credentials or Credentials()
        self._sleep = sleep
        self._monotonic = monotonic
        self._ctx = tls_context(settings, self._creds) if url.scheme == "https" else None
        self.attempts = 0  # total HTTP attempts made (for tests and the status bar)

    # --- the port ---------------------------------------------------------------------

    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        try:
            results, transaction = self._verify_batch([person_query(identity, person)])
        except RegistryClientError as exc:
            return RegistryAnswer(
                RegistryStatus.UNVERIFIABLE, RegistrySource.ONLINE, error=exc.code
            )
        return self._answer(results.get(identity.number), transaction)

    def _answer(self, result: PersonResult | None, transaction: str) -> RegistryAnswer:
        now = self._clock.now()
        if result is None:
            return RegistryAnswer(
                RegistryStatus.UNVERIFIABLE,
                RegistrySource.ONLINE,
                version=transaction,
                as_of=now,
                age_seconds=0,
                error=RegistryErrorCode.REGISTRY_NO_ANSWER,
            )
        error = (
            RegistryErrorCode.REGISTRY_CANNOT_VERIFY
            if result.status is RegistryStatus.UNVERIFIABLE
            else ""
        )
        return RegistryAnswer(
            result.status,
            RegistrySource.ONLINE,
            version=transaction,
            as_of=now,
            age_seconds=0,
            error=error,
        )

    # --- batches --------------------------------------------------------------------------

    def verify(self, persons: Sequence[PersonQuery]) -> dict[str, RegistryAnswer]:
        """Verify any number of persons in batches; answers keyed by normalised dni."""
        clean: list[PersonQuery] = []
        for p in persons:
            dni = clean_number(p.dni)
            if dni is None:
                raise ValueError("not an identity number")
            clean.append(
                PersonQuery(
                    dni, p.nombre, p.apellido1, p.apellido2, p.fecha_nacimiento, p.num_soporte
                )
            )
        answers: dict[str, RegistryAnswer] = {}
        size = self._settings.batch_size
        for start in range(0, len(clean), size):
            batch = clean[start : start + size]
            try:
                results, transaction = self._verify_batch(batch)
            except RegistryClientError as exc:
                for p in batch:
                    answers[p.dni] = RegistryAnswer(
                        RegistryStatus.UNVERIFIABLE, RegistrySource.ONLINE, error=exc.code
                    )
                continue
            for p in batch:
                answers[p.dni] = self._answer(results.get(p.dni), transaction)
        return answers

    def _verify_batch(self, batch: Sequence[PersonQuery]) -> tuple[dict[str, PersonResult], str]:
        request_id = uuid.uuid4().hex
        payload = verify_request(request_id, batch, self._settings.username, self._creds.password)
        body = self._call("verificarRGIAJ", payload)
        answer = parse_verify_response(body, [p.dni for p in batch])
        return answer.results, answer.transaction_id[:64] or request_id

    # --- change feed ----------------------------------------------------------------------

    def changes_since(self, since: datetime | None) -> FeedPage:
        """All changes since ``since`` (following ``hayMas`` pages), validated in order."""
        entries: list[FeedEntry] = []
        cursor = since
        for _ in range(_MAX_FEED_PAGES):
            body = self._call(
                "verificarCambiosRGIAJ",
                changes_request(cursor, self._settings.username, self._creds.password),
            )
            page = parse_changes_response(body)
            entries.extend(page.entries)
            if not page.more:
                return validate_feed(FeedPage(since, page.until, tuple(entries)))
            if cursor is not None and page.until <= cursor:
                raise RegistryClientError(
                    "feed does not advance", code=RegistryErrorCode.REGISTRY_MALFORMED
                )
            cursor = page.until
        raise RegistryClientError("too many feed pages", code=RegistryErrorCode.REGISTRY_MALFORMED)

    # --- transport ------------------------------------------------------------------------

    def _call(self, action: str, payload: bytes) -> bytes:
        s = self._settings
        start = self._monotonic()
        delay = s.backoff_s
        for attempt in range(1, s.max_attempts + 1):
            remaining = s.deadline_s - (self._monotonic() - start)
            if remaining <= 0:
                raise RegistryClientError(
                    "deadline exceeded", code=RegistryErrorCode.REGISTRY_TIMEOUT
                )
            try:
                return self._post(action, payload, min(s.timeout_s, remaining))
            except RegistryClientError as exc:
                retry = exc.code in _RETRYABLE and attempt < s.max_attempts
                if not retry or self._monotonic() - start + delay >= s.deadline_s:
                    raise
            self._sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    def _post(self, action: str, payload: bytes, timeout: float) -> bytes:
        self.attempts += 1
        url = self._url
        conn: http.client.HTTPConnection
        if self._ctx is not None:
            conn = http.client.HTTPSConnection(
                url.hostname or "", url.port or 443, timeout=timeout, context=self._ctx
            )
        else:
            conn = http.client.HTTPConnection(url.hostname or "", url.port or 80, timeout=timeout)
        try:
            conn.request(
                "POST",
                url.path or "/",
                body=payload,
                headers={
                    "Content-Type": "text/xml; charset=utf-8",
                    "SOAPAction": f'"{action}"',
                },
            )
            response = conn.getresponse()
            body = response.read(self._settings.max_response_bytes + 1)
        except ssl.SSLError as exc:
            raise RegistryClientError(
                type(exc).__name__, code=RegistryErrorCode.REGISTRY_TLS
            ) from None
        except TimeoutError:
            raise RegistryClientError("timeout", code=RegistryErrorCode.REGISTRY_TIMEOUT) from None
        except (OSError, http.client.HTTPException) as exc:
            raise RegistryClientError(
                type(exc).__name__, code=RegistryErrorCode.REGISTRY_CONNECTION
            ) from None
        finally:
            conn.close()
        if len(body) > self._settings.max_response_bytes:
            raise RegistryClientError("answer too large", code=RegistryErrorCode.REGISTRY_MALFORMED)
        if response.status >= 500:  # includes SOAP faults (HTTP 500): retried
            raise RegistryClientError(
                f"HTTP {response.status}", code=RegistryErrorCode.REGISTRY_HTTP_5XX
            )
        if response.status != 200:
            raise RegistryClientError(
                f"HTTP {response.status}", code=RegistryErrorCode.REGISTRY_HTTP_ERROR
            )
        return body


def _setting(settings: Any, key: str, default: Any) -> Any:
    try:
        return settings[key]
    except ConfigError:  # a key the settings module does not declare (yet)
        return default


def client_from_settings(
    settings: Any, clock: Clock | None = None, credentials: Credentials | None = None
) -> RgiajSoapClient:
    """Build the client from ``admission.settings.Settings`` and the OS keyring.

    Keys: ``registry.online_url``, ``registry.timeout_seconds`` (the whole budget of
    one check, retries included), and, when declared, ``registry.ca_file``,
    ``registry.client_cert``, ``registry.client_key``, ``registry.username``,
    ``registry.max_attempts``.
    """
    from admission.clock import SystemClock

    budget = float(_setting(settings, "registry.timeout_seconds", 5))
    config = SoapClientSettings(
        endpoint=str(settings["registry.online_url"]),
        ca_file=str(_setting(settings, "registry.ca_file", "")),
        client_cert=str(_setting(settings, "registry.client_cert", "")),
        client_key=str(_setting(settings, "registry.client_key", "")),
        username=str(_setting(settings, "registry.username", "")),
        timeout_s=max(0.5, budget / 2),
        deadline_s=budget,
        max_attempts=int(_setting(settings, "registry.max_attempts", 3)),
    )
    if credentials is None:
        credentials = credentials_from_keyring()
    return RgiajSoapClient(config, clock or SystemClock(), credentials)


def person_query(identity: IdentityKey, person: PersonDetails | None) -> PersonQuery:
    """The RGIAJ person element. Two surname words are apellido1 and apellido2; any other
    surname goes whole into apellido1 (compound surnames cannot be split reliably)."""
    if person is None:
        return PersonQuery(identity.number)
    words = person.surname.split()
    first, second = (words[0], words[1]) if len(words) == 2 else (" ".join(words), "")
    return PersonQuery(
        identity.number, person.given_names, first, second, person.birth_date, person.support_number
    )
