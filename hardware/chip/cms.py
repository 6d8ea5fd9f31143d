"""CMS SignedData (RFC 5652) as ICAO 9303 uses it: EF.SOD and the CSCA master list.

Parsing and building with ``asn1crypto``; signatures with ``cryptography``: RSA PKCS#1
v1.5 and PSS, ECDSA (DER, or BSI TR-03111 plain ``r||s``) over NIST and Brainpool curves.
A signer signs the DER of its signed attributes (a SET OF, RFC 5652 §5.4), whose
``messageDigest`` is the hash of the encapsulated content.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from asn1crypto import algos, cms, core  # type: ignore[import-untyped]
from asn1crypto import x509 as ax509
from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.x509.oid import NameOID

from hardware.chip.ec import CURVES

__all__ = [
    "OID_LDS_SECURITY_OBJECT",
    "OID_MASTER_LIST",
    "CmsError",
    "SignedContent",
    "aware",
    "cert_signed_by",
    "country_of",
    "load_certificate",
    "parse_signed_data",
    "public_key",
    "sign_content",
    "verify_signature",
]

OID_LDS_SECURITY_OBJECT = "2.23.136.1.1.1"  # id-icao-mrtd-security-ldsSecurityObject
OID_MASTER_LIST = "2.23.136.1.1.2"  # id-icao-cscaMasterList
_PLAIN_ECDSA = {  # BSI TR-03111 §5.2.1 ecdsa-plain-signatures
    "0.4.0.127.0.7.1.1.4.1.1": "sha1",
    "0.4.0.127.0.7.1.1.4.1.2": "sha224",
    "0.4.0.127.0.7.1.1.4.1.3": "sha256",
    "0.4.0.127.0.7.1.1.4.1.4": "sha384",
    "0.4.0.127.0.7.1.1.4.1.5": "sha512",
}
_HASHES: dict[str, type[hashes.HashAlgorithm]] = {
    "sha1": hashes.SHA1,
    "sha224": hashes.SHA224,
    "sha256": hashes.SHA256,
    "sha384": hashes.SHA384,
    "sha512": hashes.SHA512,
}


def aware(moment: datetime) -> datetime:
    """``moment`` with a time zone (a naive one is taken as UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def load_certificate(der: bytes) -> x509.Certificate | None:
    """The certificate in ``der``, its names, serial and validity readable; None when it
    is not one."""
    try:
        cert = x509.load_der_x509_certificate(der)
        # cryptography parses these on first use: a malformed one fails here, not later
        cert.subject, cert.issuer, cert.serial_number  # noqa: B018
        cert.not_valid_before_utc, cert.not_valid_after_utc  # noqa: B018
    except (ValueError, x509.InvalidVersion):
        return None
    return cert


def country_of(name: x509.Name) -> str:
    """A name's ``C=`` in capitals (ISO 3166 alpha-2); "" when it has none."""
    found = name.get_attributes_for_oid(NameOID.COUNTRY_NAME)
    value = found[0].value if found else ""
    return value.upper() if isinstance(value, str) else ""


class CmsError(ValueError):
    """Not a well-formed CMS SignedData of the kind expected."""


def digest(name: str, data: bytes) -> bytes:
    """``data`` hashed with ``name`` (sha1, sha224, sha256, sha384, sha512)."""
    if name not in _HASHES:
        raise CmsError(f"hash {name} not supported")
    return hashlib.new(name, data).digest()


@dataclass(frozen=True, slots=True)
class SignedContent:
    """What a SignedData says, parsed; the signature not yet checked."""

    content_type: str  # dotted OID of the encapsulated content
    content: bytes
    certificates: tuple[bytes, ...]  # DER, as embedded
    signer: bytes | None  # the embedded certificate the SignerInfo names, if any
    digest_algorithm: str
    signed_attributes: bytes  # DER of the SET OF attributes, as signed
    message_digest: bytes | None
    signing_time: datetime | None
    signature_algorithm: algos.SignedDigestAlgorithm
    signature: bytes

    def digest_holds(self) -> bool:
        """The signed ``messageDigest`` is the hash of the content."""
        return self.message_digest is not None and self.message_digest == digest(
            self.digest_algorithm, self.content
        )

    def signature_holds(self) -> bool:
        """The signer's certificate signed the signed attributes, and they commit to the
        content."""
        if self.signer is None or not self.digest_holds():
            return False
        return verify_signature(
            self.signer,
            self.signature_algorithm,
            self.signature,
            self.signed_attributes,
            default_hash=self.digest_algorithm,
        )


def _strip_sod_tag(der: bytes) -> bytes:
    # EF.SOD wraps the ContentInfo in application tag 23 (0x77, ICAO 9303-10 §4.6.2)
    if der[:1] == b"\x77":
        value = core.Asn1Value.load(der, strict=False)
        return bytes(value.contents)
    return der


def _matches(cert: ax509.Certificate, sid: cms.SignerIdentifier) -> bool:
    if sid.name == "issuer_and_serial_number":
        return bool(
            cert.issuer == sid.chosen["issuer"]
            and cert.serial_number == sid.chosen["serial_number"].native
        )
    return bool(cert.key_identifier == sid.chosen.native)


def parse_signed_data(der: bytes, expected_type: str | None = None) -> SignedContent:
    """The SignedData in ``der`` (a ContentInfo, or EF.SOD's ``77`` wrapper), fully parsed;
    :class:`CmsError` when it is not one, or its content type is not ``expected_type``."""
    try:
        info = cms.ContentInfo.load(_strip_sod_tag(der), strict=True)
        if info["content_type"].native != "signed_data":
            raise CmsError("not a SignedData")
        signed = info["content"]
        # parse every field now but the certificates (a real DSC may carry an extension
        # asn1crypto reads strictly; cryptography judges the certificates)
        for name in ("version", "digest_algorithms", "encap_content_info", "signer_infos"):
            signed[name].native  # noqa: B018
        encap = signed["encap_content_info"]
        content_type = encap["content_type"].dotted
        if expected_type is not None and content_type != expected_type:
            raise CmsError(f"content type {content_type}, not {expected_type}")
        content = encap["content"].native
        if not isinstance(content, bytes):
            content = encap["content"].parsed.dump()
        certs = [c.chosen for c in signed["certificates"] or [] if c.name == "certificate"]
        infos = signed["signer_infos"]
        if len(infos) != 1:
            raise CmsError("not exactly one signer")
        info_ = infos[0]
        signer = next((c for c in certs if _matches(c, info_["sid"])), None)
        attrs = info_["signed_attrs"]
        if not attrs:
            raise CmsError("no signed attributes")
        found: dict[str, Any] = {}
        for attr in attrs:
            values = attr["values"]
            if len(values) == 1:
                found[attr["type"].native] = values[0].native
        if found.get("content_type") not in (content_type, encap["content_type"].native):
            raise CmsError("the signed content type differs")
        digest_algorithm = info_["digest_algorithm"]["algorithm"].native
        if digest_algorithm not in _HASHES:
            raise CmsError(f"hash {digest_algorithm} not supported")
        signed_attributes = b"\x31" + attrs.dump()[1:]  # [0] IMPLICIT -> SET OF (§5.4)
        message_digest = found.get("message_digest")
        signing_time = found.get("signing_time")
        return SignedContent(
            content_type=content_type,
            content=content,
            certificates=tuple(c.dump() for c in certs),
            signer=signer.dump() if signer is not None else None,
            digest_algorithm=digest_algorithm,
            signed_attributes=signed_attributes,
            message_digest=message_digest if isinstance(message_digest, bytes) else None,
            signing_time=signing_time if isinstance(signing_time, datetime) else None,
            signature_algorithm=info_["signature_algorithm"],
            signature=info_["signature"].native,
        )
    except CmsError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
        raise CmsError(f"malformed SignedData: {type(err).__name__}") from err


def _algorithm(alg: algos.SignedDigestAlgorithm, default_hash: str) -> tuple[str, str]:
    """(``"rsa"`` | ``"pss"`` | ``"ecdsa"`` | ``"ecdsa-plain"``, hash name)."""
    dotted = alg["algorithm"].dotted
    if dotted in _PLAIN_ECDSA:
        return "ecdsa-plain", _PLAIN_ECDSA[dotted]
    try:
        kind = alg.signature_algo
    except ValueError:
        # a bare key algorithm (rsaEncryption, id-ecPublicKey): the digest is the signer's
        kind = {"1.2.840.113549.1.1.1": "rsassa_pkcs1v15", "1.2.840.10045.2.1": "ecdsa"}.get(
            dotted, ""
        )
    try:
        hash_name = alg.hash_algo
    except ValueError:
        hash_name = default_hash
    names = {"rsassa_pkcs1v15": "rsa", "rsassa_pss": "pss", "ecdsa": "ecdsa"}
    if kind not in names:
        raise CmsError(f"signature algorithm {dotted} not supported")
    return names[kind], hash_name


def _explicit_ec_key(cert_der: bytes) -> ec.EllipticCurvePublicKey | None:
    """The key of a certificate whose EC domain parameters are spelt out (``specified``,
    as many CSCAs and DSCs have them, e.g. Germany's) when they are those of a named curve
    we know: ``cryptography`` loads named curves only."""
    info = ax509.Certificate.load(cert_der)["tbs_certificate"]["subject_public_key_info"]
    params = info["algorithm"]["parameters"]
    if info["algorithm"]["algorithm"].native != "ec" or params.name != "specified":
        return None
    domain = params.chosen
    if domain["field_id"]["field_type"].native != "prime_field":
        return None
    p = int(domain["field_id"]["parameters"].native)
    a = int.from_bytes(domain["curve"]["a"].native, "big")
    b = int.from_bytes(domain["curve"]["b"].native, "big")
    base = bytes(domain["base"].native)
    order = int(domain["order"].native)
    for curve in CURVES.values():
        size = curve.size
        generator = b"\x04" + curve.gx.to_bytes(size, "big") + curve.gy.to_bytes(size, "big")
        library = curve.library_curve()
        if (curve.p, curve.a % curve.p, curve.b, curve.n) == (p, a % p, b, order) and (
            base == generator and library is not None
        ):
            point = info["public_key"].native
            return ec.EllipticCurvePublicKey.from_encoded_point(library, bytes(point))
    return None


def public_key(cert_der: bytes) -> Any:
    """The public key of the certificate ``cert_der`` (RSA or EC, named or explicit
    parameters of a known curve); ValueError when it has none we can use."""
    cert = load_certificate(cert_der)
    if cert is None:
        raise ValueError("not a certificate")
    try:
        return cert.public_key()
    except (ValueError, UnsupportedAlgorithm):
        try:
            found = _explicit_ec_key(cert_der)
        except (ValueError, TypeError, KeyError) as err:
            raise ValueError("public key not usable") from err
        if found is None:
            raise ValueError("public key not usable") from None
        return found


def verify_signature(
    cert_der: bytes,
    alg: algos.SignedDigestAlgorithm,
    signature: bytes,
    data: bytes,
    *,
    default_hash: str = "sha256",
) -> bool:
    """``signature`` over ``data`` holds for the public key of ``cert_der``."""
    try:
        key = public_key(cert_der)
        kind, hash_name = _algorithm(alg, default_hash)
        chosen = _HASHES[hash_name]()
        if kind in ("rsa", "pss"):
            if not isinstance(key, rsa.RSAPublicKey):
                return False
            if kind == "rsa":
                key.verify(signature, data, padding.PKCS1v15(), chosen)
            else:
                params = alg["parameters"]
                mgf_hash = params["mask_gen_algorithm"]["parameters"]["algorithm"].native
                salt = params["salt_length"].native
                pss = padding.PSS(mgf=padding.MGF1(_HASHES[mgf_hash]()), salt_length=salt)
                key.verify(signature, data, pss, chosen)
            return True
        if not isinstance(key, ec.EllipticCurvePublicKey):
            return False
        if kind == "ecdsa-plain":
            half = len(signature) // 2
            if not half or len(signature) % 2:
                return False
            r = int.from_bytes(signature[:half], "big")
            s = int.from_bytes(signature[half:], "big")
            signature = encode_dss_signature(r, s)
        key.verify(signature, data, ec.ECDSA(chosen))
        return True
    except (InvalidSignature, UnsupportedAlgorithm, CmsError, ValueError, KeyError, TypeError):
        return False


def cert_signed_by(cert_der: bytes, issuer_der: bytes) -> bool:
    """``issuer_der``'s key signed the certificate ``cert_der``."""
    try:
        cert = ax509.Certificate.load(cert_der)
        return verify_signature(
            issuer_der,
            cert["signature_algorithm"],
            cert["signature_value"].native,
            cert["tbs_certificate"].dump(),
        )
    except (ValueError, TypeError, KeyError):
        return False


# -- building (the test PKI, the demo, the virtual chip) -------------------------------------


def _sign(key: Any, data: bytes, hash_name: str, pss: bool) -> bytes:
    chosen = _HASHES[hash_name]()
    if isinstance(key, rsa.RSAPrivateKey):
        if pss:
            salt = chosen.digest_size
            return key.sign(data, padding.PSS(padding.MGF1(chosen), salt), chosen)
        return key.sign(data, padding.PKCS1v15(), chosen)
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return key.sign(data, ec.ECDSA(chosen))
    raise CmsError("a signing key is RSA or EC")


def signature_algorithm(key: Any, hash_name: str, pss: bool) -> algos.SignedDigestAlgorithm:
    """The AlgorithmIdentifier of what :func:`_sign` makes with ``key``."""
    if isinstance(key, rsa.RSAPrivateKey) and pss:
        params = algos.RSASSAPSSParams(
            {
                "hash_algorithm": {"algorithm": hash_name},
                "mask_gen_algorithm": {
                    "algorithm": "mgf1",
                    "parameters": {"algorithm": hash_name},
                },
                "salt_length": _HASHES[hash_name]().digest_size,
                "trailer_field": 1,
            }
        )
        return algos.SignedDigestAlgorithm({"algorithm": "rsassa_pss", "parameters": params})
    suffix = "rsa" if isinstance(key, rsa.RSAPrivateKey) else "ecdsa"
    return algos.SignedDigestAlgorithm({"algorithm": f"{hash_name}_{suffix}"})


def sign_content(
    content_type: str,
    content: bytes,
    signer_der: bytes,
    key: Any,
    *,
    signing_time: datetime,
    hash_name: str = "sha256",
    pss: bool = False,
    certificates: tuple[bytes, ...] | None = None,
    forge_signature: bool = False,
    plain_ecdsa: bool = False,
) -> bytes:
    """A ContentInfo with a SignedData over ``content`` signed by ``key`` (whose
    certificate is ``signer_der``, embedded with ``certificates``). ``forge_signature``
    flips a bit of the signature: a test of the verifier. ``plain_ecdsa``: an EC key's
    signature as BSI TR-03111's plain ``r||s`` (``ecdsa-plain-SHA*``) instead of DER."""
    signer = ax509.Certificate.load(signer_der)
    attrs = cms.CMSAttributes(
        [
            cms.CMSAttribute({"type": "content_type", "values": [content_type]}),
            cms.CMSAttribute(
                {"type": "signing_time", "values": [cms.Time({"utc_time": signing_time})]}
            ),
            cms.CMSAttribute({"type": "message_digest", "values": [digest(hash_name, content)]}),
        ]
    )
    signature = _sign(key, attrs.dump(), hash_name, pss)
    algorithm = signature_algorithm(key, hash_name, pss)
    if plain_ecdsa and isinstance(key, ec.EllipticCurvePrivateKey):
        r, s_ = decode_dss_signature(signature)
        size = (key.curve.key_size + 7) // 8
        signature = r.to_bytes(size, "big") + s_.to_bytes(size, "big")
        plain = next(oid for oid, name in _PLAIN_ECDSA.items() if name == hash_name)
        algorithm = algos.SignedDigestAlgorithm({"algorithm": plain})
    if forge_signature:
        signature = signature[:-8] + bytes([signature[-8] ^ 0x01]) + signature[-7:]
    info = cms.SignerInfo(
        {
            "version": "v1",
            "sid": cms.SignerIdentifier(
                {
                    "issuer_and_serial_number": {
                        "issuer": signer.issuer,
                        "serial_number": signer.serial_number,
                    }
                }
            ),
            "digest_algorithm": {"algorithm": hash_name},
            "signed_attrs": attrs,
            "signature_algorithm": algorithm,
            "signature": signature,
        }
    )
    embedded = (signer_der,) if certificates is None else certificates
    signed = cms.SignedData(
        {
            "version": "v3",
            "digest_algorithms": [{"algorithm": hash_name}],
            "encap_content_info": {"content_type": content_type, "content": content},
            "certificates": [ax509.Certificate.load(c) for c in embedded],
            "signer_infos": [info],
        }
    )
    return bytes(cms.ContentInfo({"content_type": "signed_data", "content": signed}).dump())
