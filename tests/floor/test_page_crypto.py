"""The phone page's own ADM2 reading and offline verification (contract section 1),
run in a real headless Chromium against vectors signed here in Python with
``cryptography``: decoding (case folding, O/I/L, the "'" separator, padding bits,
exact lengths), the Ed25519 signature through WebCrypto, the key id, the casino, the
validity against today in Europe/Madrid and the signed void list."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.floor.browser import (
    CROCKFORD,
    MADRID,
    PageOrigin,
    Session,
    adm2_code,
    adm2_payload,
    b64url,
    chrome,
    crockford,
    have_browser,
    key_id_of,
    madrid_today,
    make_tls,
    raw_public,
    temp_profile,
)

pytestmark = pytest.mark.skipif(not have_browser(), reason="Debian's chromium and chromedriver")

KEY = Ed25519PrivateKey.generate()
OTHER = Ed25519PrivateKey.generate()
TODAY = madrid_today()
FROM, UNTIL = TODAY - timedelta(days=30), TODAY + timedelta(days=335)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    folder = tmp_path_factory.mktemp("floor-crypto")
    tls = make_tls(folder)
    floor = PageOrigin(tls)
    floor.start()
    profiles = temp_profile()
    driver = chrome(next(profiles), tls)
    try:
        session = Session(driver, floor.url)
        session.open()
        yield session
    finally:
        driver.quit()
        floor.stop()
        next(profiles, None)


def keys_json(*keys: Ed25519PrivateKey, casino: str = "MAD01") -> dict[str, Any]:
    return {
        "casino_id": casino,
        "keys": [
            {"key_id": key_id_of(raw_public(k)), "public_key": b64url(raw_public(k))} for k in keys
        ],
    }


def voids_json(
    voided: list[int], *, key: Ed25519PrivateKey = KEY, casino: str = "MAD01"
) -> dict[str, str]:
    body = json.dumps(
        {
            "format": "adm-voids-1",
            "casino_id": casino,
            "issued_at": datetime.now(MADRID).isoformat(),
            "voided": voided,
        }
    )
    return {
        "body": body,
        "key_id": key_id_of(raw_public(key)),
        "signature": b64url(key.sign(body.encode())),
    }


def code(
    number: int = 1001,
    *,
    key: Ed25519PrivateKey = KEY,
    casino: str = "MAD01",
    card_type: str = "GENERAL",
    valid_from: date = FROM,
    valid_until: date = UNTIL,
) -> str:
    return adm2_code(key, adm2_payload(key, casino, number, card_type, valid_from, valid_until))


def decode(page: Session, text: str) -> Any:
    return page.driver.execute_script("return window.floor.decodeAdm2(arguments[0])", text)


def verify(
    page: Session, text: str, keys: Any, voids: Any, at: str | None = None
) -> dict[str, Any]:
    result: dict[str, Any] = page.driver.execute_async_script(
        """const [text, keys, voids, at, done] = arguments;
        window.floor.verifyOffline(text, keys, voids, at ? new Date(at) : new Date())
          .then(done, (e) => done({answer: 'ERROR ' + e}));""",
        text,
        keys,
        voids,
        at,
    )
    return result


def test_a_python_signed_code_decodes_to_its_fields(page: Session) -> None:
    got = decode(page, code(9_999_999_999, card_type="PRIVATE-ROOMS"))
    assert got["casino"] == "MAD01"
    assert got["number"] == 9_999_999_999
    assert got["cardType"] == "PRIVATE-ROOMS"
    assert got["validFrom"] == (FROM - date(2000, 1, 1)).days
    assert got["validUntil"] == (UNTIL - date(2000, 1, 1)).days
    assert got["keyId"] == key_id_of(raw_public(KEY))
    assert got["holderDigest"] == "01020304"


def test_reading_folds_case_and_the_look_alike_letters_and_the_wedge_separator(
    page: Session,
) -> None:
    text = code()
    assert decode(page, text) is not None
    typed = "adm2'" + text[5:].lower()
    assert decode(page, typed)["number"] == 1001
    body = text[5:]
    if "0" in body:
        assert decode(page, "ADM2-" + body.replace("0", "O", 1))["number"] == 1001
    if "1" in body:
        assert decode(page, "ADM2-" + body.replace("1", "l", 1))["number"] == 1001
        assert decode(page, "ADM2-" + body.replace("1", "I", 1))["number"] == 1001


def test_malformed_texts_are_not_codes(page: Session) -> None:
    text = code()
    payload = adm2_payload(KEY, "MAD01", 1001, "GENERAL", FROM, UNTIL)
    signature = KEY.sign(b"ADM2\x00" + payload)
    padded_bits = (len(payload) + 64) * 8 % 5
    last = CROCKFORD.index(text[-1])
    bad = [
        "",
        "ADM2-",
        "ADM1-MAD01-1-ABCDEFGH",
        "hello",
        text + "0",  # one character more than the bytes need
        text[:-1],  # one character short
        text[:-2],
        "ADM2-" + crockford(payload + signature + b"\x00"),  # a byte more than the lengths say
        "ADM2-" + crockford(payload[:-1] + signature),  # a byte less
        "ADM2-" + "U" + text[6:],  # U is not in the alphabet
        "ADM2-" + "Z" * 300,  # too long to parse at all
        "ADM2-" + crockford(payload.replace(b"\x05MAD01", b"\x00MAD01") + signature),
        "ADM2-" + crockford(payload.replace(b"\x05MAD01", b"\x05mad01") + signature),
    ]
    if padded_bits:  # a padding bit set in the last character
        bad.append(text[:-1] + CROCKFORD[last | 1])
    zero = adm2_payload(KEY, "MAD01", 1, "GENERAL", FROM, UNTIL).replace(
        (1).to_bytes(5, "big"), (0).to_bytes(5, "big")
    )
    bad.append("ADM2-" + crockford(zero + KEY.sign(b"ADM2\x00" + zero)))
    backwards = adm2_payload(KEY, "MAD01", 7, "GENERAL", UNTIL, FROM)
    bad.append("ADM2-" + crockford(backwards + KEY.sign(b"ADM2\x00" + backwards)))
    long_type = adm2_payload(KEY, "MAD01", 7, "X" * 17, FROM, UNTIL)
    bad.append("ADM2-" + crockford(long_type + KEY.sign(b"ADM2\x00" + long_type)))
    for text_ in bad:
        assert decode(page, text_) is None, text_


def test_offline_answers_match_the_service(page: Session) -> None:
    keys = keys_json(KEY)
    voids = voids_json([1002, 5000])
    assert verify(page, code(1001), keys, voids)["answer"] == "VALID"
    assert verify(page, code(1002), keys, voids)["answer"] == "VOID"
    assert (
        verify(
            page,
            code(1003, valid_until=TODAY - timedelta(days=1), valid_from=TODAY - timedelta(days=9)),
            keys,
            voids,
        )["answer"]
        == "EXPIRED"
    )
    assert (
        verify(
            page,
            code(1004, valid_from=TODAY + timedelta(days=1), valid_until=TODAY + timedelta(days=9)),
            keys,
            voids,
        )["answer"]
        == "NOT_YET_VALID"
    )
    assert (
        verify(page, code(1005, valid_from=TODAY, valid_until=TODAY), keys, voids)["answer"]
        == "VALID"
    )
    assert verify(page, code(1001, key=OTHER), keys, voids)["answer"] == "FORGED"  # unknown key id
    assert verify(page, code(1001, casino="BCN02"), keys, voids)["answer"] == "NOT_THIS_CASINO"
    assert verify(page, "ADM1-MAD01-1001-7QX2KD9M", keys, voids)["answer"] == "OFFLINE_ADM1"
    assert verify(page, "https://example.org/", keys, voids)["answer"] == "NOT_A_CARD"


def test_a_changed_field_or_signature_is_forged(page: Session) -> None:
    keys = keys_json(KEY, OTHER)
    voids = voids_json([])
    payload = adm2_payload(KEY, "MAD01", 1001, "GENERAL", FROM, UNTIL)
    signature = KEY.sign(b"ADM2\x00" + payload)
    renumbered = payload.replace((1001).to_bytes(5, "big"), (1009).to_bytes(5, "big"))
    assert (
        verify(page, "ADM2-" + crockford(renumbered + signature), keys, voids)["answer"] == "FORGED"
    )
    flipped = bytearray(signature)
    flipped[10] ^= 1
    assert (
        verify(page, "ADM2-" + crockford(payload + bytes(flipped)), keys, voids)["answer"]
        == "FORGED"
    )
    # signed by the other known key but naming ours: the key id decides the key
    wrong_key = OTHER.sign(b"ADM2\x00" + payload)
    assert verify(page, "ADM2-" + crockford(payload + wrong_key), keys, voids)["answer"] == "FORGED"
    # no domain separation ("ADM2\0" missing): not our signature
    bare = KEY.sign(payload)
    assert verify(page, "ADM2-" + crockford(payload + bare), keys, voids)["answer"] == "FORGED"
    # an older key still verifies the cards it signed
    old = adm2_payload(OTHER, "MAD01", 77, "GENERAL", FROM, UNTIL)
    assert verify(page, adm2_code(OTHER, old), keys, voids)["answer"] == "VALID"


def test_a_void_list_that_does_not_verify_is_not_used(page: Session) -> None:
    keys = keys_json(KEY)
    good = voids_json([1001])
    tampered = dict(good, body=good["body"].replace("[1001]", "[]"))
    assert verify(page, code(1001), keys, tampered)["answer"] == "NO_LIST"
    assert verify(page, code(1001), keys, voids_json([1001], key=OTHER))["answer"] == "NO_LIST"
    assert verify(page, code(1001), keys, voids_json([1001], casino="BCN02"))["answer"] == "NO_LIST"
    assert verify(page, code(1001), keys, None)["answer"] == "NO_LIST"
    assert verify(page, code(1001), keys, good)["answer"] == "VOID"


def test_today_is_madrid_s_day_whatever_the_clock_s_zone(page: Session) -> None:
    def days(at: str) -> int:
        return int(
            page.driver.execute_script("return window.floor.madridDays(new Date(arguments[0]))", at)
        )

    # 23:30 UTC on 28 March 2026 is already 29 March in Madrid (CET, +1)
    assert days("2026-03-28T23:30:00Z") == (date(2026, 3, 29) - date(2000, 1, 1)).days
    # 22:30 UTC on 1 August is 00:30 on 2 August in Madrid (CEST, +2)
    assert days("2026-08-01T22:30:00Z") == (date(2026, 8, 2) - date(2000, 1, 1)).days
    assert days("2026-08-01T21:30:00Z") == (date(2026, 8, 1) - date(2000, 1, 1)).days
    # a card valid until 1 August is expired at 00:30 Madrid on 2 August
    keys = keys_json(KEY)
    card = code(31, valid_from=date(2026, 1, 1), valid_until=date(2026, 8, 1))
    assert verify(page, card, keys, voids_json([]), "2026-08-01T21:30:00Z")["answer"] == "VALID"
    assert verify(page, card, keys, voids_json([]), "2026-08-01T22:30:00Z")["answer"] == "EXPIRED"


def test_codes_from_the_application_s_encoder_read_the_same(page: Session) -> None:
    """The desk's Python ADM2 encoder (admission.cards.signed) and this page agree: its
    codes decode here to the same fields and verify, and the page refuses what it does."""
    signed = pytest.importorskip("admission.cards.signed")
    keys = keys_json(KEY)
    for number, kind in ((1, ""), (1001, "GENERAL"), (9_999_999_999, "PRIVATE_ROOMS_16")):
        fields = signed.SignedFields(
            key_id=key_id_of(raw_public(KEY)),
            casino_id="MAD01",
            number=number,
            card_type=kind,
            valid_from=FROM,
            valid_until=UNTIL,
            holder_digest=bytes.fromhex("a1b2c3d4"),
        )
        payload = signed.encode_payload(fields)
        text = signed.encode_signed_code(payload, KEY.sign(signed.signed_message(payload)))
        got = decode(page, text)
        assert (got["number"], got["cardType"], got["holderDigest"]) == (number, kind, "a1b2c3d4")
        assert verify(page, text, keys, voids_json([]))["answer"] == "VALID"
        assert signed.decode_signed_code(code(number, card_type=kind)).fields.number == number
