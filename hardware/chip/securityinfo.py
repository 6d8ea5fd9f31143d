"""The SecurityInfos of EF.CardAccess and DG14 (ICAO 9303-11 §9.2): which PACE and chip
authentication protocols a chip offers, with which curve, cipher and key.

Only what the reader needs is parsed (a small DER reader on :func:`sm.read_tlv`): a
PACEInfo of ECDH Generic Mapping with standardized domain parameters, a
ChipAuthenticationInfo of ECDH and its ChipAuthenticationPublicKeyInfo (a named curve or
explicit prime-field parameters). Anything else is skipped, as the standard says.
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec as _ec

from hardware.chip.crypto import CIPHERS, CipherSpec
from hardware.chip.ec import CURVES, Curve, curve_by_parameter_id, decode_point
from hardware.chip.sm import read_tlv, tlv

__all__ = [
    "ChipAuthKey",
    "PaceInfo",
    "build_card_access",
    "build_dg14",
    "ca_oid",
    "chip_auth_keys",
    "decode_oid",
    "encode_oid",
    "pace_infos",
    "pace_oid",
    "supported_pace",
]

_PACE_ECDH_GM = "0.4.0.127.0.7.2.2.4.2"  # id-PACE-ECDH-GM (§9.2.3)
_CA_ECDH = "0.4.0.127.0.7.2.2.3.2"  # id-CA-ECDH (§9.2.6)
_PK_ECDH = "0.4.0.127.0.7.2.2.1.2"  # id-PK-ECDH (§9.2.5)
_EC_PUBLIC_KEY = "1.2.840.10045.2.1"
_PRIME_FIELD = "1.2.840.10045.1.1"
# The last arc of the PACE and CA protocol OIDs: the cipher of the channel (§9.2.3).
_CIPHER_ARC = {1: "3DES", 2: "AES-128", 3: "AES-192", 4: "AES-256"}
_ARC_OF_CIPHER = {name: arc for arc, name in _CIPHER_ARC.items()}
_NAMED_CURVES = {
    "1.2.840.10045.3.1.7": "secp256r1",
    "1.3.132.0.34": "secp384r1",
    "1.3.132.0.35": "secp521r1",
    "1.3.36.3.3.2.8.1.1.7": "brainpoolP256r1",
    "1.3.36.3.3.2.8.1.1.11": "brainpoolP384r1",
    "1.3.36.3.3.2.8.1.1.13": "brainpoolP512r1",
}


def encode_oid(dotted: str) -> bytes:
    """The content octets of an OBJECT IDENTIFIER (X.690 §8.19)."""
    arcs = [int(a) for a in dotted.split(".")]
    out = bytearray((40 * arcs[0] + arcs[1],))
    for arc in arcs[2:]:
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        out += bytes(reversed(chunk))
    return bytes(out)


def decode_oid(content: bytes) -> str:
    if not content:
        raise ValueError("empty OID")
    first = content[0]
    arcs = [min(first // 40, 2), first - 40 * min(first // 40, 2)]
    value = 0
    for byte in content[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            arcs.append(value)
            value = 0
    return ".".join(str(a) for a in arcs)


def _der_int(value: int) -> bytes:
    return tlv(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))


def _children(data: bytes) -> list[tuple[int, bytes]]:
    out: list[tuple[int, bytes]] = []
    while data:
        tag, value, data = read_tlv(data)
        out.append((tag, value))
    return out


def pace_oid(cipher: CipherSpec) -> str:
    return f"{_PACE_ECDH_GM}.{_ARC_OF_CIPHER[cipher.name]}"


def ca_oid(cipher: CipherSpec) -> str:
    return f"{_CA_ECDH}.{_ARC_OF_CIPHER[cipher.name]}"


def _cipher_of(oid: str, family: str) -> CipherSpec | None:
    head, _, arc = oid.rpartition(".")
    if head != family or not arc.isdigit() or int(arc) not in _CIPHER_ARC:
        return None
    return CIPHERS[_CIPHER_ARC[int(arc)]]


@dataclass(frozen=True, slots=True)
class PaceInfo:
    """A PACEInfo we can run: ECDH Generic Mapping on a standardized curve."""

    oid: str
    version: int
    parameter_id: int
    curve: Curve
    cipher: CipherSpec


def _security_infos(data: bytes) -> list[tuple[str, list[tuple[int, bytes]]]]:
    """(protocol OID, the other fields) of each SecurityInfo of a SET (or DG14's 6E)."""
    tag, value, _ = read_tlv(data)
    if tag == 0x6E:
        tag, value, _ = read_tlv(value)
    if tag != 0x31:
        raise ValueError("SecurityInfos is not a SET")
    infos: list[tuple[str, list[tuple[int, bytes]]]] = []
    for item_tag, item in _children(value):
        if item_tag != 0x30:
            continue
        fields = _children(item)
        if not fields or fields[0][0] != 0x06:
            continue
        infos.append((decode_oid(fields[0][1]), fields[1:]))
    return infos


def pace_infos(card_access: bytes) -> list[PaceInfo]:
    """Every supported PACEInfo of EF.CardAccess, in the file's order; [] if unreadable."""
    try:
        infos = _security_infos(card_access)
    except ValueError:
        return []
    out: list[PaceInfo] = []
    for oid, fields in infos:
        cipher = _cipher_of(oid, _PACE_ECDH_GM)
        if cipher is None or not fields or fields[0][0] != 0x02:
            continue
        version = int.from_bytes(fields[0][1], "big")
        if version != 2 or len(fields) < 2 or fields[1][0] != 0x02:
            continue  # no parameterId: proprietary domain parameters, not supported
        parameter_id = int.from_bytes(fields[1][1], "big")
        curve = curve_by_parameter_id(parameter_id)
        if curve is not None:
            out.append(PaceInfo(oid, version, parameter_id, curve, cipher))
    return out


def supported_pace(card_access: bytes | None) -> PaceInfo | None:
    """The PACEInfo the reader runs: the strongest cipher, then the largest curve."""
    infos = pace_infos(card_access) if card_access else []
    if not infos:
        return None
    return max(infos, key=lambda i: (i.cipher.key_length, i.cipher.aes, i.curve.size))


def build_card_access(curve: Curve, cipher: CipherSpec) -> bytes:
    """EF.CardAccess offering PACE ECDH-GM with ``curve`` and ``cipher``."""
    info = tlv(0x06, encode_oid(pace_oid(cipher))) + _der_int(2) + _der_int(curve.parameter_id)
    return tlv(0x31, tlv(0x30, info))


# -- chip authentication (DG14) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChipAuthKey:
    """A chip authentication key of DG14 with the protocol to run it."""

    oid: str  # id-CA-ECDH-<cipher>
    cipher: CipherSpec
    curve: Curve
    public_point: tuple[int, int]
    key_id: int | None


def _curve_of_spki_parameters(tag: int, value: bytes) -> Curve:
    if tag == 0x06:
        name = _NAMED_CURVES.get(decode_oid(value))
        if name is None:
            raise ValueError("unsupported named curve")
        return CURVES[name]
    if tag != 0x30:
        raise ValueError("no EC domain parameters")
    fields = _children(value)
    field_id = _children(fields[1][1])
    if decode_oid(field_id[0][1]) != _PRIME_FIELD:
        raise ValueError("not a prime field")
    p = int.from_bytes(field_id[1][1], "big")
    ab = _children(fields[2][1])
    a, b = int.from_bytes(ab[0][1], "big"), int.from_bytes(ab[1][1], "big")
    base = fields[3][1]
    n = int.from_bytes(fields[4][1], "big")
    size = (p.bit_length() + 7) // 8
    if len(base) != 1 + 2 * size or base[0] != 0x04:
        raise ValueError("compressed or malformed base point")
    gx = int.from_bytes(base[1 : 1 + size], "big")
    gy = int.from_bytes(base[1 + size :], "big")
    for curve in CURVES.values():
        if (curve.p, curve.a, curve.b, curve.gx, curve.gy, curve.n) == (p, a, b, gx, gy, n):
            return curve
    return Curve("explicit", p, a, b, gx, gy, n, 0)


def chip_auth_keys(dg14: bytes) -> list[ChipAuthKey]:
    """The ECDH chip authentication keys of DG14 with their protocol (the
    ChipAuthenticationInfo of the same key id, or the only one); ValueError when DG14 is
    malformed. Without any ChipAuthenticationInfo the protocol is 3DES (9303-11 §9.2.6)."""
    infos = _security_infos(dg14)
    protocols: dict[int | None, CipherSpec] = {}
    keys: list[tuple[bytes, int | None]] = []
    for oid, fields in infos:
        cipher = _cipher_of(oid, _CA_ECDH)
        if cipher is not None:
            key_id = (
                int.from_bytes(fields[1][1], "big")
                if len(fields) > 1 and fields[1][0] == 0x02
                else None
            )
            protocols[key_id] = cipher
        elif oid == _PK_ECDH and fields and fields[0][0] == 0x30:
            key_id = (
                int.from_bytes(fields[1][1], "big")
                if len(fields) > 1 and fields[1][0] == 0x02
                else None
            )
            keys.append((fields[0][1], key_id))
    out: list[ChipAuthKey] = []
    for spki, key_id in keys:
        algorithm, bits = _children(spki)[:2]
        alg_fields = _children(algorithm[1])
        if decode_oid(alg_fields[0][1]) != _EC_PUBLIC_KEY or len(alg_fields) < 2:
            continue
        curve = _curve_of_spki_parameters(*alg_fields[1])
        point = decode_point(bits[1][1:], curve)  # a BIT STRING: its first byte is 00
        cipher = protocols.get(key_id) or (
            next(iter(protocols.values())) if len(protocols) == 1 else CIPHERS["3DES"]
        )
        out.append(ChipAuthKey(ca_oid(cipher), cipher, curve, point, key_id))
    return out


def build_dg14(curve: Curve, cipher: CipherSpec, private_key: bytes) -> bytes:
    """DG14 (tag 6E) with a ChipAuthenticationInfo and the public key of ``private_key``
    (a named-curve SubjectPublicKeyInfo)."""
    library = curve.library_curve()
    if library is None:
        raise ValueError("chip authentication keys are on a named curve")
    key = _ec.derive_private_key(int.from_bytes(private_key, "big"), library)
    spki = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    ca_info = tlv(0x30, tlv(0x06, encode_oid(ca_oid(cipher))) + _der_int(1))
    pk_info = tlv(0x30, tlv(0x06, encode_oid(_PK_ECDH)) + spki)
    members = sorted((ca_info, pk_info))  # DER: a SET's members in order
    return tlv(0x6E, tlv(0x31, b"".join(members)))
