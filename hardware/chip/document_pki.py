"""A realistic test and demo PKI for documents' chips, made at run time (never shipped keys).

A country's CSCA (self-signed, ``C=ES`` by default), a Document Signer (DSC) it issued,
EF.SODs over given data groups (SHA-256; ECDSA brainpoolP256r1, RSA-PSS or RSA PKCS#1
v1.5), the CSCA's CRL, and a CSCA master list (ICAO 9303-12 §9) signed by a list signer
issued by a CSCA inside the list. Overrides make each tampering case a test needs: an
expired DSC, a CSCA of another country, a revoked DSC, a DSC not signed by the CSCA, a
forged signature, a stale master list, a list signer outside the list.

Keys are made once per process (EC is cheap; the one RSA 2048 key is made on first use).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from asn1crypto import core, keys  # type: ignore[import-untyped]
from asn1crypto import x509 as ax509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from hardware.chip.cms import OID_LDS_SECURITY_OBJECT, OID_MASTER_LIST, digest, sign_content
from hardware.chip.ec import CURVES
from hardware.chip.lds import TAG_SOD, DataGroupHash, LdsSecurityObject, build_tlv
from hardware.chip.passive import TrustStore

__all__ = ["CscaMasterList", "DocumentPki", "build_master_list", "build_sod", "make_pki"]

_ML_SIGNER_EKU = x509.ObjectIdentifier("2.23.136.1.1.3")  # cscaMasterListSigningKey


class CertificateSet(core.SetOf):  # type: ignore[misc]
    _child_spec = ax509.Certificate


class CscaMasterList(core.Sequence):  # type: ignore[misc]
    """ICAO 9303-12 §9: ``CscaMasterList ::= SEQUENCE { version, certList SET OF Certificate }``."""

    _fields: ClassVar[list[tuple[Any, ...]]] = [
        ("version", core.Integer),
        ("certList", CertificateSet),
    ]


@functools.cache
def _ec_key(name: str) -> ec.EllipticCurvePrivateKey:
    del name  # one key per role name, cached for the process
    return ec.generate_private_key(ec.BrainpoolP256R1())


@functools.cache
def _rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _name(country: str, common: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, country),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Test Authority (not a state)"),
            x509.NameAttribute(NameOID.COMMON_NAME, common),
        ]
    )


def _cert(
    subject: x509.Name,
    issuer: x509.Name,
    public: Any,
    signer: Any,
    not_before: datetime,
    not_after: datetime,
    *,
    ca: bool,
    issuer_public: Any,
    serial: int,
    eku: x509.ObjectIdentifier | None = None,
) -> bytes:
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public)
        .serial_number(serial)
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public), critical=False
        )
        .add_extension(
            x509.KeyUsage(
                digital_signature=not ca,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=ca,
                crl_sign=ca,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
    )
    if eku is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([eku]), critical=False)
    return builder.sign(signer, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


def _explicit(cert_der: bytes, issuer_key: Any) -> bytes:
    """``cert_der`` (brainpoolP256r1) with its EC domain parameters spelt out instead of
    named (RFC 3279 ``specifiedCurve``, as Germany's certificates have them), signed
    again by ``issuer_key``."""
    cert = ax509.Certificate.load(cert_der)
    tbs = cert["tbs_certificate"]
    curve = CURVES["brainpoolP256r1"]
    size = curve.size
    domain = keys.SpecifiedECDomain(
        {
            "version": "ecdpVer1",
            "field_id": {"field_type": "prime_field", "parameters": core.Integer(curve.p)},
            "curve": {
                "a": (curve.a % curve.p).to_bytes(size, "big"),
                "b": curve.b.to_bytes(size, "big"),
            },
            "base": b"\x04" + curve.gx.to_bytes(size, "big") + curve.gy.to_bytes(size, "big"),
            "order": curve.n,
            "cofactor": 1,
        }
    )
    point = tbs["subject_public_key_info"]["public_key"].native
    tbs["subject_public_key_info"] = keys.PublicKeyInfo(
        {
            "algorithm": {
                "algorithm": "ec",
                "parameters": keys.ECDomainParameters(name="specified", value=domain),
            },
            "public_key": point,
        }
    )
    signed_part = tbs.dump(force=True)
    signature = issuer_key.sign(signed_part, ec.ECDSA(hashes.SHA256()))
    return bytes(
        ax509.Certificate(
            {
                "tbs_certificate": ax509.TbsCertificate.load(signed_part),
                "signature_algorithm": cert["signature_algorithm"],
                "signature_value": signature,
            }
        ).dump()
    )


def build_sod(
    groups: Mapping[int, bytes],
    dsc: bytes,
    key: Any,
    *,
    signing_time: datetime,
    hash_name: str = "sha256",
    pss: bool = False,
    forge_signature: bool = False,
    plain_ecdsa: bool = False,
) -> bytes:
    """EF.SOD (tag ``77``) over ``groups`` (DG number -> the file's bytes), signed by the
    DSC ``dsc`` (DER) with ``key``."""
    lds = LdsSecurityObject(
        {
            "version": 0,
            "hashAlgorithm": {"algorithm": hash_name},
            "dataGroupHashValues": [
                DataGroupHash({"dataGroupNumber": n, "dataGroupHashValue": digest(hash_name, data)})
                for n, data in sorted(groups.items())
            ],
        }
    )
    info = sign_content(
        OID_LDS_SECURITY_OBJECT,
        lds.dump(),
        dsc,
        key,
        signing_time=signing_time,
        hash_name=hash_name,
        pss=pss,
        forge_signature=forge_signature,
        plain_ecdsa=plain_ecdsa,
    )
    return build_tlv(TAG_SOD, info)


def build_master_list(
    cscas: tuple[bytes, ...],
    signer: bytes,
    key: Any,
    *,
    signed_at: datetime,
    content_type: str = OID_MASTER_LIST,
    forge_signature: bool = False,
) -> bytes:
    """A CSCA master list (a ContentInfo) holding ``cscas``, signed by ``signer``."""
    content = CscaMasterList(
        {"version": 0, "certList": [ax509.Certificate.load(c) for c in cscas]}
    ).dump()
    return sign_content(
        content_type,
        content,
        signer,
        key,
        signing_time=signed_at,
        forge_signature=forge_signature,
    )


@dataclass(frozen=True)
class DocumentPki:
    """A country's CSCA, its DSC and CRL, and what they sign. Make one with
    :func:`make_pki`."""

    country: str
    csca: bytes
    csca_key: Any
    dsc: bytes
    dsc_key: Any
    crl: bytes
    now: datetime
    pss: bool = False
    extra_cscas: tuple[bytes, ...] = field(default=())

    def sod(
        self,
        groups: Mapping[int, bytes],
        *,
        hash_name: str = "sha256",
        forge_signature: bool = False,
        plain_ecdsa: bool = False,
    ) -> bytes:
        """EF.SOD over ``groups`` signed by this DSC (``plain_ecdsa``: the signature as
        BSI TR-03111's plain ``r||s``, as German documents sign)."""
        return build_sod(
            groups,
            self.dsc,
            self.dsc_key,
            signing_time=self.now - timedelta(days=1),
            hash_name=hash_name,
            pss=self.pss,
            forge_signature=forge_signature,
            plain_ecdsa=plain_ecdsa,
        )

    def trust(self, *, with_crl: bool = True) -> TrustStore:
        """The :class:`~hardware.chip.passive.TrustStore` of this CSCA (and its CRL)."""
        return TrustStore(
            cscas=(self.csca, *self.extra_cscas), crls=(self.crl,) if with_crl else ()
        )

    def master_list(
        self,
        *,
        signed_at: datetime | None = None,
        signer_outside: bool = False,
        forge_signature: bool = False,
        content_type: str = OID_MASTER_LIST,
    ) -> bytes:
        """A master list holding this CSCA (and the extra ones), signed by a list signer
        this CSCA issued (``signer_outside``: a CSCA not in the list issued it)."""
        issuer_key = _ec_key("outside-csca") if signer_outside else self.csca_key
        issuer_name = (
            _name(self.country, "Outside CSCA")
            if signer_outside
            else x509.load_der_x509_certificate(self.csca).subject
        )
        signer_key = _ec_key("ml-signer")
        signer = _cert(
            _name(self.country, "Master List Signer"),
            issuer_name,
            signer_key.public_key(),
            issuer_key,
            self.now - timedelta(days=365),
            self.now + timedelta(days=3 * 365),
            ca=False,
            issuer_public=issuer_key.public_key(),
            serial=0x4D4C,
            eku=_ML_SIGNER_EKU,
        )
        return build_master_list(
            (self.csca, *self.extra_cscas),
            signer,
            signer_key,
            signed_at=signed_at or self.now - timedelta(days=1),
            content_type=content_type,
            forge_signature=forge_signature,
        )


def make_pki(
    country: str = "ES",
    *,
    now: datetime | None = None,
    algorithm: str = "ecdsa",
    dsc_expired: bool = False,
    csca_country: str | None = None,
    dsc_revoked: bool = False,
    dsc_not_signed_by_csca: bool = False,
    explicit_parameters: bool = False,
) -> DocumentPki:
    """A CSCA of ``country`` and a DSC it issued, valid at ``now``.

    ``algorithm``: the DSC's key, ``"ecdsa"`` (brainpoolP256r1), ``"rsa-pss"`` or ``"rsa"``.
    Tampering: ``dsc_expired`` (its validity ended a year ago), ``csca_country`` (the CSCA
    is of another country than the DSC), ``dsc_revoked`` (on the CSCA's CRL),
    ``dsc_not_signed_by_csca`` (named as the CSCA's but signed by another key).
    ``explicit_parameters``: the CSCA's and the (EC) DSC's keys carry their curve's
    parameters spelt out, as German certificates do.
    """
    at = now or datetime.now(UTC)
    root_country = csca_country or country
    csca_key = _ec_key(f"csca-{root_country}")
    csca_name = _name(root_country, f"CSCA {root_country} (test)")
    csca = _cert(
        csca_name,
        csca_name,
        csca_key.public_key(),
        csca_key,
        at - timedelta(days=2 * 365),
        at + timedelta(days=10 * 365),
        ca=True,
        issuer_public=csca_key.public_key(),
        serial=0xC5CA,
    )
    if explicit_parameters:
        csca = _explicit(csca, csca_key)
    dsc_key: Any = _rsa_key() if algorithm in ("rsa", "rsa-pss") else _ec_key("dsc")
    if dsc_expired:
        start, end = at - timedelta(days=4 * 365), at - timedelta(days=365)
    else:
        start, end = at - timedelta(days=90), at + timedelta(days=3 * 365)
    signing_key = _ec_key("impostor") if dsc_not_signed_by_csca else csca_key
    dsc_serial = 0xD5C1
    dsc = _cert(
        _name(country, "Document Signer (test)"),
        csca_name,
        dsc_key.public_key(),
        signing_key,
        start,
        end,
        ca=False,
        issuer_public=csca_key.public_key(),
        serial=dsc_serial,
    )
    if explicit_parameters and isinstance(dsc_key, ec.EllipticCurvePrivateKey):
        dsc = _explicit(dsc, signing_key)
    revoked = [
        x509.RevokedCertificateBuilder()
        .serial_number(dsc_serial if dsc_revoked else 0x0BAD)
        .revocation_date(at - timedelta(days=2))
        .build()
    ]
    crl_builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(csca_name)
        .last_update(at - timedelta(days=1))
        .next_update(at + timedelta(days=90))
    )
    for entry in revoked:
        crl_builder = crl_builder.add_revoked_certificate(entry)
    crl = crl_builder.sign(csca_key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)
    return DocumentPki(
        country=country,
        csca=csca,
        csca_key=csca_key,
        dsc=dsc,
        dsc_key=dsc_key,
        crl=crl,
        now=at,
        pss=algorithm == "rsa-pss",
    )
