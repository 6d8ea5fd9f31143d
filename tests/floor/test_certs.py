"""The floor's certificates: a casino CA made once (ECDSA P-256, ten years), a server
certificate signed by it (825 days at most; the listen address, localhost, the host
name and 127.0.0.1), keys written owner-only, and the casino's own chain taken as given."""

from __future__ import annotations

import os
import socket
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from ui.floor.certs import CA_DAYS, SERVER_DAYS, fingerprint, given_certificate, made_certificate

NOW = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)


def test_a_casino_ca_is_made_once_and_signs_the_server(tmp_path: Path) -> None:
    made = made_certificate(tmp_path, "192.168.1.20", now=NOW)
    folder = tmp_path / "floor-tls"
    server, ca = x509.load_pem_x509_certificates(made.cert.read_bytes())
    assert ca.public_bytes(serialization.Encoding.PEM) == made.ca_pem
    assert isinstance(ca.public_key(), ec.EllipticCurvePublicKey)
    assert ca.public_key().curve.name == "secp256r1"  # type: ignore[union-attr]
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    assert ca.not_valid_after_utc - NOW >= timedelta(days=CA_DAYS - 1)
    assert server.not_valid_after_utc - server.not_valid_before_utc <= timedelta(days=SERVER_DAYS)
    server.verify_directly_issued_by(ca)
    sans = server.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    names = {str(v) for v in sans.get_values_for_type(x509.IPAddress)}
    assert {"192.168.1.20", "127.0.0.1"} <= names
    dns = set(sans.get_values_for_type(x509.DNSName))
    assert "localhost" in dns and socket.gethostname().lower() in dns
    if os.name == "posix":
        for key in ("ca.key", "server.key"):
            assert stat.S_IMODE((folder / key).stat().st_mode) == 0o600
    first = made.cert.read_bytes()
    again = made_certificate(tmp_path, "192.168.1.20", now=NOW + timedelta(days=1))
    assert again.fingerprint == made.fingerprint and again.cert.read_bytes() == first
    moved = made_certificate(tmp_path, "10.0.0.7", now=NOW)  # a new address: a new server cert
    second = moved.cert.read_bytes()
    assert moved.fingerprint == made.fingerprint and second != first
    late = made_certificate(tmp_path, "10.0.0.7", now=NOW + timedelta(days=SERVER_DAYS))
    assert late.cert.read_bytes() != second  # renewed before its end


def test_the_casinos_own_certificate_is_taken_as_given(tmp_path: Path) -> None:
    made = made_certificate(tmp_path / "casino-ca", "floor.casino.lan", now=NOW)
    given = given_certificate(made.cert, made.key)
    assert given.ca_pem == made.ca_pem and given.fingerprint == fingerprint(made.ca_pem)
