"""A throwaway PKI for the loopback TLS tests: a CA, a server cert for 127.0.0.1, a client cert."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path  # encrypted with ``client_key_passphrase``
    client_key_passphrase: str


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _cert(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: str,
    issuer_key: ec.EllipticCurvePrivateKey,
    *,
    ca: bool,
    server: bool,
) -> x509.Certificate:
    now = datetime.now(UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        builder = builder.add_extension(
            x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
        )
    else:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
            critical=False,
        )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def make_pki(directory: Path, label: str = "rgiaj") -> Pki:
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert(f"{label} test CA", ca_key, f"{label} test CA", ca_key, ca=True, server=False)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = _cert("127.0.0.1", server_key, f"{label} test CA", ca_key, ca=False, server=True)
    client_key = ec.generate_private_key(ec.SECP256R1())
    client = _cert("casino-desk", client_key, f"{label} test CA", ca_key, ca=False, server=False)
    enc = serialization.Encoding.PEM
    passphrase = "key-passphrase"
    return Pki(
        ca=_pem(directory / "ca.pem", ca.public_bytes(enc)),
        server_cert=_pem(directory / "server.pem", server.public_bytes(enc)),
        server_key=_pem(
            directory / "server.key",
            server_key.private_bytes(
                enc, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ),
        ),
        client_cert=_pem(directory / "client.pem", client.public_bytes(enc)),
        client_key=_pem(
            directory / "client.key",
            client_key.private_bytes(
                enc,
                serialization.PrivateFormat.PKCS8,
                serialization.BestAvailableEncryption(passphrase.encode()),
            ),
        ),
        client_key_passphrase=passphrase,
    )
