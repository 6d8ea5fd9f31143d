"""SOAP messages of the RGIAJ verification service, as plain values (no I/O).

Modelled on the national register's public interface: ``verificarRGIAJ``
takes 1-100 persons (dni, nombre, apellido1, apellido2, fechaNacimiento,
numSoporte) and answers per person COD001 (listed), COD002 (not listed) or COD006
(cannot be verified); ``verificarCambiosRGIAJ`` returns identifiers marked A
(alta, added) or B (baja, removed) with a date. The namespace is configuration
(``NS`` is our model's); elements are matched by local name so the real Madrid
WSDL needs at most a different template, not a different parser.

Everything read here is untrusted: DOCTYPEs are refused (no entity expansion),
sizes and counts are bounded, identifiers are normalised and validated.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from xml.sax.saxutils import escape

from admission.codes import Code
from admission.errors import AdmissionError
from admission.registry.port import RegistryErrorCode, RegistryStatus
from admission.registry.snapshot import FeedEntry, SnapshotError, clean_number, feed_entry

SOAP_NS = "http://schemas.xmlsoap.org/soap/envelope/"
NS = "urn:es:rgiaj:verificacion:v1"
WSSE_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
MAX_PERSONS = 100  # per verificarRGIAJ request (service limit)
MAX_CHANGES_PER_PAGE = 100_000

CODE_STATUS = {
    "COD001": RegistryStatus.LISTED,
    "COD002": RegistryStatus.NOT_LISTED,
    "COD006": RegistryStatus.UNVERIFIABLE,
}


class RegistryClientError(AdmissionError):
    """The online service could not give a usable answer; ``code`` says why."""

    code: Code = RegistryErrorCode.REGISTRY_UNAVAILABLE


@dataclass(frozen=True, slots=True)
class PersonQuery:
    """One person to verify. Only ``dni`` is required by our port; the rest helps matching."""

    dni: str
    nombre: str = ""
    apellido1: str = ""
    apellido2: str = ""
    fecha_nacimiento: date | None = None
    num_soporte: str = ""


@dataclass(frozen=True, slots=True)
class PersonResult:
    dni: str
    code: str  # COD001 / COD002 / COD006
    status: RegistryStatus


@dataclass(frozen=True, slots=True)
class VerificationAnswer:
    transaction_id: str
    results: dict[str, PersonResult]  # by normalised dni


@dataclass(frozen=True, slots=True)
class ChangesAnswer:
    until: datetime  # fechaHasta: the feed is complete up to here
    entries: tuple[FeedEntry, ...]
    more: bool  # hayMas: another page follows from ``until``


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _envelope(body: str, username: str, password: str) -> bytes:
    header = ""
    if username:
        header = (
            f'<wsse:Security xmlns:wsse="{WSSE_NS}"><wsse:UsernameToken>'
            f"<wsse:Username>{escape(username)}</wsse:Username>"
            f"<wsse:Password>{escape(password)}</wsse:Password>"
            "</wsse:UsernameToken></wsse:Security>"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<soapenv:Envelope xmlns:soapenv="{SOAP_NS}" xmlns:r="{NS}">'
        f"<soapenv:Header>{header}</soapenv:Header><soapenv:Body>{body}</soapenv:Body>"
        "</soapenv:Envelope>"
    ).encode()


def verify_request(
    request_id: str, persons: Sequence[PersonQuery], username: str = "", password: str = ""
) -> bytes:
    if not 1 <= len(persons) <= MAX_PERSONS:
        raise ValueError("verificarRGIAJ takes 1-100 persons")
    parts = [f"<r:verificarRGIAJ><r:idPeticion>{escape(request_id)}</r:idPeticion>"]
    for p in persons:
        birth = p.fecha_nacimiento.isoformat() if p.fecha_nacimiento else ""
        parts.append(
            f"<r:persona><r:dni>{escape(p.dni)}</r:dni><r:nombre>{escape(p.nombre)}</r:nombre>"
            f"<r:apellido1>{escape(p.apellido1)}</r:apellido1>"
            f"<r:apellido2>{escape(p.apellido2)}</r:apellido2>"
            f"<r:fechaNacimiento>{birth}</r:fechaNacimiento>"
            f"<r:numSoporte>{escape(p.num_soporte)}</r:numSoporte></r:persona>"
        )
    parts.append("</r:verificarRGIAJ>")
    return _envelope("".join(parts), username, password)


def changes_request(since: datetime | None, username: str = "", password: str = "") -> bytes:
    since_text = _iso(since) if since is not None else ""
    body = (
        f"<r:verificarCambiosRGIAJ><r:fechaDesde>{since_text}</r:fechaDesde>"
        "</r:verificarCambiosRGIAJ>"
    )
    return _envelope(body, username, password)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(elem: ET.Element, name: str) -> ET.Element | None:
    for c in elem:
        if _local(c.tag) == name:
            return c
    return None


def _text(elem: ET.Element, name: str, limit: int = 64) -> str:
    c = _child(elem, name)
    text = (c.text or "").strip() if c is not None else ""
    if len(text) > limit or any(ord(ch) < 32 for ch in text):
        raise RegistryClientError(
            "field too long or with control characters", code=RegistryErrorCode.REGISTRY_MALFORMED
        )
    return text


def _body_operation(payload: bytes, expected: str) -> ET.Element:
    if b"<!DOCTYPE" in payload or b"<!ENTITY" in payload:
        raise RegistryClientError("DOCTYPE in answer", code=RegistryErrorCode.REGISTRY_MALFORMED)
    try:
        root = ET.fromstring(payload)
    except ET.ParseError:
        raise RegistryClientError(
            "answer is not XML", code=RegistryErrorCode.REGISTRY_MALFORMED
        ) from None
    body = _child(root, "Body") if _local(root.tag) == "Envelope" else None
    if body is None or len(body) != 1:
        raise RegistryClientError("no SOAP body", code=RegistryErrorCode.REGISTRY_MALFORMED)
    op = body[0]
    if _local(op.tag) == "Fault":
        raise RegistryClientError(
            "SOAP fault " + _text(op, "faultcode"), code=RegistryErrorCode.REGISTRY_FAULT
        )
    if _local(op.tag) != expected:
        raise RegistryClientError("unexpected operation", code=RegistryErrorCode.REGISTRY_MALFORMED)
    return op


def parse_verify_response(payload: bytes, asked: Sequence[str]) -> VerificationAnswer:
    """Per-person results; an answer about someone not asked rejects the whole batch."""
    op = _body_operation(payload, "verificarRGIAJResponse")
    wanted = set(asked)
    results: dict[str, PersonResult] = {}
    for elem in op:
        if _local(elem.tag) != "resultado":
            continue
        dni = clean_number(_text(elem, "dni"))
        if dni is None or dni not in wanted:
            raise RegistryClientError(
                "answer for a person not asked about",
                code=RegistryErrorCode.REGISTRY_UNEXPECTED_PERSON,
            )
        code = _text(elem, "codigo")
        if code not in CODE_STATUS:
            raise RegistryClientError(
                "unknown result code", code=RegistryErrorCode.REGISTRY_MALFORMED
            )
        if dni in results:
            raise RegistryClientError(
                "two results for one person", code=RegistryErrorCode.REGISTRY_MALFORMED
            )
        results[dni] = PersonResult(dni, code, CODE_STATUS[code])
    return VerificationAnswer(_text(op, "idTransaccion"), results)


def parse_changes_response(payload: bytes) -> ChangesAnswer:
    op = _body_operation(payload, "verificarCambiosRGIAJResponse")
    try:
        until_text = _text(op, "fechaHasta")
        until = datetime.fromisoformat(until_text.replace("Z", "+00:00"))
        if until.tzinfo is None:
            raise ValueError(until_text)
        entries: list[FeedEntry] = []
        for elem in op:
            if _local(elem.tag) != "cambio":
                continue
            if len(entries) >= MAX_CHANGES_PER_PAGE:
                raise RegistryClientError(
                    "too many changes", code=RegistryErrorCode.REGISTRY_MALFORMED
                )
            entries.append(
                feed_entry(_text(elem, "tipo"), _text(elem, "dni"), _text(elem, "fecha"))
            )
    except SnapshotError as exc:
        raise RegistryClientError(str(exc), code=exc.code) from None
    except ValueError:
        raise RegistryClientError(
            "bad fechaHasta", code=RegistryErrorCode.REGISTRY_MALFORMED
        ) from None
    return ChangesAnswer(until.astimezone(UTC), tuple(entries), _text(op, "hayMas") == "true")
