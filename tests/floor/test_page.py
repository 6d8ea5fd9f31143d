"""The floor phone page as a person uses it (art. 22.4: staff check an entry card where
players are), in a real headless Chromium at 390 x 844 over HTTPS on loopback: sign-in,
a valid card read through the (fake) camera, a voided card, a forged code, an old ADM1
code answered online, then the server stops: the same cards answered offline from the
signed list ("lista de las 21:40"), a reload served by the service worker, and the
offline checks sent to the audit trail once the server is back. Screenshots of each
screen in Spanish and English go to build/screens/floor-<screen>-<es|en>.png."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from tests.floor.browser import (
    Card,
    FakeFloor,
    Session,
    card_frame,
    chrome,
    have_browser,
    madrid_today,
    make_tls,
    temp_profile,
    write_y4m,
)

pytestmark = pytest.mark.skipif(not have_browser(), reason="Debian's chromium and chromedriver")

TODAY = madrid_today()
VALID = Card(
    1001, "GENERAL", TODAY - timedelta(days=30), TODAY + timedelta(days=335), "Ana GARCÍA LÓPEZ"
)
VOIDED = Card(
    1002,
    "GENERAL",
    TODAY - timedelta(days=30),
    TODAY + timedelta(days=335),
    "Luis PÉREZ",
    void_reason="Tarjeta perdida: se emitió la 1003",
)
OLD = Card(900, "GENERAL", TODAY - timedelta(days=200), TODAY + timedelta(days=165), "Marta RUIZ")
NAMES = ("GARC", "PÉREZ", "PEREZ", "RUIZ", "Ana", "Luis", "Marta")


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeFloor]:
    service = FakeFloor(make_tls(tmp_path_factory.mktemp("floor-tls")))
    for card in (VALID, VOIDED, OLD):
        service.add(card)
    service.start()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="module")
def phone(floor: FakeFloor) -> Iterator[Session]:
    profiles = temp_profile()
    driver = chrome(next(profiles), floor.tls)
    try:
        session = Session(driver, floor.url)
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
        phone.sign_in()
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


def test_sign_in_with_the_numeric_pin_and_the_place_remembered(
    phone: Session, floor: FakeFloor
) -> None:
    d = phone.driver
    assert phone.visible("signin") and not phone.visible("scan")
    assert d.find_element(By.ID, "pin").get_attribute("inputmode") == "numeric"
    assert d.find_element(By.ID, "pin").get_attribute("type") == "password"
    for field in ("username", "pin", "place"):  # every input has its label
        assert d.find_elements(By.CSS_SELECTOR, f"label[for='{field}']")
    shots(phone, "signin")
    phone.sign_in(pin="9999")
    phone.wait_js("return !document.getElementById('signin-error').hidden")
    assert phone.text("signin-error") == "Usuario o PIN incorrectos."
    assert phone.visible("signin")
    d.find_element(By.ID, "pin").clear()
    phone.sign_in()
    phone.wait_js("return !document.getElementById('scan').hidden")
    shots(phone, "scan")
    stored = local_storage(phone)
    assert json.loads(stored["floor.place"]) == "Mesa 3"
    assert json.loads(stored["floor.keys"])["casino_id"] == floor.casino
    assert json.loads(json.loads(stored["floor.voids"])["signed"]["body"])["voided"] == [
        VOIDED.number
    ]


def test_a_valid_card_read_through_the_camera(floor: FakeFloor, tmp_path: Path) -> None:
    """A fresh phone whose camera sees the printed card's QR: the answer comes without
    typing (BarcodeDetector where the browser has it, jsQR on canvas frames otherwise)."""
    camera = write_y4m(tmp_path / "card.y4m", card_frame(floor.code(VALID)))
    profiles = temp_profile()
    driver = chrome(next(profiles), floor.tls, camera=camera)
    try:
        phone = Session(driver, floor.url)
        phone.open()
        phone.sign_in()
        assert phone.answer() == "VALID"
        assert phone.text("verdict") == "VÁLIDA"
        decoder = driver.execute_script("return window.floor.decoder")
        assert decoder in ("BarcodeDetector", "jsQR")
        print(f"camera decoder: {decoder}")
        assert driver.find_element(By.ID, "code").get_attribute("value") == floor.code(VALID)
        shown = facts(phone)
        assert shown["number"] == "1001" and shown["type"] == "GENERAL"
        assert shown["holder"] == VALID.holder_name
        assert VALID.valid_until.strftime("%d/%m/%Y") in shown["validity"]
        assert phone.text("source-line") == "Comprobada con el fichero"
        assert (
            driver.execute_script(
                "return document.getElementById('verdict-box').getAttribute('aria-live')"
            )
            == "assertive"
        )
        assert (
            driver.execute_script("return document.getElementById('video').srcObject") is None
        )  # stopped
        shots(phone, "valid")
    finally:
        driver.quit()
        next(profiles, None)


def test_a_voided_card_says_why(phone: Session, floor: FakeFloor) -> None:
    signed_in(phone)
    assert phone.type_code(floor.code(VOIDED)) == "VOID"
    assert phone.text("verdict") == "ANULADA"
    shown = facts(phone)
    assert shown["number"] == "1002" and shown["reason"] == VOIDED.void_reason
    assert shown["holder"] == VOIDED.holder_name
    assert "bad" in phone.driver.find_element(By.ID, "verdict-box").get_attribute("class")
    shots(phone, "void")
    assert floor.checks[-1] == {"answer": "VOID", "place": "Mesa 3"}


def test_a_forged_code(phone: Session, floor: FakeFloor) -> None:
    signed_in(phone)
    genuine = floor.code(VALID)
    forged = genuine[:-3] + ("A" if genuine[-3] != "A" else "B") + genuine[-2:]
    assert phone.type_code(forged) == "FORGED"
    assert phone.text("verdict") == "FALSIFICADA"
    assert facts(phone)["holder"] == ""
    shots(phone, "forged")
    phone.scan_another()
    assert phone.type_code("https://example.org/not-a-card") == "NOT_A_CARD"
    assert phone.text("verdict") == "NO ES UNA TARJETA"


def test_an_old_adm1_code_verifies_online(phone: Session, floor: FakeFloor) -> None:
    signed_in(phone)
    assert phone.type_code(floor.adm1(OLD)) == "VALID"
    assert facts(phone)["number"] == str(OLD.number)


def test_offline_after_the_server_stops_then_the_checks_reach_the_audit_trail(
    phone: Session, floor: FakeFloor
) -> None:
    signed_in(phone)
    online_checks = len(floor.checks)
    floor.stop()
    try:
        assert phone.type_code(floor.code(VALID)) == "VALID"
        line = phone.text("source-line")
        listed = floor.issued_at.strftime("%H:%M")
        assert line == f"Comprobada sin conexión · lista de las {listed}"
        shown = facts(phone)
        assert shown["number"] == "1001" and shown["holder"] == ""  # no names offline
        phone.scan_another()
        assert phone.type_code(floor.code(VOIDED)) == "VOID"
        assert facts(phone)["reason"] == "" and facts(phone)["holder"] == ""
        assert phone.text("source-line").startswith("Comprobada sin conexión")
        shots(phone, "offline")
        phone.set_language("en")
        assert phone.text("source-line") == f"Checked offline · list from {listed}"
        phone.set_language("es")
        phone.scan_another()
        assert phone.type_code(floor.adm1(OLD)) == "OFFLINE_ADM1"
        assert "sin conexión" in phone.text("verdict-note")
        phone.scan_another()
        genuine = floor.code(VALID)
        assert (
            phone.type_code(genuine[:-3] + ("A" if genuine[-3] != "A" else "B") + genuine[-2:])
            == "FORGED"
        )
        pending = json.loads(local_storage(phone)["floor.pending"])
        assert [p["answer"] for p in pending] == ["VALID", "VOID", "FORGED"]
        assert {p["place"] for p in pending} == {"Mesa 3"}

        # a reload while the server is down: the service worker has the page
        phone.driver.get(floor.url + "/")
        phone.wait_js("return document.body.getAttribute('data-ready') === '1'")
        assert phone.visible("scan") and phone.visible("banner")
        assert phone.type_code(floor.code(VOIDED)) == "VOID"
        assert len(json.loads(local_storage(phone)["floor.pending"])) == 4
        assert len(floor.checks) == online_checks  # nothing reached the server
    finally:
        floor.start()
    phone.driver.execute_script("window.dispatchEvent(new Event('online'))")
    phone.wait_js("return JSON.parse(localStorage.getItem('floor.pending') || '[]').length === 0")
    assert [c["answer"] for c in floor.offline_checks] == ["VALID", "VOID", "FORGED", "VOID"]
    assert all(c["checked_at"] and c["code"].startswith("ADM2-") for c in floor.offline_checks)


def test_no_name_is_kept_in_the_phone(phone: Session) -> None:
    stored = json.dumps(local_storage(phone), ensure_ascii=False)
    for name in NAMES:
        assert name not in stored


def test_the_page_runs_under_the_content_security_policy(phone: Session) -> None:
    logs = phone.driver.get_log("browser")
    assert not [entry for entry in logs if "Content Security Policy" in entry["message"]]
