"""The symmetric cryptography of ICAO 9303-11: key derivation, padding, the ciphers and
the MACs of secure messaging (§9.7, §9.8), on the ``cryptography`` library.

* 3DES (two-key, EDE): CBC with a zero IV; MAC = ISO/IEC 9797-1 MAC algorithm 3 with
  DES ("retail MAC"), padding method 2.
* AES-128/192/256: CBC (the IV is chosen by the caller: zero for the PACE nonce,
  ``E(KSenc, SSC)`` in secure messaging); MAC = AES-CMAC (NIST SP 800-38B) truncated to
  8 bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.cmac import CMAC

__all__ = [
    "CIPHERS",
    "ENC",
    "MAC",
    "PACE_PI",
    "CipherSpec",
    "cipher_spec",
    "decrypt",
    "encrypt",
    "kdf",
    "mac",
    "pad",
    "unpad",
]

# The KDF's counter (9303-11 §9.7.1): 1 encryption key, 2 MAC key, 3 the PACE password key.
ENC = 1
MAC = 2
PACE_PI = 3


@dataclass(frozen=True, slots=True)
class CipherSpec:
    """One of the block ciphers of secure messaging."""

    name: str  # "3DES", "AES-128", "AES-192", "AES-256"
    key_length: int  # bytes
    block: int  # bytes: 8 for 3DES, 16 for AES

    @property
    def aes(self) -> bool:
        return self.block == 16


CIPHERS: dict[str, CipherSpec] = {
    "3DES": CipherSpec("3DES", 16, 8),
    "AES-128": CipherSpec("AES-128", 16, 16),
    "AES-192": CipherSpec("AES-192", 24, 16),
    "AES-256": CipherSpec("AES-256", 32, 16),
}


def cipher_spec(name: str) -> CipherSpec:
    try:
        return CIPHERS[name]
    except KeyError:
        raise ValueError(f"unsupported cipher {name!r}") from None


def kdf(secret: bytes, counter: int, cipher: CipherSpec) -> bytes:
    """9303-11 §9.7.1: ``H(secret || counter)`` cut to the key length; SHA-1 for 3DES and
    AES-128, SHA-256 for AES-192/256. A 3DES key gets its DES parity bits set."""
    data = secret + counter.to_bytes(4, "big")
    if cipher.key_length <= 16:
        digest = hashlib.sha1(data, usedforsecurity=True).digest()
    else:
        digest = hashlib.sha256(data).digest()
    key = digest[: cipher.key_length]
    return _des_parity(key) if not cipher.aes else key


def _des_parity(key: bytes) -> bytes:
    """Each byte's low bit makes its number of ones odd (DES ignores that bit)."""
    return bytes((b & 0xFE) | ((bin(b >> 1).count("1") + 1) & 1) for b in key)


def pad(data: bytes, block: int) -> bytes:
    """ISO/IEC 9797-1 padding method 2: 0x80 then zeros to a whole block (always added)."""
    padded = data + b"\x80"
    return padded + b"\x00" * (-len(padded) % block)


def unpad(data: bytes) -> bytes:
    """Removes method 2 padding; ValueError when there is none."""
    stripped = data.rstrip(b"\x00")
    if not stripped or stripped[-1] != 0x80:
        raise ValueError("bad padding")
    return stripped[:-1]


def _tdes_key(key: bytes) -> bytes:
    """A two-key 3DES key K1||K2 as the three-key K1||K2||K1 the library takes."""
    return key[:16] + key[:8] if len(key) == 16 else key


def _block_cipher(key: bytes, cipher: CipherSpec) -> algorithms.AES | TripleDES:
    return algorithms.AES(key) if cipher.aes else TripleDES(_tdes_key(key))


def encrypt(key: bytes, data: bytes, cipher: CipherSpec, iv: bytes | None = None) -> bytes:
    """CBC encryption of whole blocks (a zero IV unless given)."""
    iv = iv if iv is not None else b"\x00" * cipher.block
    enc = Cipher(_block_cipher(key, cipher), modes.CBC(iv)).encryptor()
    return enc.update(data) + enc.finalize()


def decrypt(key: bytes, data: bytes, cipher: CipherSpec, iv: bytes | None = None) -> bytes:
    """CBC decryption of whole blocks (a zero IV unless given); ValueError if not blocks."""
    if len(data) % cipher.block:
        raise ValueError("ciphertext is not a whole number of blocks")
    iv = iv if iv is not None else b"\x00" * cipher.block
    dec = Cipher(_block_cipher(key, cipher), modes.CBC(iv)).decryptor()
    return dec.update(data) + dec.finalize()


def ecb_encrypt_block(key: bytes, block: bytes, cipher: CipherSpec) -> bytes:
    """One block encrypted on its own (the AES secure messaging IV, ``E(KSenc, SSC)``)."""
    enc = Cipher(_block_cipher(key, cipher), modes.ECB()).encryptor()
    return enc.update(block) + enc.finalize()


def mac(key: bytes, data: bytes, cipher: CipherSpec) -> bytes:
    """The 8-byte MAC of ``data`` as given (the caller pads where 9303 says so).

    3DES: ISO/IEC 9797-1 MAC algorithm 3 (single-DES CBC with K1, the last block through
    D(K2) then E(K1)) over whole blocks: 9303 always pads the MAC input (method 2), so the
    caller passes ``pad(data, 8)``. AES: CMAC, truncated to 8 bytes (9303-11 §9.8.4).
    """
    if cipher.aes:
        c = CMAC(algorithms.AES(key))
        c.update(data)
        return c.finalize()[:8]
    if not data or len(data) % 8:
        raise ValueError("the retail MAC takes padded data")
    k1 = key[:8]
    h = b"\x00" * 8
    if len(data) > 8:
        # DES-CBC with K1 (a three-key 3DES of K1 three times is single DES).
        head = encrypt(k1 * 3, data[:-8], CIPHERS["3DES"])
        h = head[-8:]
    last = bytes(a ^ b for a, b in zip(h, data[-8:], strict=True))
    # E(K1, D(K2, E(K1, x))) is 3DES-EDE with the key K1||K2||K1.
    return ecb_encrypt_block(key[:16], last, CIPHERS["3DES"])
