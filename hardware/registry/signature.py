"""Ed25519 verification of RIAJ snapshot signatures (art. 20.2: the register the desk checks).

Why Ed25519 rather than an HMAC with a shared secret: the desk only needs the
regulator's *public* key, so a stolen desk cannot forge a register; an HMAC key
on every desk could. Uses the ``cryptography`` package (Apache-2.0 / BSD).

The signature covers :func:`admission.registry.snapshot.signed_message` (a domain
tag and the file's ``#end`` SHA-256), so a 1,000,000-line file is hashed once,
while streaming, and never held in memory for the signature.
"""

from __future__ import annotations

import base64

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from admission.errors import ConfigError
from admission.registry.port import RegistryConfigCode


class Ed25519Verifier:
    """An ``admission.registry.snapshot.SignatureVerifier``."""

    def __init__(self, public_key: Ed25519PublicKey) -> None:
        self._key = public_key

    @classmethod
    def from_text(cls, text: str) -> Ed25519Verifier:
        """The setting ``registry.public_key``: 64 hex chars, base64 of 32 bytes, or PEM."""
        text = text.strip()
        try:
            if text.startswith("-----BEGIN"):
                key = serialization.load_pem_public_key(text.encode("ascii"))
                if not isinstance(key, Ed25519PublicKey):
                    raise ValueError("not an Ed25519 key")
                return cls(key)
            raw = bytes.fromhex(text) if len(text) == 64 else base64.b64decode(text, validate=True)
            return cls(Ed25519PublicKey.from_public_bytes(raw))
        except ValueError as exc:
            raise ConfigError(
                "registry.public_key is not an Ed25519 public key",
                code=RegistryConfigCode.REGISTRY_PUBLIC_KEY,
            ) from exc

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            self._key.verify(signature, message)
        except InvalidSignature:
            return False
        return True
