"""The floor service's TLS certificates: the casino's own, or a casino CA made once.

A phone on the casino's LAN talks to the desk only over HTTPS (the staff member's PIN
and the holder's name travel on it, art. 22.4). Either the casino's CA issued the
server's certificate (``--cert``/``--key``), or the desk makes, once, a casino CA
(ECDSA P-256, ten years) and a server certificate signed by it (825 days at most, the
longest a phone's browser accepts), kept in the desk's data folder under ``floor-tls/``.
The phone trusts the CA once (``GET /ca.crt``, checked against the SHA-256 fingerprint
the desk prints), and every later server certificate chains to it.

Private keys are written whole and owner-only (0600) by the desk's one atomic writer
(:func:`admission.atomic_file.write_atomically`); they never leave the folder.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from admission.atomic_file import write_atomically

__all__ = [
    "CA_DAYS",
    "SERVER_DAYS",
    "TLS_FOLDER",
    "ServerCertificate",
    "fingerprint",
    "given_certificate",
    "made_certificate",
]

TLS_FOLDER = "floor-tls"
CA_DAYS = 3652  # ten years
SERVER_DAYS = 825  # the longest validity Apple's and Chrome's trust stores accept
RENEW_BEFORE = timedelta(days=30)  # a server certificate this close to its end is remade
CA_NAME = "Casino floor CA (admission desk)"


@dataclass(frozen=True, slots=True)
class ServerCertificate:
    """Where the server's certificate chain and key are, and the CA a phone installs."""

    cert: Path  # the server's certificate, then the CA's (PEM chain)
    key: Path
    ca_pem: bytes  # the CA certificate served at /ca.crt (the chain's last)
    fingerprint: str  # SHA-256 of the CA certificate, colon-separated upper-case hex


def fingerprint(pem: bytes) -> str:
    """``AB:CD:...``: the SHA-256 of a certificate, as phones and browsers show it."""
    digest = x509.load_pem_x509_certificate(pem).fingerprint(hashes.SHA256())
    return ":".join(f"{b:02X}" for b in digest)


def given_certificate(cert: Path, key: Path) -> ServerCertificate:
    """The casino's own certificate (``--cert``, a PEM chain ending with its CA, or the
    server's certificate alone) and key: the last certificate of the file is the one
    ``/ca.crt`` serves."""
    chain = x509.load_pem_x509_certificates(cert.read_bytes())
    serialization.load_pem_private_key(key.read_bytes(), password=None)  # readable now
    ca = chain[-1].public_bytes(serialization.Encoding.PEM)
    return ServerCertificate(cert, key, ca, fingerprint(ca))


def made_certificate(
    data_dir: Path, host: str, *, now: datetime | None = None
) -> ServerCertificate:
    """The casino CA of this desk (made the first time) and a server certificate for
    ``host`` (the listen address) signed by it, made again when its names change or its
    end is near."""
    at = now or datetime.now(UTC)
    folder = data_dir / TLS_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    ca_cert_path, ca_key_path = folder / "ca.crt", folder / "ca.key"
    if not (ca_cert_path.exists() and ca_key_path.exists()):
        _make_ca(ca_cert_path, ca_key_path, at)
    ca_pem = ca_cert_path.read_bytes()
    ca_cert = x509.load_pem_x509_certificate(ca_pem)
    ca_key = serialization.load_pem_private_key(ca_key_path.read_bytes(), password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    cert_path, key_path = folder / "server.crt", folder / "server.key"
    names = _names(host)
    if not _still_good(cert_path, key_path, names, at):
        _make_server(cert_path, key_path, ca_cert, ca_key, names, at)
    return ServerCertificate(cert_path, key_path, ca_pem, fingerprint(ca_pem))


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _make_ca(cert_path: Path, key_path: Path, at: datetime) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, socket.gethostname()[:64] or "desk"),
        ]
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(at - timedelta(minutes=5))
        .not_valid_after(at + timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    write_atomically(key_path, _pem_key(key))
    write_atomically(cert_path, cert.public_bytes(serialization.Encoding.PEM))


def _names(host: str) -> list[x509.GeneralName]:
    """The listen address, ``localhost``, the machine's host name and 127.0.0.1."""
    found: list[x509.GeneralName] = []
    for text in (host, "localhost", socket.gethostname(), "127.0.0.1"):
        if not text or text in ("0.0.0.0", "::"):  # every address: named by the others
            continue
        try:
            name: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(text))
        except ValueError:
            name = x509.DNSName(text.lower())
        if name not in found:
            found.append(name)
    return found


def _still_good(
    cert_path: Path, key_path: Path, names: list[x509.GeneralName], at: datetime
) -> bool:
    if not (cert_path.exists() and key_path.exists()):
        return False
    try:
        cert = x509.load_pem_x509_certificates(cert_path.read_bytes())[0]
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        return False
    return set(names) <= set(sans) and cert.not_valid_after_utc - RENEW_BEFORE > at


def _make_server(
    cert_path: Path,
    key_path: Path,
    ca_cert: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    names: list[x509.GeneralName],
    at: datetime,
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    first = names[0].value if names else "localhost"
    since = at - timedelta(minutes=5)  # a phone's clock a little behind still accepts it
    until = min(since + timedelta(days=SERVER_DAYS), ca_cert.not_valid_after_utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, str(first))]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(since)
        .not_valid_after(until)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    chain = cert.public_bytes(serialization.Encoding.PEM) + ca_cert.public_bytes(
        serialization.Encoding.PEM
    )
    write_atomically(key_path, _pem_key(key))
    write_atomically(cert_path, chain)
