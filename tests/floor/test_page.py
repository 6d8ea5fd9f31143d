"""The floor phone page as a person uses it (art. 22.4: staff check an entry card where
players are), in a real headless Chromium at 390 x 844 over HTTPS on loopback, served by
the desk's real floor service (ui/floor: FloorService and FloorServer on a SQLCipher
visitor file, its own casino CA trusted by the browser): sign-in,
a valid card read through the (fake) camera, a voided card, a forged code, an old ADM1
code answered online, then the server stops: the same cards answered offline from the
signed list ("lista de las 21:40"), a reload served by the service worker, and the
offline checks sent to the audit trail once the server is back. Screenshots of each
screen in Spanish and English go to build/screens/floor-<screen>-<es|en>.png."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from tests.floor.browser import (
    MADRID,
    Session,
    card_photo,
    chrome,
    have_browser,
    madrid_today,
    temp_profile,
    write_y4m,
)
from tests.floor.conftest import PIN
from tests.floor.real_floor import Card, RealFloor

pytestmark = pytest.mark.skipif(not have_browser(), reason="Debian's chromium and chromedriver")

USER = "sala1"  # a FLOOR account with a PIN (tests/floor/conftest.add_people)
TODAY = madrid_today()
YEAR = (TODAY, TODAY + timedelta(days=364))
VALID = Card(0, "STANDARD", *YEAR, "Ana García López")
VOIDED = Card(0, "STANDARD", *YEAR, "Luis Pérez", void_reason="Tarjeta perdida: se emitió otra")
OLD = Card(0, "STANDARD", *YEAR, "Marta Ruiz")
NAMES = ("GARC", "PÉREZ", "PEREZ", "RUIZ", "Ana", "Luis", "Marta")


@dataclass
class Scene:
    floor: RealFloor
    valid: Card
    voided: Card
    old: Card


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    floor = RealFloor(tmp_path_factory.mktemp("floor-real"))
    try:
        cards = [floor.add(card, n) for n, card in enumerate((VALID, VOIDED, OLD), start=1)]
        floor.start()
        yield Scene(floor, *cards)
    finally:
        floor.close()


@pytest.fixture(scope="module")
def phone(scene: Scene) -> Iterator[Session]:
    profiles = temp_profile()
    driver = chrome(next(profiles), scene.floor.tls)
    try:
        session = Session(driver, scene.floor.url)
        session.open()
        yield session
    finally:
        driver.quit()
        next(profiles, None)


def shots(session: Session, name: str) -> None:
    """The screen as it is, in Spanish then English (the page's own toggle)."""
    for language in ("es", "en"):
        session.set_language(language)
        session.wait_js(f"return document.documentElement.lang === '{language}'")
        session.screenshot(f"floor-{name}-{language}")
    session.set_language("es")


def signed_in(phone: Session) -> None:
    if phone.visible("signin"):
        phone.sign_in(USER, PIN)
        phone.wait_js("return !document.getElementById('scan').hidden")
    elif phone.visible("answer"):
        phone.scan_another()


def facts(phone: Session) -> dict[str, str]:
    return {
        name: phone.text(f"f-{name}") if phone.visible(f"row-{name}") else ""
        for name in ("number", "type", "validity", "holder", "reason")
    }


def local_storage(phone: Session) -> dict[str, str]:
    return dict(
        phone.driver.execute_script(
            "const o = {}; for (let i = 0; i < localStorage.length; i++) {"
            " const k = localStorage.key(i); o[k] = localStorage.getItem(k); } return o;"
        )
    )


def forge(code: str) -> str:
    """The code with one character of its signature changed."""
    return code[:-3] + ("A" if code[-3] != "A" else "B") + code[-2:]


def list_time(phone: Session) -> str:
    """The void list's issue time as the page must say it (HH:MM in Madrid)."""
    body = json.loads(json.loads(local_storage(phone)["floor.voids"])["signed"]["body"])
    return datetime.fromisoformat(body["issued_at"]).astimezone(MADRID).strftime("%H:%M")


def test_sign_in_with_the_numeric_pin_and_the_place_remembered(
    phone: Session, scene: Scene
) -> None:
    d = phone.driver
    assert phone.visible("signin") and not phone.visible("scan")
    assert d.find_element(By.ID, "pin").get_attribute("inputmode") == "numeric"
    assert d.find_element(By.ID, "pin").get_attribute("type") == "password"
    for field in ("username", "pin", "place"):  # every input has its label
        assert d.find_elements(By.CSS_SELECTOR, f"label[for='{field}']")
    shots(phone, "signin")
    phone.sign_in(USER, "0000")
    phone.wait_js("return !document.getElementById('signin-error').hidden")
    assert phone.text("signin-error") == "Usuario o PIN incorrectos."
    assert phone.visible("signin")
    d.find_element(By.ID, "pin").clear()
    phone.sign_in(USER, PIN)
    phone.wait_js("return !document.getElementById('scan').hidden")
    shots(phone, "scan")
    stored = local_storage(phone)
    assert json.loads(stored["floor.place"]) == "Mesa 3"
    assert json.loads(stored["floor.keys"])["casino_id"] == scene.floor.casino
    voids = json.loads(json.loads(stored["floor.voids"])["signed"]["body"])
    assert voids["voided"] == [scene.voided.number]


def test_a_valid_card_read_through_the_camera(scene: Scene, tmp_path: Path) -> None:
    """A fresh phone whose camera sees the printed card at about 20 cm (the card as the
    desk prints it, with the ADM2 code in its QR): the answer comes without typing
    (BarcodeDetector where the browser has it, jsQR on canvas frames otherwise)."""
    floor, card = scene.floor, scene.valid
    camera = write_y4m(tmp_path / "card.y4m", card_photo(floor.code(card)))
    profiles = temp_profile()
    driver = chrome(next(profiles), floor.tls, camera=camera)
    try:
        phone = Session(driver, floor.url)
        phone.open()
        phone.sign_in(USER, PIN)
        assert phone.answer() == "VALID"
        assert phone.text("verdict") == "VÁLIDA"
        decoder = driver.execute_script("return window.floor.decoder")
        assert decoder in ("BarcodeDetector", "jsQR")
        print(f"camera decoder: {decoder}")
        assert driver.find_element(By.ID, "code").get_attribute("value") == floor.code(card)
        shown = facts(phone)
        # the type's label from the casino's card types (R10), not its code
        assert shown["number"] == str(card.number) and shown["type"] == "Entrada general"
        assert shown["holder"] == "Ana GARCÍA LÓPEZ"
        assert card.valid_until.strftime("%d/%m/%Y") in shown["validity"]
        assert phone.text("source-line") == "Comprobada con el fichero"
        live = "return document.getElementById('verdict-box').getAttribute('aria-live')"
        assert driver.execute_script(live) == "assertive"
        stopped = "return document.getElementById('video').srcObject === null"
        assert driver.execute_script(stopped)  # the camera is off once the code is read
        shots(phone, "valid")
    finally:
        driver.quit()
        next(profiles, None)
    last = floor.checks("floor")[-1]
    assert (last["result"], last["place"]) == ("VALID", "Mesa 3")


def test_a_voided_card_says_why(phone: Session, scene: Scene) -> None:
    signed_in(phone)
    assert phone.type_code(scene.floor.code(scene.voided)) == "VOID"
    assert phone.text("verdict") == "ANULADA"
    shown = facts(phone)
    assert shown["number"] == str(scene.voided.number)
    assert shown["reason"] == scene.voided.void_reason
    assert shown["holder"] == "Luis PÉREZ"
    assert "bad" in phone.driver.find_element(By.ID, "verdict-box").get_attribute("class")
    shots(phone, "void")
    assert scene.floor.checks("floor")[-1]["place"] == "Mesa 3"


def test_a_forged_code(phone: Session, scene: Scene) -> None:
    signed_in(phone)
    assert phone.type_code(forge(scene.floor.code(scene.valid))) == "FORGED"
    assert phone.text("verdict") == "FALSIFICADA"
    assert facts(phone)["holder"] == "" and facts(phone)["number"] == ""
    shots(phone, "forged")
    phone.scan_another()
    assert phone.type_code("https://example.org/not-a-card") == "NOT_A_CARD"
    assert phone.text("verdict") == "NO ES UNA TARJETA"


def test_an_old_adm1_code_verifies_online(phone: Session, scene: Scene) -> None:
    signed_in(phone)
    assert phone.type_code(scene.floor.adm1(scene.old)) == "VALID"
    assert facts(phone)["number"] == str(scene.old.number)
    assert facts(phone)["holder"] == "Marta RUIZ"


def test_offline_after_the_server_stops_then_the_checks_reach_the_audit_trail(
    phone: Session, scene: Scene
) -> None:
    floor = scene.floor
    signed_in(phone)
    online_checks = len(floor.checks("floor"))
    floor.stop()
    try:
        assert phone.type_code(floor.code(scene.valid)) == "VALID"
        listed = list_time(phone)
        assert phone.text("source-line") == f"Comprobada sin conexión · lista de las {listed}"
        shown = facts(phone)
        assert shown["number"] == str(scene.valid.number)
        assert shown["type"] == "Entrada general"  # the labels kept with the keys
        assert shown["holder"] == ""  # no names offline
        phone.scan_another()
        assert phone.type_code(floor.code(scene.voided)) == "VOID"
        assert facts(phone)["reason"] == "" and facts(phone)["holder"] == ""
        assert phone.text("source-line").startswith("Comprobada sin conexión")
        shots(phone, "offline")
        phone.set_language("en")
        assert phone.text("source-line") == f"Checked offline · list from {listed}"
        phone.set_language("es")
        phone.scan_another()
        assert phone.type_code(floor.adm1(scene.old)) == "OFFLINE_ADM1"
        assert "sin conexión" in phone.text("verdict-note")
        phone.scan_another()
        assert phone.type_code(forge(floor.code(scene.valid))) == "FORGED"
        pending = json.loads(local_storage(phone)["floor.pending"])
        assert [p["answer"] for p in pending] == ["VALID", "VOID", "FORGED"]
        assert {p["place"] for p in pending} == {"Mesa 3"}

        # a reload while the server is down: the service worker has the page
        phone.driver.get(floor.url + "/")
        phone.wait_js("return document.body.getAttribute('data-ready') === '1'")
        assert phone.visible("scan") and phone.visible("banner")
        assert phone.type_code(floor.code(scene.voided)) == "VOID"
        assert len(json.loads(local_storage(phone)["floor.pending"])) == 4
    finally:
        floor.start()
    assert len(floor.checks("floor")) == online_checks  # nothing reached the file meanwhile
    assert floor.checks("floor-offline") == []
    phone.driver.execute_script("window.dispatchEvent(new Event('online'))")
    phone.wait_js("return JSON.parse(localStorage.getItem('floor.pending') || '[]').length === 0")
    sent = floor.checks("floor-offline")
    assert [c["answer"] for c in sent] == ["VALID", "VOID", "FORGED", "VOID"]
    assert [c["result"] for c in sent] == ["VALID", "VOIDED", "CODE_TAMPERED", "VOIDED"]
    assert all(c["checked_at"] and c["place"] == "Mesa 3" for c in sent)


def test_another_account_s_offline_checks_wait_for_it(phone: Session, scene: Scene) -> None:
    """Checks kept offline under one account are never sent under another's session."""
    signed_in(phone)
    sent = len(scene.floor.checks("floor-offline"))
    d = phone.driver
    d.execute_script(
        "localStorage.setItem('floor.pending', JSON.stringify([{id: 'x', by: '0123456789abcdef',"
        " code: arguments[0], checked_at: new Date().toISOString(), answer: 'VALID',"
        " place: 'Póker'}]))",
        scene.floor.code(scene.valid),
    )
    assert d.execute_async_script("window.floor.flushPending().then(arguments[0])") is True
    assert len(json.loads(local_storage(phone)["floor.pending"])) == 1
    assert len(scene.floor.checks("floor-offline")) == sent
    d.execute_script("localStorage.setItem('floor.pending', '[]')")


def test_one_malformed_offline_check_does_not_block_the_others(
    phone: Session, scene: Scene
) -> None:
    """The service refuses the batch (400): the checks go one at a time, the good ones
    are recorded and only the refused one leaves the queue unrecorded."""
    signed_in(phone)
    sent = len(scene.floor.checks("floor-offline"))
    d = phone.driver
    d.execute_script(
        "const me = JSON.parse(localStorage.getItem('floor.who'));"
        "const at = new Date().toISOString();"
        "localStorage.setItem('floor.pending', JSON.stringify(["
        " {id: 'a', by: me, code: arguments[0], checked_at: at, answer: 'VALID', place: 'Póker'},"
        " {id: 'b', by: me, code: arguments[0], checked_at: 'ayer', answer: 'VALID', place: 'P'},"
        " {id: 'c', by: me, code: arguments[1], checked_at: at, answer: 'VOID', place: 'Póker'}]))",
        scene.floor.code(scene.valid),
        scene.floor.code(scene.voided),
    )
    assert d.execute_async_script("window.floor.flushPending().then(arguments[0])") is True
    assert json.loads(local_storage(phone)["floor.pending"]) == []
    recorded = scene.floor.checks("floor-offline")[sent:]
    assert [(c["answer"], c["place"]) for c in recorded] == [("VALID", "Póker"), ("VOID", "Póker")]


def test_no_name_is_kept_in_the_phone(phone: Session) -> None:
    stored = json.dumps(local_storage(phone), ensure_ascii=False)
    for name in NAMES:
        assert name not in stored


def test_the_page_runs_under_the_content_security_policy(phone: Session) -> None:
    logs = phone.driver.get_log("browser")
    assert not [entry for entry in logs if "Content Security Policy" in entry["message"]]


CONTRAST = """
const rgb = (c) => c.match(/[0-9.]+/g).slice(0, 3).map(Number);
const lum = (c) => {
  const [r, g, b] = rgb(c).map((v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
const box = document.getElementById('verdict-box'), word = document.getElementById('verdict');
const out = {};
for (const kind of ['good', 'bad', 'warn']) {
  box.className = 'verdict ' + kind;
  out[kind] = ratio(getComputedStyle(word).color, getComputedStyle(box).backgroundColor);
}
const body = getComputedStyle(document.body);
out.text = ratio(body.color, body.backgroundColor);
const hint = document.querySelector('.hint');
out.hint = ratio(getComputedStyle(hint).color, body.backgroundColor);
return out;
"""


def test_the_answer_colours_are_readable(phone: Session) -> None:
    """WCAG 2.1 contrast (AA, 4.5:1 for normal text) of the answer on its colour, and of
    the page's text and hints on the background."""
    ratios = phone.driver.execute_script(CONTRAST)
    assert all(value >= 4.5 for value in ratios.values()), ratios
