"""Passive authentication (ICAO 9303-11 §5.1, 9303-12): the issuing state signed these
data groups.

EF.SOD is a CMS SignedData whose content, the LDSSecurityObject, lists the hash of every
data group. It is genuine when its Document Signer (DSC, embedded in the SOD) signed it,
the DSC chains to a CSCA the casino trusts (from an imported master list) of the same
country as the document's issuer, the DSC was valid and is not on that CSCA's CRL, and
every data group read hashes to its signed value.

The checks run in this order, the first failing one giving the code: SOD parse
(``SOD_MALFORMED``), the SOD's signature (``SOD_SIGNATURE_INVALID``), a trust store
(``NO_MASTER_LIST``), a CSCA named as the DSC's issuer (``CSCA_UNKNOWN``), its signature
on the DSC (``DSC_NOT_SIGNED_BY_CSCA``), the countries (``CSCA_COUNTRY_MISMATCH``), the
DSC's validity (``DSC_EXPIRED``), the CRL (``DSC_REVOKED``), DG1 and DG2 present and
hashed (``DG_MISSING``), every hash (``DG_HASH_MISMATCH``). The hashes are checked even
when the trust fails: a hash that fails wins over a missing list or CSCA (a forgery is a
forgery without a master list too).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from asn1crypto import crl as acrl  # type: ignore[import-untyped]
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from admission.chip import ChipCode, status_of
from hardware.chip.cms import (
    OID_LDS_SECURITY_OBJECT,
    CmsError,
    SignedContent,
    aware,
    cert_signed_by,
    country_of,
    digest,
    load_certificate,
    parse_signed_data,
    verify_signature,
)
from hardware.chip.countries import icao_country
from hardware.chip.lds import LdsError, LdsSecurityObject, dg1_mrz

__all__ = ["PassiveResult", "TrustStore", "verify_document"]

# a master list holds some 500 CSCAs: each is read once per process, not once per document
_csca = functools.lru_cache(maxsize=4096)(load_certificate)
_REQUIRED = (1, 2)  # DG1 (the MRZ) and DG2 (the face): what the desk compares


@dataclass(frozen=True, slots=True)
class TrustStore:
    """The CSCAs the casino trusts (DER certificates, from a master list) and the CRLs at
    hand (DER)."""

    cscas: tuple[bytes, ...]
    crls: tuple[bytes, ...] = ()


@dataclass(frozen=True, slots=True)
class PassiveResult:
    code: ChipCode | None  # None: the signature, the chain and every hash hold
    issuer: str  # the DSC's country as an ICAO code ("ESP", "D"); "" unknown
    dsc_subject: str
    csca_subject: str
    hashed: tuple[int, ...]  # the data groups whose hashes were checked (and held)


def _authority_key_id(cert: x509.Certificate) -> bytes | None:
    try:
        ext = cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier)
    except (x509.ExtensionNotFound, x509.DuplicateExtension, ValueError):
        return None
    return ext.value.key_identifier


def _subject_key_id(cert: x509.Certificate) -> bytes | None:
    try:
        return cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
    except (x509.ExtensionNotFound, x509.DuplicateExtension, ValueError):
        return None


def _document_issuer(groups: Mapping[int, bytes]) -> str:
    """The issuing state of DG1's MRZ (``"ESP"``, ``"D"``); "" when DG1 is not at hand."""
    if 1 not in groups:
        return ""
    try:
        mrz = dg1_mrz(groups[1])
    except LdsError:
        return ""
    return mrz[2:5].replace("<", "")


def _revoked(dsc: x509.Certificate, csca_der: bytes, crls: tuple[bytes, ...], at: datetime) -> bool:
    """The DSC is on a CRL its CSCA signed (a CRL another key signed is ignored)."""
    for der in crls:
        try:
            parsed = acrl.CertificateList.load(der)
            issuer = x509.load_der_x509_crl(der).issuer
            if issuer != dsc.issuer:
                continue
            if not verify_signature(
                csca_der,
                parsed["signature_algorithm"],
                parsed["signature"].native,
                parsed["tbs_cert_list"].dump(),
            ):
                continue
            for entry in parsed["tbs_cert_list"]["revoked_certificates"] or []:
                if entry["user_certificate"].native == dsc.serial_number:
                    when = entry["revocation_date"].native
                    if not isinstance(when, datetime) or aware(when) <= at:
                        return True
        except (ValueError, TypeError, KeyError):
            continue
    return False


def _trust_code(
    dsc: x509.Certificate,
    trust: TrustStore | None,
    issuer: str,
    at: datetime,
) -> tuple[ChipCode | None, str]:
    """(the chain's code, the CSCA's subject)."""
    if trust is None or not trust.cscas:
        return ChipCode.NO_MASTER_LIST, ""
    named = [
        (der, cert)
        for der in trust.cscas
        if (cert := _csca(der)) is not None and cert.subject == dsc.issuer
    ]
    if not named:
        return ChipCode.CSCA_UNKNOWN, ""
    key_id = _authority_key_id(dsc)
    if key_id is not None:  # key rollover: the CSCA whose key the DSC names first
        named.sort(key=lambda pair: _subject_key_id(pair[1]) != key_id)
    dsc_der = dsc.public_bytes(Encoding.DER)
    signer = next(((der, cert) for der, cert in named if cert_signed_by(dsc_der, der)), None)
    if signer is None:
        return ChipCode.DSC_NOT_SIGNED_BY_CSCA, named[0][1].subject.rfc4514_string()
    csca_der, csca = signer
    csca_subject = csca.subject.rfc4514_string()
    country = country_of(csca.subject)
    if country != country_of(dsc.subject) or (issuer and icao_country(country) != issuer):
        return ChipCode.CSCA_COUNTRY_MISMATCH, csca_subject
    if not (aware(dsc.not_valid_before_utc) <= at <= aware(dsc.not_valid_after_utc)):
        return ChipCode.DSC_EXPIRED, csca_subject
    if _revoked(dsc, csca_der, trust.crls, at):
        return ChipCode.DSC_REVOKED, csca_subject
    return None, csca_subject


def _hash_code(
    lds: LdsSecurityObject, groups: Mapping[int, bytes]
) -> tuple[ChipCode | None, tuple[int, ...]]:
    """(the hashes' code, the data groups whose hash held)."""
    hash_name = lds["hashAlgorithm"]["algorithm"].native
    signed = {
        int(item["dataGroupNumber"].native): bytes(item["dataGroupHashValue"].native)
        for item in lds["dataGroupHashValues"]
    }
    held: list[int] = []
    mismatch = False
    for number in sorted(groups):
        expected = signed.get(number)
        if expected is None:
            continue  # a group the SOD does not cover proves nothing; DG1/DG2 checked below
        if digest(hash_name, groups[number]) == expected:
            held.append(number)
        else:
            mismatch = True
    if mismatch:
        return ChipCode.DG_HASH_MISMATCH, tuple(held)
    if any(n not in signed or n not in groups for n in _REQUIRED):
        return ChipCode.DG_MISSING, tuple(held)
    return None, tuple(held)


def verify_document(
    sod: bytes,
    groups: Mapping[int, bytes],
    trust: TrustStore | None,
    at: datetime,
) -> PassiveResult:
    """Passive authentication of ``groups`` (DG number -> the file as read) by EF.SOD
    ``sod`` against ``trust`` at ``at``; never raises: what the parsers cannot read in
    the chip's bytes (an exception of a library not caught by name) is a malformed SOD."""
    try:
        return _verified(sod, groups, trust, at)
    except Exception:  # untrusted bytes reach asn1crypto and cryptography's lazy parsers
        return PassiveResult(ChipCode.SOD_MALFORMED, "", "", "", ())


def _verified(
    sod: bytes, groups: Mapping[int, bytes], trust: TrustStore | None, at: datetime
) -> PassiveResult:
    at = aware(at)
    try:
        signed: SignedContent = parse_signed_data(sod, OID_LDS_SECURITY_OBJECT)
        lds = LdsSecurityObject.load(signed.content, strict=True)
        lds.native  # noqa: B018 - parse every field now
        dsc = load_certificate(signed.signer) if signed.signer is not None else None
    except (CmsError, ValueError, TypeError, KeyError):
        return PassiveResult(ChipCode.SOD_MALFORMED, "", "", "", ())
    if dsc is None:
        return PassiveResult(ChipCode.SOD_MALFORMED, "", "", "", ())
    issuer = icao_country(country_of(dsc.subject))
    dsc_subject = dsc.subject.rfc4514_string()
    try:
        hash_code, hashed = _hash_code(lds, groups)
    except (ValueError, TypeError, KeyError, CmsError):
        return PassiveResult(ChipCode.SOD_MALFORMED, issuer, dsc_subject, "", ())
    if not signed.signature_holds():
        return PassiveResult(ChipCode.SOD_SIGNATURE_INVALID, issuer, dsc_subject, "", hashed)
    trust_code, csca_subject = _trust_code(dsc, trust, _document_issuer(groups), at)
    code = trust_code
    if code is None or (hash_code is not None and status_of(code) is not status_of(hash_code)):
        code = hash_code if hash_code is not None else code
    return PassiveResult(code, issuer, dsc_subject, csca_subject, hashed)
