"""The card as the printer renders it: both decoders read its QR back, and it verifies."""

from __future__ import annotations

import pytest

from admission.cards.code import parse_card_code
from admission.frames import Frame
from hardware.barcode import make_decoder

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")
render = pytest.importorskip("hardware.printer.render")
factories = pytest.importorskip("tests.printer.factories")


@pytest.mark.parametrize("dpi", [300, 100])
@pytest.mark.parametrize("decoder", ["zxing", "zbar"])
def test_rendered_card_code_reads_back(decoder: str, dpi: int) -> None:
    view = factories.view(987654)
    png = render.preview_png(render.render_card(view).pdf, dpi=dpi)
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    frame = Frame(img.tobytes(), img.shape[1], img.shape[0], img.shape[1], 1, 0.0)
    texts = [d.text for d in make_decoder(decoder).decode(frame)]
    assert texts == [view.code]
    code = parse_card_code(texts[0], factories.CODE_KEY, casino_id=factories.CASINO_ID)
    assert code.number == 987654
