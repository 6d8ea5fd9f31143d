"""Both decoder adapters on generated symbols and on the shared set of real photos."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from admission.cards.code import encode_card_code
from admission.devices import DecodedBarcode, DeviceStatus, Symbology
from admission.errors import ConfigError, DeviceError
from admission.frames import Frame
from hardware.barcode import FallbackDecoder, make_decoder
from hardware.barcode.fake import FakeDecoder
from tests.barcode.conftest import REAL, Truth

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")
zxingcpp = pytest.importorskip("zxingcpp")

KEY = bytes(32)
DECODERS = ["zxing", "zbar"]


def frame_of(image: object, *, pad: int = 0) -> Frame:
    arr = np.asarray(image, dtype=np.uint8)
    h, w = arr.shape[:2]
    channels = 1 if arr.ndim == 2 else arr.shape[2]
    rows = arr.reshape(h, w * channels)
    if pad:
        rows = np.hstack([rows, np.full((h, pad), 7, dtype=np.uint8)])
    return Frame(rows.tobytes(), w, h, w * channels + pad, channels, 0.0)


def generated(text: str, fmt: str, size: int = 400) -> object:
    barcode = zxingcpp.create_barcode(text, getattr(zxingcpp.BarcodeFormat, fmt))
    img = np.array(zxingcpp.write_barcode_to_image(barcode, size_hint=size))
    return np.pad(img, 40, constant_values=255)


@pytest.mark.parametrize("name", DECODERS)
@pytest.mark.parametrize(
    ("fmt", "symbology"), [("QRCode", Symbology.QR_CODE), ("Code128", Symbology.CODE128)]
)
def test_card_code_read_back(name: str, fmt: str, symbology: Symbology) -> None:
    text = encode_card_code("MAD01", 1234567, KEY)
    found = make_decoder(name).decode(frame_of(generated(text, fmt)))
    assert [(d.symbology, d.text) for d in found] == [(symbology, text)]
    assert found[0].data == text.encode("ascii")
    assert len(found[0].corners) == 4


@pytest.mark.parametrize("name", DECODERS)
def test_bgr_and_padded_stride_frames(name: str) -> None:
    text = encode_card_code("MAD01", 42, KEY)
    grey = generated(text, "QRCode")
    bgr = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    decoder = make_decoder(name)
    assert [d.text for d in decoder.decode(frame_of(bgr, pad=5))] == [text]
    assert [d.text for d in decoder.decode(frame_of(grey, pad=3))] == [text]


@pytest.mark.parametrize("name", DECODERS)
def test_noise_and_blank_frames_decode_to_nothing(name: str) -> None:
    rng = np.random.default_rng(1)
    decoder = make_decoder(name)
    assert decoder.preflight() is DeviceStatus.READY
    assert decoder.decode(frame_of(rng.integers(0, 256, (240, 320), dtype=np.uint8))) == ()
    assert decoder.decode(frame_of(np.zeros((1, 1), dtype=np.uint8))) == ()


def test_zxing_reads_pdf417_with_control_characters() -> None:
    text = "@\n\x1e\rANSI 636014040002DL00410278ZC03190008DLDAQF1234567\nDCSDOE\n"
    found = make_decoder("zxing").decode(frame_of(generated(text, "PDF417", 600)))
    assert [d.text for d in found] == [text]
    assert found[0].symbology is Symbology.PDF417


def test_repr_hides_content() -> None:
    assert "SECRET" not in repr(DecodedBarcode(Symbology.QR_CODE, "SECRET", b"SECRET"))


def test_make_decoder() -> None:
    assert make_decoder().name == "zxing"
    assert make_decoder("zbar+zxing").name == "zbar+zxing"
    with pytest.raises(ConfigError):
        make_decoder("tesseract")


def test_fallback_and_fake() -> None:
    hit = DecodedBarcode(Symbology.CODE128, "X", b"X")
    first = FakeDecoder([(), [hit]])
    second = FakeDecoder([[hit], DeviceError("boom")])
    fallback = FallbackDecoder(first, second)
    frame = Frame(b"\0", 1, 1, 1, 1, 0.0)
    assert fallback.decode(frame) == (hit,)  # first found nothing: second answered
    assert fallback.decode(frame) == (hit,)  # first answered
    assert len(second.frames) == 1
    assert FallbackDecoder(FakeDecoder(), second).decode(frame) == ()  # DeviceError swallowed
    with pytest.raises(DeviceError):
        FakeDecoder([DeviceError("x")]).decode(frame)


# --- the shared set of real photos ------------------------------------------------------


def decode_file(name: str, file: str) -> Sequence[DecodedBarcode]:
    image = cv2.imread(str(REAL / file), cv2.IMREAD_GRAYSCALE)
    return make_decoder(name).decode(frame_of(image))


def read_rate(name: str, truth: list[Truth]) -> tuple[int, list[str]]:
    """(exact reads, misreads) -- a misread is text that matches no truth row of the
    same image and symbology."""
    exact, misreads = 0, []
    for file in sorted({t.file for t in truth}):
        rows = [t for t in truth if t.file == file]
        found = decode_file(name, file)
        texts = [(d.symbology.value, d.text) for d in found]
        for row in rows:
            if (row.format, row.text) in texts:
                exact += 1
        for fmt, text in texts:
            if any(r.format == fmt for r in rows) and all(r.text != text for r in rows):
                misreads.append(file)
    return exact, misreads


def test_zxing_on_real_photos(truth: list[Truth]) -> None:
    exact, misreads = read_rate("zxing", truth)
    assert exact >= 42, exact  # measured 44/48 with zxing-cpp 2.3
    assert misreads == []
    pdf = [t for t in truth if t.format == "PDF417"]
    assert all(
        t.text in [d.text for d in decode_file("zxing", t.file)] for t in pdf
    )  # driving licences use PDF417


def test_zbar_on_real_photos(truth: list[Truth]) -> None:
    exact, misreads = read_rate("zbar", truth)
    assert exact >= 26, exact  # measured 29/48: no PDF417, Data Matrix, Aztec
    assert set(misreads) <= {"zxing-qrcode-2-19.png"}  # Shift-JIS QR read as another charset


def test_expected_file_matches_the_zxing_read(truth: list[Truth]) -> None:
    """expected/*.txt holds the exact bytes of the main symbol (FedEx PDF417)."""
    raw = (REAL / "expected" / "zxing-pdf417-3-12.png.txt").read_bytes().decode("utf-8")
    assert raw in [d.text for d in decode_file("zxing", "zxing-pdf417-3-12.png")]
