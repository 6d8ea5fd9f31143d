"""Passive authentication (ICAO 9303-11 §5.1) against a PKI the test makes: a genuine
document in each signature scheme, and each tampering case with its own code, in the
contract's order (a forged hash is forged even without a master list)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from admission.chip import ChipCode, ChipStatus, status_of
from hardware.chip.document_pki import DocumentPki, make_pki
from hardware.chip.lds import build_dg1, build_dg2, read_tlv
from hardware.chip.passive import TrustStore, verify_document

AT = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
# invented holder; the issuer is Spain (ESP) as the test CSCA (C=ES)
MRZ = "IDESPXYZ123456<99999999R<<<<<<8001014F3101017ESP<<<<<<<<<<<8PRUEBA<INVENTADA<<ANA<<<<<<<<<"
assert len(MRZ) == 90
FACE = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 80  # a 20 kB JPEG-like face
OTHER_FACE = b"\xff\xd8\xff\xe1" + bytes(reversed(range(256))) * 80
DG1 = build_dg1(MRZ)
DG2 = build_dg2(FACE, "image/jpeg")
GROUPS = {1: DG1, 2: DG2}


def _signed(pki: DocumentPki, groups: Mapping[int, bytes] = GROUPS) -> bytes:
    return pki.sod(groups)


@pytest.mark.parametrize("algorithm", ["ecdsa", "rsa-pss", "rsa"])
def test_a_genuine_document_in_each_scheme(algorithm: str) -> None:
    pki = make_pki(now=AT, algorithm=algorithm)
    result = verify_document(_signed(pki), GROUPS, pki.trust(), AT)
    assert result.code is None
    assert result.issuer == "ESP"
    assert result.hashed == (1, 2)
    assert "C=ES" in result.dsc_subject and "C=ES" in result.csca_subject


def test_the_sod_without_its_77_wrapper_and_a_naive_time() -> None:
    pki = make_pki(now=AT)
    sod = _signed(pki)
    assert sod[0] == 0x77
    _, inner, _ = read_tlv(sod)
    assert verify_document(inner, GROUPS, pki.trust(), AT.replace(tzinfo=None)).code is None


def _code(pki: DocumentPki, groups: Mapping[int, bytes] = GROUPS, **kw: object) -> ChipCode | None:
    trust = kw.get("trust", pki.trust())
    assert trust is None or isinstance(trust, TrustStore)
    sod = kw.get("sod", _signed(pki))
    assert isinstance(sod, bytes)
    return verify_document(sod, groups, trust, AT).code


def test_a_changed_dg1_byte() -> None:
    pki = make_pki(now=AT)
    changed = DG1[:-3] + b"X" + DG1[-2:]
    assert _code(pki, {1: changed, 2: DG2}) is ChipCode.DG_HASH_MISMATCH


def test_a_swapped_dg2() -> None:
    pki = make_pki(now=AT)
    swapped = build_dg2(OTHER_FACE, "image/jpeg")
    assert _code(pki, {1: DG1, 2: swapped}) is ChipCode.DG_HASH_MISMATCH


def test_an_expired_dsc() -> None:
    assert _code(make_pki(now=AT, dsc_expired=True)) is ChipCode.DSC_EXPIRED


def test_a_csca_of_another_country() -> None:
    assert _code(make_pki(now=AT, csca_country="FR")) is ChipCode.CSCA_COUNTRY_MISMATCH


def test_a_document_of_another_issuer_than_its_signer() -> None:
    pki = make_pki("FR", now=AT)  # a French CSCA and DSC sign a Spanish MRZ
    assert _code(pki) is ChipCode.CSCA_COUNTRY_MISMATCH


@pytest.mark.parametrize("cut", [1, 10, 200])
def test_a_truncated_sod(cut: int) -> None:
    pki = make_pki(now=AT)
    sod = _signed(pki)
    assert _code(pki, sod=sod[:-cut]) is ChipCode.SOD_MALFORMED


def test_garbage_is_malformed() -> None:
    pki = make_pki(now=AT)
    for sod in (b"", b"\x77\x00", bytes(50), pki.master_list()):
        assert _code(pki, sod=sod) is ChipCode.SOD_MALFORMED


def test_a_revoked_dsc() -> None:
    pki = make_pki(now=AT, dsc_revoked=True)
    assert _code(pki) is ChipCode.DSC_REVOKED
    assert _code(pki, trust=pki.trust(with_crl=False)) is None  # no CRL at hand


def test_a_crl_signed_by_another_key_is_ignored() -> None:
    revoked = make_pki(now=AT, dsc_revoked=True)
    impostor = make_pki("FR", now=AT, dsc_revoked=True)  # another CSCA's CRL
    pki = make_pki(now=AT)
    trust = TrustStore(cscas=(pki.csca,), crls=(impostor.crl,))
    assert _code(pki, trust=trust) is None
    assert _code(pki, trust=TrustStore(cscas=(pki.csca,), crls=(revoked.crl,))) is (
        ChipCode.DSC_REVOKED
    )


def test_a_dsc_not_signed_by_the_csca() -> None:
    assert _code(make_pki(now=AT, dsc_not_signed_by_csca=True)) is ChipCode.DSC_NOT_SIGNED_BY_CSCA


def test_a_forged_sod_signature() -> None:
    pki = make_pki(now=AT)
    sod = pki.sod(GROUPS, forge_signature=True)
    assert _code(pki, sod=sod) is ChipCode.SOD_SIGNATURE_INVALID


def test_no_master_list_and_an_unknown_csca_are_not_verifiable() -> None:
    pki = make_pki(now=AT)
    assert _code(pki, trust=None) is ChipCode.NO_MASTER_LIST
    assert _code(pki, trust=TrustStore(cscas=())) is ChipCode.NO_MASTER_LIST
    other = make_pki("PT", now=AT)
    code = _code(pki, trust=other.trust())
    assert code is ChipCode.CSCA_UNKNOWN
    assert status_of(code) is ChipStatus.NOT_VERIFIABLE


def test_a_forged_hash_is_forged_without_a_master_list() -> None:
    pki = make_pki(now=AT)
    changed = {1: DG1[:-1] + b"<", 2: build_dg2(OTHER_FACE, "image/jpeg")}
    assert _code(pki, changed, trust=None) is ChipCode.DG_HASH_MISMATCH
    assert _code(pki, changed, trust=make_pki("PT", now=AT).trust()) is ChipCode.DG_HASH_MISMATCH


def test_the_chain_wins_over_a_hash_when_both_fail() -> None:
    pki = make_pki(now=AT, dsc_expired=True)
    assert _code(pki, {1: DG1, 2: build_dg2(OTHER_FACE, "image/jpeg")}) is ChipCode.DSC_EXPIRED


def test_dg1_or_dg2_missing() -> None:
    pki = make_pki(now=AT)
    assert _code(pki, {1: DG1}) is ChipCode.DG_MISSING
    sod_without_dg2 = pki.sod({1: DG1})
    assert _code(pki, GROUPS, sod=sod_without_dg2) is ChipCode.DG_MISSING


def test_a_group_outside_the_sod_is_not_counted() -> None:
    pki = make_pki(now=AT)
    result = verify_document(_signed(pki), {**GROUPS, 14: b"\x6e\x00"}, pki.trust(), AT)
    assert result.code is None and result.hashed == (1, 2)


def test_validity_is_judged_at_the_given_time() -> None:
    pki = make_pki(now=AT)
    later = AT + timedelta(days=5 * 365)
    assert verify_document(_signed(pki), GROUPS, pki.trust(), later).code is ChipCode.DSC_EXPIRED


def test_key_rollover_picks_the_csca_the_dsc_names() -> None:
    pki = make_pki(now=AT)
    impostor = make_pki(now=AT, dsc_not_signed_by_csca=True)  # same CSCA name, same key
    rolled = TrustStore(cscas=(make_pki("ES", now=AT - timedelta(days=1)).csca, pki.csca))
    assert _code(pki, trust=rolled) is None
    assert _code(impostor, trust=rolled) is ChipCode.DSC_NOT_SIGNED_BY_CSCA


@pytest.mark.parametrize("algorithm", ["ecdsa", "rsa-pss"])
def test_keys_with_explicit_curve_parameters(algorithm: str) -> None:
    """Germany's CSCA and DSCs spell their brainpool curve out; cryptography loads only
    named curves (and explicit NIST ones), so such a genuine document must not look
    forged."""
    pki = make_pki(now=AT, algorithm=algorithm, explicit_parameters=True)
    result = verify_document(_signed(pki), GROUPS, pki.trust(), AT)
    assert result.code is None
    impostor = make_pki(now=AT, explicit_parameters=True, dsc_not_signed_by_csca=True)
    assert _code(impostor) is ChipCode.DSC_NOT_SIGNED_BY_CSCA


def test_a_damaged_sod_never_raises() -> None:
    """A chip's bytes are untrusted: any flipped byte gives a code, never an exception.
    A few bytes may change and still verify: those outside what is signed and what the
    signer's key proves (SignedData's version, its list of digest algorithms, the
    SignerInfo's pointer to the DSC compared as X.500 names compare)."""
    import random

    pki = make_pki(now=AT)
    sod = _signed(pki)
    rng = random.Random(40)
    for _ in range(300):
        at = rng.randrange(len(sod))
        damaged = sod[:at] + bytes([sod[at] ^ (1 << rng.randrange(8))]) + sod[at + 1 :]
        result = verify_document(damaged, GROUPS, pki.trust(), AT)
        assert result.code is None or isinstance(result.code, ChipCode)


def _openssl(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["openssl", *args], cwd=tmp, capture_output=True, text=True, timeout=60, check=False
    )


def _pem(tmp: Path, name: str, der: bytes) -> str:
    cert = x509.load_der_x509_certificate(der)
    (tmp / name).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return name


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl on this machine")
@pytest.mark.parametrize("algorithm", ["ecdsa", "rsa-pss", "rsa"])
def test_openssl_and_we_agree_on_the_sod(tmp_path: Path, algorithm: str) -> None:
    """Against code we did not write: OpenSSL's CMS verifies the SODs we sign, and we
    verify the SODs OpenSSL signs (embedded LDSSecurityObject, signed attributes)."""
    now = datetime.now(UTC)
    pki = make_pki(now=now, algorithm=algorithm)
    csca = _pem(tmp_path, "csca.pem", pki.csca)
    dsc = _pem(tmp_path, "dsc.pem", pki.dsc)
    (tmp_path / "dsc.key").write_bytes(
        pki.dsc_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    _, ours, _ = read_tlv(pki.sod(GROUPS))
    (tmp_path / "ours.der").write_bytes(ours)
    checked = _openssl(
        tmp_path, "cms", "-verify", "-inform", "DER", "-in", "ours.der", "-CAfile", csca,
        "-binary", "-purpose", "any", "-out", "content.der",
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    lds = (tmp_path / "content.der").read_bytes()
    (tmp_path / "lds.der").write_bytes(lds)
    pss = ["-keyopt", "rsa_padding_mode:pss"] if algorithm == "rsa-pss" else []
    made = _openssl(
        tmp_path, "cms", "-sign", "-binary", "-nodetach", "-in", "lds.der", "-signer", dsc,
        "-inkey", "dsc.key", "-md", "sha256", "-nosmimecap", "-outform", "DER",
        "-econtent_type", "2.23.136.1.1.1", "-out", "theirs.der", *pss,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    theirs = (tmp_path / "theirs.der").read_bytes()
    assert verify_document(theirs, GROUPS, pki.trust(), now).code is None
    changed = {1: DG1, 2: build_dg2(OTHER_FACE, "image/jpeg")}
    assert verify_document(theirs, changed, pki.trust(), now).code is ChipCode.DG_HASH_MISMATCH


@pytest.mark.parametrize("hash_name", ["sha256", "sha384", "sha512", "sha224", "sha1"])
def test_plain_ecdsa_and_each_hash(hash_name: str) -> None:
    """BSI TR-03111's plain r||s signatures, and each hash ICAO 9303-12 allows."""
    pki = make_pki(now=AT)
    sod = pki.sod(GROUPS, hash_name=hash_name, plain_ecdsa=True)
    assert verify_document(sod, GROUPS, pki.trust(), AT).code is None
    forged = pki.sod(GROUPS, hash_name=hash_name, plain_ecdsa=True, forge_signature=True)
    assert verify_document(forged, GROUPS, pki.trust(), AT).code is ChipCode.SOD_SIGNATURE_INVALID
