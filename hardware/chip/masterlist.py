"""The CSCA master list (ICAO 9303-12 §9): the issuing states' root certificates the casino
trusts for passive authentication, imported from a signed list such as the German BSI's.

A master list is a CMS SignedData over a ``CscaMasterList`` (``id-icao-cscaMasterList``).
It is accepted when its signature holds and its signer's certificate was issued by a CSCA
inside the list itself (the BSI list is signed that way). Its age is its signing time: a
list signed more than 90 days ago is stale (the status bar says so; the import refuses it).

The imported list lives in the visitor file's data folder as ``chip/masterlist.der``
(public certificates, no personal data); its SHA-256 goes to the audit entry
``CHIP_MASTERLIST_IMPORTED`` in the same transaction. A stored list whose digest is not the
audited one is refused at load (``MASTERLIST_TAMPERED``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import unique
from pathlib import Path
from typing import Any, Protocol, TypeVar

from admission.atomic_file import write_atomically
from admission.codes import Code
from hardware.chip.cms import (
    OID_MASTER_LIST,
    CmsError,
    aware,
    cert_signed_by,
    country_of,
    load_certificate,
    parse_signed_data,
)
from hardware.chip.document_pki import CscaMasterList
from hardware.chip.passive import TrustStore

__all__ = [
    "AUDIT_IMPORTED",
    "MASTER_LIST_FILE",
    "MAX_BYTES",
    "STALE_AFTER",
    "MasterList",
    "MasterListCode",
    "MasterListError",
    "TrustState",
    "audited_digest",
    "import_master_list",
    "load_master_list",
    "load_trust",
    "trust_state",
]

T = TypeVar("T")
AUDIT_IMPORTED = "CHIP_MASTERLIST_IMPORTED"
MASTER_LIST_FILE = Path("chip") / "masterlist.der"  # inside the data folder
STALE_AFTER = timedelta(days=90)
MAX_BYTES = 16 * 1024 * 1024  # the BSI list is under 1 MB; a larger file is no list
_CLOCK_SKEW = timedelta(days=1)


@unique
class MasterListCode(Code):
    MALFORMED = "MASTERLIST_MALFORMED"  # not a well-formed signed object
    NOT_A_LIST = "MASTERLIST_NOT_A_LIST"  # signed, but not a CSCA master list (an SOD...)
    SIGNATURE_INVALID = "MASTERLIST_SIGNATURE_INVALID"  # its signature does not hold
    SIGNER_UNTRUSTED = "MASTERLIST_SIGNER_UNTRUSTED"  # no CSCA of the list issued its signer
    STALE = "MASTERLIST_STALE"  # signed more than 90 days ago
    NOT_IMPORTED = "MASTERLIST_NOT_IMPORTED"  # none imported yet
    TAMPERED = "MASTERLIST_TAMPERED"  # the stored file is not the one the audit recorded


class MasterListError(Exception):
    """A master list refused: ``code`` says why."""

    def __init__(self, code: MasterListCode, detail: str = "") -> None:
        super().__init__(f"{code.value}: {detail}" if detail else code.value)
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class MasterList:
    cscas: tuple[bytes, ...]  # DER certificates, as listed
    signer_subject: str
    signed_at: datetime
    countries: tuple[str, ...]  # the CSCAs' C= (ISO 3166 alpha-2), sorted, once each
    sha256: str = ""  # hex digest of the list's bytes

    def is_stale(self, at: datetime) -> bool:
        """Signed more than 90 days before ``at``."""
        return aware(at) - self.signed_at > STALE_AFTER

    def trust(self) -> TrustStore:
        return TrustStore(cscas=self.cscas)


def load_master_list(der: bytes, at: datetime) -> MasterList:
    """The master list in ``der``, its signature and its signer's chain checked; raises
    :class:`MasterListError`. A stale list loads (:meth:`MasterList.is_stale` says so);
    one signed after ``at`` (beyond a day of clock skew) is refused as malformed."""
    try:
        return _loaded(der, at)
    except MasterListError:
        raise
    except Exception as err:  # a file from outside reaches the libraries' lazy parsers
        raise MasterListError(MasterListCode.MALFORMED, type(err).__name__) from err


def _loaded(der: bytes, at: datetime) -> MasterList:
    if len(der) > MAX_BYTES:
        raise MasterListError(MasterListCode.MALFORMED, "too large")
    try:
        signed = parse_signed_data(der)
    except CmsError as err:
        raise MasterListError(MasterListCode.MALFORMED, str(err)) from err
    if signed.content_type != OID_MASTER_LIST:
        raise MasterListError(MasterListCode.NOT_A_LIST, signed.content_type)
    try:
        listed = CscaMasterList.load(signed.content, strict=True)
        cscas = tuple(bytes(c.dump()) for c in listed["certList"])
    except (ValueError, TypeError, KeyError) as err:
        raise MasterListError(MasterListCode.MALFORMED, "certificate list") from err
    if not cscas:
        raise MasterListError(MasterListCode.MALFORMED, "no certificate")
    if signed.signing_time is None:
        raise MasterListError(MasterListCode.MALFORMED, "no signing time")
    signed_at = aware(signed.signing_time)
    if signed_at > aware(at) + _CLOCK_SKEW:
        raise MasterListError(MasterListCode.MALFORMED, "signed in the future")
    if signed.signer is None or not signed.signature_holds():
        raise MasterListError(MasterListCode.SIGNATURE_INVALID)
    signer = load_certificate(signed.signer)
    if signer is None:
        raise MasterListError(MasterListCode.SIGNATURE_INVALID)
    loaded = [(der_, cert) for der_ in cscas if (cert := load_certificate(der_)) is not None]
    issuers = [d for d, c in loaded if c.subject == signer.issuer]
    if not any(cert_signed_by(signed.signer, d) for d in issuers):
        raise MasterListError(MasterListCode.SIGNER_UNTRUSTED)
    if not (
        aware(signer.not_valid_before_utc) - _CLOCK_SKEW
        <= signed_at
        <= aware(signer.not_valid_after_utc)
    ):
        raise MasterListError(MasterListCode.SIGNER_UNTRUSTED, "signer not valid when it signed")
    countries = tuple(sorted({c for _, cert in loaded if (c := country_of(cert.subject))}))
    return MasterList(
        cscas=cscas,
        signer_subject=signer.subject.rfc4514_string(),
        signed_at=signed_at,
        countries=countries,
        sha256=hashlib.sha256(der).hexdigest(),
    )


# -- the imported list: the data folder and the audit ------------------------------------


class AuditedStore(Protocol):
    """The visitor file's transactions (``SqlCipherStore`` and ``PgStore``): its audit chain
    (db/tx.py)."""

    def write(self, work: Callable[[Any], T]) -> T: ...

    def read(self, work: Callable[[Any], T]) -> T: ...


def _last_import(tx: Any) -> str | None:
    row = tx.one(
        "SELECT details FROM audit WHERE action = ? ORDER BY seq DESC LIMIT 1", (AUDIT_IMPORTED,)
    )
    if row is None:
        return None
    details = json.loads(str(row[0]))
    digest = details.get("sha256") if isinstance(details, dict) else None
    return digest if isinstance(digest, str) else None


def audited_digest(store: AuditedStore) -> str | None:
    """The SHA-256 of the last imported list, as the audit recorded it; None if none."""
    return store.read(_last_import)


def import_master_list(
    store: AuditedStore, data_folder: Path, der: bytes, actor: str, at: datetime
) -> MasterList:
    """Check ``der`` and keep it as the casino's master list: refused with its code (before
    anything is written) when invalid or stale; else audited (``CHIP_MASTERLIST_IMPORTED``:
    its SHA-256, the CSCA count, its signing time) and written atomically in the same
    transaction (a failed write leaves no audit entry)."""
    found = load_master_list(der, at)
    if found.is_stale(at):
        raise MasterListError(MasterListCode.STALE, found.signed_at.isoformat())
    path = data_folder / MASTER_LIST_FILE
    details = {
        "sha256": found.sha256,
        "cscas": str(len(found.cscas)),
        "countries": str(len(found.countries)),
        "signed_at": found.signed_at.isoformat(),
    }

    def work(tx: Any) -> None:
        tx.audit(actor, AUDIT_IMPORTED, "chip-masterlist", at, details)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomically(path, der)

    store.write(work)
    return found


@dataclass(frozen=True, slots=True)
class TrustState:
    """What the desk trusts and the status bar shows: ``trust`` None when no list can be
    used (``code`` says why); a stale list is used and says ``STALE``."""

    trust: TrustStore | None
    master_list: MasterList | None
    code: MasterListCode | None


def trust_state(data_folder: Path, audited: str | None, at: datetime) -> TrustState:
    """The imported list of ``data_folder`` checked against the ``audited`` SHA-256
    (:func:`audited_digest`) and loaded."""
    path = data_folder / MASTER_LIST_FILE
    try:
        der = path.read_bytes()
    except FileNotFoundError:
        return TrustState(None, None, MasterListCode.NOT_IMPORTED)
    except OSError:
        return TrustState(None, None, MasterListCode.MALFORMED)
    if audited is None or hashlib.sha256(der).hexdigest() != audited:
        return TrustState(None, None, MasterListCode.TAMPERED)
    try:
        found = load_master_list(der, at)
    except MasterListError as err:
        return TrustState(None, None, err.code)
    return TrustState(found.trust(), found, MasterListCode.STALE if found.is_stale(at) else None)


def load_trust(data_folder: Path, store: AuditedStore, at: datetime) -> TrustStore | None:
    """The desk's trust store: the imported master list, if it is the audited one and its
    signature holds (a stale one too); None otherwise (the chip is then NOT_VERIFIABLE,
    ``NO_MASTER_LIST``)."""
    return trust_state(data_folder, audited_digest(store), at).trust
