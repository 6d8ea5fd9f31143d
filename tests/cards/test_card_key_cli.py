"""The command line with signed cards (art. 22.4): a printed card's QR carries the signed
code, ``verify-card`` checks it and the short code under it, ``card-key show`` lists the
keys and ``card-key rotate`` (director or administrator) keeps old cards verifying."""

from __future__ import annotations

from pathlib import Path

import pytest

from admission.frames import Frame
from hardware.barcode import make_decoder
from hardware.printer.render import preview_png
from tests.test_cli import (
    DIRECTOR,
    cli,
    create_accounts,
    import_register,
    quick_sign_in,  # noqa: F401 - the autouse fixture: cheap argon2, a clean environment
    spanish_dni_mrz,
)

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")


def _qr_text(pdf: bytes) -> str:
    png = preview_png(pdf, dpi=300)
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    frame = Frame(img.tobytes(), img.shape[1], img.shape[0], img.shape[1], 1, 0.0)
    (found,) = make_decoder("zxing").decode(frame)
    return found.text


@pytest.fixture
def signed_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file's accounts (tests/test_cli.py), the clerk signed in."""
    create_accounts(tmp_path, monkeypatch)


def test_print_verify_show_and_rotate(
    tmp_path: Path, signed_in: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = tmp_path / "riaj.txt"
    snapshot.write_text("00000000T\n")
    assert import_register(snapshot, tmp_path)[0] == 0
    code, out = cli("admit", "--mrz", *spanish_dni_mrz(44444444), "--no-pdf", data_dir=tmp_path)
    assert code == 0, out
    code, out = cli("print-card", "1", data_dir=tmp_path)
    assert code == 0 and out["printed"] is True  # type: ignore[index]
    signed = _qr_text((tmp_path / "cards" / out["job_id"]).read_bytes())  # type: ignore[index]
    assert signed.startswith("ADM2-")

    code, out = cli("verify-card", signed, data_dir=tmp_path)
    assert code == 0 and out["status"] == "VALID" and out["signed"] is True  # type: ignore[index]
    first_key = out["key_id"]  # type: ignore[index]
    code, out = cli("card-key", "show", data_dir=tmp_path)
    assert code == 0
    (key,) = out["keys"]  # type: ignore[index]
    assert key["key_id"] == first_key and key["current"] is True
    assert "private" not in str(out) and len(key["public_key"]) == 43  # 32 bytes, base64url

    code, out = cli("card-key", "rotate", data_dir=tmp_path)  # the clerk signed in
    assert code == 1 and out["error"] == "ROLE_REQUIRED"  # type: ignore[index]
    monkeypatch.setenv("ADMISSION_USER", DIRECTOR[0])
    monkeypatch.setenv("ADMISSION_PASSWORD", DIRECTOR[2])
    code, out = cli("card-key", "rotate", data_dir=tmp_path)
    assert code == 0 and out["old_key"] == first_key  # type: ignore[index]
    new_key = out["key"]["key_id"]  # type: ignore[index]
    code, out = cli("card-key", "show", data_dir=tmp_path)
    assert [(k["key_id"], k["current"]) for k in out["keys"]] == [  # type: ignore[index]
        (new_key, True),
        (first_key, False),
    ]
    code, out = cli("verify-card", signed, data_dir=tmp_path)  # printed before: still good
    assert code == 0 and out["key_id"] == first_key  # type: ignore[index]
    code, out = cli("audit", "verify", data_dir=tmp_path)
    assert code == 0, out

    forged = signed[:40] + ("A" if signed[40] != "A" else "B") + signed[41:]
    code, out = cli("verify-card", forged, data_dir=tmp_path)
    assert code == 1 and out["status"] in {"CODE_TAMPERED", "CODE_MALFORMED"}  # type: ignore[index]
