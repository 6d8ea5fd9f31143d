"""The floor phone page's test kit: a real headless Chromium (Debian's ``chromium`` and
``chromedriver``, driven by selenium) at a phone's 390 x 844 trusting the server key of
the desk's casino certificate (ui/floor/certs.py), a fake camera filming the printed
card (a Y4M file), ADM2 codes signed here with ``cryptography``, the desk's real floor
service on a SQLCipher file (``RealFloor``) and a bare HTTPS origin for the tests of
the page's own code (``PageOrigin``).

Nothing here is imported by the application.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import shutil
import socket
import ssl
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "resources" / "floor"
SCREENS = ROOT / "build" / "screens"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
MADRID = ZoneInfo("Europe/Madrid")
CSP = (
    "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob: mediastream:; "
    "style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
)
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
EPOCH = date(2000, 1, 1)


def have_browser() -> bool:
    return Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


def madrid_today() -> date:
    return datetime.now(MADRID).date()


# -- ADM2 (contract section 1), written here independently of the application ---------


def crockford(data: bytes) -> str:
    bits = "".join(f"{b:08b}" for b in data)
    bits += "0" * (-len(bits) % 5)
    return "".join(CROCKFORD[int(bits[i : i + 5], 2)] for i in range(0, len(bits), 5))


def key_id_of(public: bytes) -> str:
    return hashlib.sha256(public).digest()[:4].hex()


def raw_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def adm2_payload(
    key: Ed25519PrivateKey,
    casino: str,
    number: int,
    card_type: str,
    valid_from: date,
    valid_until: date,
    holder: bytes = b"\x01\x02\x03\x04",
) -> bytes:
    return (
        bytes.fromhex(key_id_of(raw_public(key)))
        + bytes([len(casino)])
        + casino.encode("ascii")
        + number.to_bytes(5, "big")
        + bytes([len(card_type)])
        + card_type.encode("ascii")
        + (valid_from - EPOCH).days.to_bytes(2, "big")
        + (valid_until - EPOCH).days.to_bytes(2, "big")
        + holder
    )


def adm2_code(key: Ed25519PrivateKey, payload: bytes) -> str:
    return "ADM2-" + crockford(payload + key.sign(b"ADM2\x00" + payload))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


# -- TLS: the desk's casino CA and a server certificate for loopback ---------------


@dataclass(frozen=True)
class Tls:
    cert: Path
    key: Path
    ca: Path
    spki: str  # base64 SHA-256 of the server key's SubjectPublicKeyInfo (Chromium's trust list)

    def context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(self.cert, self.key)
        return ctx


def make_tls(folder: Path) -> Tls:
    """The desk's own casino CA and server certificate for 127.0.0.1 (ui/floor/certs.py,
    made in ``folder``), and what Chromium needs to trust that server's key."""
    from ui.floor.certs import made_certificate

    made = made_certificate(folder, "127.0.0.1")
    key = serialization.load_pem_private_key(made.key.read_bytes(), None)
    spki = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    digest = base64.b64encode(hashlib.sha256(spki).digest()).decode()
    return Tls(made.cert, made.key, folder / "floor-tls" / "ca.crt", digest)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- a bare origin for the page (the JS-only tests) ----------------------------------


class PageOrigin:
    """resources/floor/ over HTTPS on loopback with the contract's CSP, and every /api/
    path answering 401: the page has a secure origin to run WebCrypto in, and the tests
    of its own code (tests/floor/test_page_crypto.py) need nothing of the desk."""

    def __init__(self, tls: Tls) -> None:
        self.tls = tls
        self.port = free_port()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @staticmethod
    def _app() -> web.Application:
        @web.middleware
        async def headers(request: web.Request, handler: Any) -> web.StreamResponse:
            response = await handler(request)
            response.headers["Content-Security-Policy"] = CSP
            return response

        async def page(_request: web.Request) -> web.StreamResponse:
            return web.FileResponse(PAGE / "index.html")

        async def sw(_request: web.Request) -> web.StreamResponse:
            return web.FileResponse(PAGE / "sw.js", headers={"Content-Type": "text/javascript"})

        async def static(request: web.Request) -> web.StreamResponse:
            path = (PAGE / request.match_info["name"]).resolve()
            if not path.is_file() or PAGE.resolve() not in path.parents:
                raise web.HTTPNotFound()
            return web.FileResponse(path)

        async def api(_request: web.Request) -> web.Response:
            body = {"error": "NOT_SIGNED_IN", "message_es": "-", "message_en": "-"}
            return web.json_response(body, status=401)

        app = web.Application(middlewares=[headers])
        app.router.add_get("/", page)
        app.router.add_get("/sw.js", sw)
        app.router.add_get("/static/{name:.+}", static)
        app.router.add_route("*", "/api/{rest:.*}", api)
        return app

    def start(self) -> None:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            runner = web.AppRunner(self._app())
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", self.port, ssl_context=self.tls.context())
            loop.run_until_complete(site.start())
            ready.set()
            loop.run_forever()
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the page's origin did not start")

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        self._loop = self._thread = None


# -- the fake camera: the printed card as a Y4M video --------------------------------------


def card_photo(
    code: str, width: int = 1280, height: int = 720, seen_mm: float = 255.0
) -> np.ndarray:
    """A grey camera frame of the printed card (hardware/printer/render.render_card with
    ``code`` in its QR, rasterised at 300 dpi) held at about 20 cm: a 1280 x 720 camera
    with a 65 degree field sees about 255 mm across there, so the CR80 card's 85.6 mm
    fill a third of the frame and its 24 mm QR about 120 pixels. The person points the
    QR at the frame drawn on the page (its centre); slightly blurred, as a phone's lens
    is, on a dark table."""
    import io
    from dataclasses import replace

    from PIL import Image, ImageFilter

    from hardware.printer.render import preview_png, render_card
    from tests.printer.factories import view

    printed = preview_png(render_card(replace(view(), signed_code=code)).pdf, dpi=300)
    card = Image.open(io.BytesIO(printed)).convert("L")
    per_mm = width / seen_mm
    size = (round(85.6 * per_mm), round(54.0 * per_mm))
    frame = Image.new("L", (width, height), 60)
    qr_centre_mm = (85.6 - 1.5 - 12.0, 25.3)  # hardware/printer/render: the QR's place
    left = width // 2 - round(qr_centre_mm[0] * per_mm)
    top = height // 2 - round(qr_centre_mm[1] * per_mm)
    frame.paste(card.resize(size, Image.Resampling.LANCZOS), (left, top))
    return np.asarray(frame.filter(ImageFilter.GaussianBlur(0.7)), dtype=np.uint8)


def write_y4m(path: Path, grey: np.ndarray, frames: int = 3) -> Path:
    """YUV4MPEG2 4:2:0, the grey image as luma and neutral chroma (what Chromium's
    ``--use-file-for-fake-video-capture`` plays in a loop)."""
    h, w = grey.shape
    assert w % 2 == 0 and h % 2 == 0
    chroma = np.full((h // 2) * (w // 2), 128, dtype=np.uint8).tobytes()
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420jpeg\n".encode("ascii"))
        for _ in range(frames):
            out.write(b"FRAME\n")
            out.write(np.ascontiguousarray(grey).tobytes())
            out.write(chroma)
            out.write(chroma)
    return path


# -- the browser ---------------------------------------------------------------------


def chrome(
    profile: Path,
    tls: Tls | None = None,
    *,
    camera: Path | None = None,
    language: str = "es-ES",
    page_load_strategy: str = "normal",
) -> Any:
    """A headless Chromium with a phone's viewport (390 x 844, one CSS pixel a pixel),
    its own profile, trusting the test server's key and, when given, a fake camera."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    options.page_load_strategy = page_load_strategy  # "none": time the page, not the driver
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-extensions",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--lang={language}",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
    ):
        options.add_argument(arg)
    if tls is not None:
        options.add_argument(f"--ignore-certificate-errors-spki-list={tls.spki}")
    if camera is not None:
        options.add_argument(f"--use-file-for-fake-video-capture={camera}")
    options.add_experimental_option(
        "mobileEmulation",
        {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 1.0, "touch": True}},
    )
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_script_timeout(30)
    return driver


@dataclass
class Session:
    """One browser on one page, with helpers the tests share."""

    driver: Any
    url: str

    def open(self) -> None:
        self.driver.get(self.url + "/")
        self.wait_js("return document.body.getAttribute('data-ready') === '1'")

    def wait_js(self, script: str, timeout: float = 20.0) -> Any:
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(
            lambda d: d.execute_script(script)
        )

    def visible(self, element_id: str) -> bool:
        return bool(
            self.driver.execute_script(f"return !document.getElementById('{element_id}').hidden")
        )

    def text(self, element_id: str) -> str:
        return str(
            self.driver.execute_script(
                f"return document.getElementById('{element_id}').textContent"
            )
        )

    def sign_in(self, user: str = "ana", pin: str = "1234", place: str = "Mesa 3") -> None:
        from selenium.webdriver.common.by import By

        d = self.driver
        d.find_element(By.ID, "username").clear()
        d.find_element(By.ID, "username").send_keys(user)
        d.find_element(By.ID, "pin").send_keys(pin)
        d.find_element(By.ID, "place").clear()
        d.find_element(By.ID, "place").send_keys(place)
        d.find_element(By.ID, "signin-button").click()

    def type_code(self, code: str) -> str:
        """Types a code in the field, checks it, and returns the answer shown."""
        from selenium.webdriver.common.by import By

        d = self.driver
        field_ = d.find_element(By.ID, "code")
        field_.clear()
        d.execute_script("document.getElementById('code').value = arguments[0]", code)
        d.find_element(By.ID, "check-button").click()
        return self.answer()

    def answer(self) -> str:
        self.wait_js("return !document.getElementById('answer').hidden")
        return str(
            self.driver.execute_script(
                "return document.getElementById('verdict-box').getAttribute('data-answer')"
            )
        )

    def scan_another(self) -> None:
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.ID, "again").click()
        self.wait_js("return !document.getElementById('scan').hidden")

    def screenshot(self, name: str) -> Path:
        SCREENS.mkdir(parents=True, exist_ok=True)
        path = SCREENS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def set_language(self, language: str) -> None:
        self.driver.execute_script(
            "if (document.documentElement.lang !== arguments[0])"
            " document.getElementById('lang').click()",
            language,
        )


def temp_profile() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="floor-chrome-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
