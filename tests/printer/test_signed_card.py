"""The printed card carries the signed code (art. 22.4) in its QR, the short HMAC code
under it, and a phone at 20 cm reads it with both our decoders (zbar and zxing-cpp).

What a phone sees at 20 cm: its main camera has about 70 degrees of horizontal field of
view, so a frame covers 2 x 200 mm x tan(35 deg) = 280 mm. A 1920-pixel-wide video frame
is then 6.9 px/mm; a worse 1280-pixel one 4.6 px/mm. The card is rendered at that scale
(pypdfium2), set in a 16:9 frame on a grey table, blurred and given sensor noise."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from functools import partial
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from admission.cards.signed import (
    SignedFields,
    encode_payload,
    encode_signed_code,
    key_id_of,
    signed_message,
)
from admission.cards.verification import CardCheckStatus, verify_card
from admission.clock import FixedClock
from admission.frames import Frame
from admission.records import CardRecord
from hardware.barcode import make_decoder
from hardware.printer import render
from hardware.printer.fake import FakePrinter
from hardware.printer.service import CardPrintService
from tests.fake_store import FakeStore
from tests.printer import factories

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")

SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens"
PHONE_FOV_MM = 280.0  # 2 * 200 mm * tan(35 degrees)
PRIVATE = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def _signed(casino: str, number: int, card_type: str) -> str:
    fields = SignedFields(
        key_id_of(PRIVATE.public_key().public_bytes_raw()),
        casino,
        number,
        card_type,
        date(2026, 11, 28),
        date(2026, 11, 30),
        b"\x01\x02\x03\x04",
    )
    payload = encode_payload(fields)
    return encode_signed_code(payload, PRIVATE.sign(signed_message(payload)))


TYPICAL = _signed("MAD01", 987654, "DAY")  # 151 characters: QR version 6
LONGEST = _signed("ABCDEFGH", 9_999_999_999, "A_LONG_TYPE_CODE")  # 177: version 7


def _frame(img: np.ndarray) -> Frame:
    return Frame(img.tobytes(), img.shape[1], img.shape[0], img.shape[1], 1, 0.0)


def _gray(png: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)


def _phone_frame(pdf: bytes, width: int, blur: float, noise: float) -> np.ndarray:
    """The card as one video frame ``width`` pixels wide sees it at 20 cm."""
    px_per_mm = width / PHONE_FOV_MM
    card = _gray(render.preview_png(pdf, dpi=px_per_mm * 25.4))
    height = width * 9 // 16
    frame = np.full((height, width), 95, np.uint8)  # a grey table
    top, left = (height - card.shape[0]) // 2, (width - card.shape[1]) // 2
    frame[top : top + card.shape[0], left : left + card.shape[1]] = card
    if blur:
        frame = cv2.GaussianBlur(frame, (0, 0), blur)
    noisy = frame.astype(np.float64) + np.random.default_rng(7).normal(0, noise, frame.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def test_qr_size() -> None:
    """Version 6 (41 modules) for a usual card, 7 (45) for the longest the format holds:
    0.56 and 0.51 mm a module in the 24 mm square (one quiet module inside)."""
    assert len(render.qr_modules(TYPICAL)) == 41 and len(TYPICAL) == 151
    assert len(render.qr_modules(LONGEST)) == 45 and len(LONGEST) == 177
    assert render.QR_SIZE_MM / (45 + 2) >= 0.5


@pytest.mark.parametrize("decoder", ["zbar", "zxing"])
@pytest.mark.parametrize("code", [TYPICAL, LONGEST], ids=["typical", "longest"])
@pytest.mark.parametrize(
    ("width", "blur", "noise"),
    [(1920, 0.0, 0.0), (1920, 1.0, 6.0), (1280, 0.0, 0.0), (1280, 0.7, 4.0)],
    ids=["1920-sharp", "1920-blur", "1280-sharp", "1280-blur"],
)
def test_a_phone_at_20_cm_reads_the_signed_code(
    decoder: str, code: str, width: int, blur: float, noise: float
) -> None:
    view = replace(factories.view(987654), signed_code=code)
    frame = _phone_frame(render.render_card(view).pdf, width, blur, noise)
    assert [d.text for d in make_decoder(decoder).decode(_frame(frame))] == [code]


def test_the_printed_card_verifies_through_the_file(tmp_path: Path) -> None:
    """The print service signs the card with the file's key: the QR read back from the
    rendered card verifies VALID as ADM2, and the text under it is the card's ADM1."""
    clock = FixedClock(factories.ISSUED_AT)
    store = FakeStore(clock)
    number = store.record_admission(factories.admission_entry(1)).card_number
    assert number is not None
    shown = replace(
        factories.presentation(),
        code_key=store.secret("card_code"),
        signer=partial(store.signed_card_code, factories.CASINO_ID),
    )
    service = CardPrintService(store, FakePrinter(), clock, visitors=store, presentation=shown)
    view = service.view_for(number)
    assert view.signed_code.startswith("ADM2-") and view.code.startswith("ADM1-")
    pdf = service.render(view).pdf
    png = render.preview_png(pdf, dpi=300)
    SCREENS.mkdir(parents=True, exist_ok=True)
    (SCREENS / "card-signed-qr.png").write_bytes(png)
    texts = [d.text for d in make_decoder("zxing").decode(_frame(_gray(png)))]
    assert texts == [view.signed_code]
    answer = verify_card(
        texts[0],
        key=store.secret("card_code"),
        casino_id=factories.CASINO_ID,
        store=store,
        clock=clock,
        actor="floor-1",
        channel="camera",
        public_keys=store.card_public_keys(),
    )
    assert answer.status is CardCheckStatus.VALID and answer.signed
    assert service.print_card(view, actor="op-1").printed


def test_a_card_the_format_cannot_carry_prints_its_hmac_code() -> None:
    def refuses(card: CardRecord) -> str:
        raise ValueError("card type code must be ASCII")

    shown = replace(factories.presentation(), signer=refuses)
    assert shown.signed_code(factories.card()) == ""
    assert replace(shown, signer=None).signed_code(factories.card()) == ""
    view = factories.view(55)
    png = render.preview_png(render.render_card(view).pdf, dpi=200)
    assert [d.text for d in make_decoder("zbar").decode(_frame(_gray(png)))] == [view.code]
