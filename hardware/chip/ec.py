"""Prime-field elliptic curve arithmetic for PACE's Generic Mapping (ICAO 9303-11 §4.4.3.3).

The mapping needs what the ``cryptography`` library does not offer: the point ``H`` of
the mapping's key agreement (its y too, not only the x of an ECDH secret), the new
generator ``G' = s*G + H``, and keys on ``G'``. Points are affine ``(x, y)`` tuples
outside and Jacobian coordinates inside; the curves are short Weierstrass ``y^2 = x^3 +
a*x + b`` over GF(p) with cofactor 1.

Not constant time: the terminal's secrets here are ephemeral and live for one PACE run
inside the desk (no attacker times a reader's scalar multiplications), and the chip side
serves the tests' virtual chip only. Do not reuse this for long-term keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric import ec as _ec

__all__ = [
    "CURVES",
    "INFINITY",
    "Curve",
    "Point",
    "add",
    "curve_by_name",
    "curve_by_parameter_id",
    "decode_point",
    "encode_point",
    "is_on_curve",
    "multiply",
    "scalar_from_random",
]

Point = tuple[int, int] | None  # None is the point at infinity
INFINITY: Point = None


@dataclass(frozen=True, slots=True)
class Curve:
    name: str
    p: int
    a: int
    b: int
    gx: int
    gy: int
    n: int
    parameter_id: int  # the standardized domain parameters' id (9303-11 §9.5.1), 0: none

    @property
    def size(self) -> int:
        """Bytes of one coordinate."""
        return (self.p.bit_length() + 7) // 8

    @property
    def generator(self) -> tuple[int, int]:
        return (self.gx, self.gy)

    def library_curve(self) -> _ec.EllipticCurve | None:
        """The ``cryptography`` curve with this generator, None for a curve it lacks."""
        factory = _LIBRARY.get(self.name)
        return factory() if factory is not None else None


def _h(text: str) -> int:
    return int(text, 16)


CURVES: dict[str, Curve] = {
    "secp256r1": Curve(
        "secp256r1",
        _h("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"),
        _h("ffffffff00000001000000000000000000000000fffffffffffffffffffffffc"),
        _h("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"),
        _h("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"),
        _h("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"),
        _h("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"),
        12,
    ),
    "secp384r1": Curve(
        "secp384r1",
        _h(
            "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe"
            "ffffffff0000000000000000ffffffff"
        ),
        _h(
            "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe"
            "ffffffff0000000000000000fffffffc"
        ),
        _h(
            "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875a"
            "c656398d8a2ed19d2a85c8edd3ec2aef"
        ),
        _h(
            "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a38"
            "5502f25dbf55296c3a545e3872760ab7"
        ),
        _h(
            "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c0"
            "0a60b1ce1d7e819d7a431d7c90ea0e5f"
        ),
        _h(
            "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf"
            "581a0db248b0a77aecec196accc52973"
        ),
        15,
    ),
    "secp521r1": Curve(
        "secp521r1",
        (1 << 521) - 1,
        (1 << 521) - 4,
        _h(
            "51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109"
            "e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00"
        ),
        _h(
            "c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3d"
            "baa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66"
        ),
        _h(
            "11839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e6"
            "62c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650"
        ),
        _h(
            "1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            "a51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409"
        ),
        18,
    ),
    "brainpoolP256r1": Curve(
        "brainpoolP256r1",
        _h("a9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377"),
        _h("7d5a0975fc2c3057eef67530417affe7fb8055c126dc5c6ce94a4b44f330b5d9"),
        _h("26dc5c6ce94a4b44f330b5d9bbd77cbf958416295cf7e1ce6bccdc18ff8c07b6"),
        _h("8bd2aeb9cb7e57cb2c4b482ffc81b7afb9de27e1e3bd23c23a4453bd9ace3262"),
        _h("547ef835c3dac4fd97f8461a14611dc9c27745132ded8e545c1d54c72f046997"),
        _h("a9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a7"),
        13,
    ),
    "brainpoolP384r1": Curve(
        "brainpoolP384r1",
        _h(
            "8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b412b1da197fb71123"
            "acd3a729901d1a71874700133107ec53"
        ),
        _h(
            "7bc382c63d8c150c3c72080ace05afa0c2bea28e4fb22787139165efba91f90f"
            "8aa5814a503ad4eb04a8c7dd22ce2826"
        ),
        _h(
            "04a8c7dd22ce28268b39b55416f0447c2fb77de107dcd2a62e880ea53eeb62d5"
            "7cb4390295dbc9943ab78696fa504c11"
        ),
        _h(
            "1d1c64f068cf45ffa2a63a81b7c13f6b8847a3e77ef14fe3db7fcafe0cbd10e8"
            "e826e03436d646aaef87b2e247d4af1e"
        ),
        _h(
            "8abe1d7520f9c2a45cb1eb8e95cfd55262b70b29feec5864e19c054ff9912928"
            "0e4646217791811142820341263c5315"
        ),
        _h(
            "8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b31f166e6cac0425a7"
            "cf3ab6af6b7fc3103b883202e9046565"
        ),
        16,
    ),
    "brainpoolP512r1": Curve(
        "brainpoolP512r1",
        _h(
            "aadd9db8dbe9c48b3fd4e6ae33c9fc07cb308db3b3c9d20ed6639cca70330871"
            "7d4d9b009bc66842aecda12ae6a380e62881ff2f2d82c68528aa6056583a48f3"
        ),
        _h(
            "7830a3318b603b89e2327145ac234cc594cbdd8d3df91610a83441caea9863bc"
            "2ded5d5aa8253aa10a2ef1c98b9ac8b57f1117a72bf2c7b9e7c1ac4d77fc94ca"
        ),
        _h(
            "3df91610a83441caea9863bc2ded5d5aa8253aa10a2ef1c98b9ac8b57f1117a7"
            "2bf2c7b9e7c1ac4d77fc94cadc083e67984050b75ebae5dd2809bd638016f723"
        ),
        _h(
            "81aee4bdd82ed9645a21322e9c4c6a9385ed9f70b5d916c1b43b62eef4d0098e"
            "ff3b1f78e2d0d48d50d1687b93b97d5f7c6d5047406a5e688b352209bcb9f822"
        ),
        _h(
            "7dde385d566332ecc0eabfa9cf7822fdf209f70024a57b1aa000c55b881f8111"
            "b2dcde494a5f485e5bca4bd88a2763aed1ca2b2fa8f0540678cd1e0f3ad80892"
        ),
        _h(
            "aadd9db8dbe9c48b3fd4e6ae33c9fc07cb308db3b3c9d20ed6639cca70330870"
            "553e5c414ca92619418661197fac10471db1d381085ddaddb58796829ca90069"
        ),
        17,
    ),
}

_LIBRARY: dict[str, type[_ec.EllipticCurve]] = {
    "secp256r1": _ec.SECP256R1,
    "secp384r1": _ec.SECP384R1,
    "secp521r1": _ec.SECP521R1,
    "brainpoolP256r1": _ec.BrainpoolP256R1,
    "brainpoolP384r1": _ec.BrainpoolP384R1,
    "brainpoolP512r1": _ec.BrainpoolP512R1,
}


def curve_by_name(name: str) -> Curve:
    try:
        return CURVES[name]
    except KeyError:
        raise ValueError(f"unsupported curve {name!r}") from None


def curve_by_parameter_id(parameter_id: int) -> Curve | None:
    """The curve of a standardized domain parameter id (9303-11 §9.5.1), None if not ours."""
    for curve in CURVES.values():
        if curve.parameter_id == parameter_id:
            return curve
    return None


def is_on_curve(point: Point, curve: Curve) -> bool:
    if point is None:
        return False
    x, y = point
    if not (0 <= x < curve.p and 0 <= y < curve.p):
        return False
    return (y * y - (x * x * x + curve.a * x + curve.b)) % curve.p == 0


_Jacobian = tuple[int, int, int]  # Z = 0 is infinity


def _double(pt: _Jacobian, curve: Curve) -> _Jacobian:
    x, y, z = pt
    p = curve.p
    if z == 0 or y == 0:
        return (1, 1, 0)
    yy = y * y % p
    s = 4 * x * yy % p
    zz = z * z % p
    m = (3 * x * x + curve.a * zz * zz) % p
    x3 = (m * m - 2 * s) % p
    y3 = (m * (s - x3) - 8 * yy * yy) % p
    z3 = 2 * y * z % p
    return (x3, y3, z3)


def _add_affine(pt: _Jacobian, q: tuple[int, int], curve: Curve) -> _Jacobian:
    """``pt + q`` with ``q`` affine (mixed addition)."""
    x1, y1, z1 = pt
    if z1 == 0:
        return (q[0], q[1], 1)
    p = curve.p
    z1z1 = z1 * z1 % p
    u2 = q[0] * z1z1 % p
    s2 = q[1] * z1 * z1z1 % p
    h = (u2 - x1) % p
    r = (s2 - y1) % p
    if h == 0:
        return _double(pt, curve) if r == 0 else (1, 1, 0)
    hh = h * h % p
    hhh = h * hh % p
    v = x1 * hh % p
    x3 = (r * r - hhh - 2 * v) % p
    y3 = (r * (v - x3) - y1 * hhh) % p
    z3 = z1 * h % p
    return (x3, y3, z3)


def _affine(pt: _Jacobian, curve: Curve) -> Point:
    x, y, z = pt
    if z == 0:
        return None
    p = curve.p
    zi = pow(z, -1, p)
    zi2 = zi * zi % p
    return (x * zi2 % p, y * zi2 * zi % p)


def multiply(k: int, point: Point, curve: Curve) -> Point:
    """``k * point`` by double-and-add (left to right)."""
    k %= curve.n
    if point is None or k == 0:
        return None
    acc: _Jacobian = (1, 1, 0)
    for bit in bin(k)[2:]:
        acc = _double(acc, curve)
        if bit == "1":
            acc = _add_affine(acc, point, curve)
    return _affine(acc, curve)


def add(p1: Point, p2: Point, curve: Curve) -> Point:
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    return _affine(_add_affine((p1[0], p1[1], 1), p2, curve), curve)


def encode_point(point: Point, curve: Curve) -> bytes:
    """The uncompressed encoding ``04 || x || y`` (SEC 1 §2.3.3)."""
    if point is None:
        raise ValueError("the point at infinity has no encoding here")
    size = curve.size
    return b"\x04" + point[0].to_bytes(size, "big") + point[1].to_bytes(size, "big")


def decode_point(data: bytes, curve: Curve) -> tuple[int, int]:
    """An uncompressed point, checked to lie on the curve; ValueError otherwise."""
    size = curve.size
    if len(data) != 1 + 2 * size or data[0] != 0x04:
        raise ValueError("not an uncompressed point of this curve")
    point = (int.from_bytes(data[1 : 1 + size], "big"), int.from_bytes(data[1 + size :], "big"))
    if not is_on_curve(point, curve):
        raise ValueError("the point is not on the curve")
    return point


def scalar_from_random(rng_bytes: bytes, curve: Curve) -> int | None:
    """A private scalar in [1, n-1] from random bytes (masked to n's bit length); None
    when it falls outside, and the caller draws again."""
    k = int.from_bytes(rng_bytes, "big")
    k &= (1 << curve.n.bit_length()) - 1
    return k if 0 < k < curve.n else None
