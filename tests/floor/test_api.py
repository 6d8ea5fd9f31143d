"""The floor service's API over real HTTPS on loopback, on the SQLCipher file (art. 22.4):
sign-in with a PIN and its lockout, device tokens, checks, offline checks and their
audit entries, and the rate limits."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta

import pytest

from tests.floor.conftest import CASINO, PIN, Floor
from ui.floor.limits import Rate

NAME_PARTS = ("José", "María", "PEÑA", "NÚÑEZ", "Peña")


def no_name(entry: object) -> None:
    text = repr(entry)
    assert not any(part in text for part in NAME_PARTS), text


def test_health_and_headers(floor: Floor) -> None:
    status, headers, body = floor.call("GET", "/api/health")
    assert (status, json.loads(body)) == (200, {"ok": True})
    assert headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    status, _, body = floor.call("GET", "/ca.crt")
    assert status == 200 and body == floor.ca.read_bytes()


def test_sign_in_and_a_valid_card(floor: Floor) -> None:
    status, headers, data = floor.call(
        "POST", "/api/session", {"username": "sala1", "pin": PIN, "place": "Mesa 3"}
    )
    assert status == 200
    out = json.loads(data)
    assert out["display_name"] == "Sala Uno" and out["inspector"] is False
    cookie = headers["set-cookie"]
    for flag in ("HttpOnly", "Secure", "SameSite=Strict", "Path=/"):
        assert flag in cookie
    session = cookie.split(";", 1)[0]
    status, out = floor.json(
        "GET", f"/api/cards/{floor.valid}?place=Mesa%203", headers={"Cookie": session}
    )
    assert status == 200, out
    assert out["answer"] == "VALID" and out["check"]["card_number"] == floor.valid_number
    assert out["holder_name"] == "José María PEÑA NÚÑEZ"
    assert "identity" not in out["check"]["holder"]
    entry = floor.checks()[-1]
    assert entry.actor == "sala1" and entry.subject == f"card:{floor.valid_number}"
    assert entry.details["channel"] == "floor" and entry.details["place"] == "Mesa 3"
    assert entry.details["result"] == "VALID" and "role" not in entry.details
    no_name(entry)
    status, _, _ = floor.call("DELETE", "/api/session", headers={"Cookie": session})
    assert status == 200
    status, out = floor.json("GET", f"/api/cards/{floor.valid}", headers={"Cookie": session})
    assert (status, out["error"]) == (401, "NOT_SIGNED_IN")


def test_a_voided_card_says_so_with_its_reason(floor: Floor) -> None:
    session = floor.sign_in()
    status, out = floor.json("GET", f"/api/cards/{floor.voided}", headers={"Cookie": session})
    assert status == 200 and out["answer"] == "VOID"
    assert out["holder_name"] == "José María PEÑA NÚÑEZ"
    assert out["check"]["void_reason"] == "Tarjeta extraviada"


def test_a_signed_card_keys_and_the_void_list(floor: Floor) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from db.card_keys import signed_card_code

    session = {"Cookie": floor.sign_in()}
    card = floor.store.card(floor.valid_number)
    code = signed_card_code(floor.store, CASINO, card)
    status, out = floor.json("GET", f"/api/cards/{code}", headers=session)
    assert status == 200 and out["answer"] == "VALID" and out["check"]["signed"] is True
    status, keys = floor.json("GET", "/api/keys", headers=session)
    assert status == 200 and keys["casino_id"] == CASINO
    (key,) = keys["keys"]
    assert key["current"] is True and key["key_id"] == out["check"]["key_id"]
    status, voids = floor.json("GET", "/api/voids", headers=session)
    assert status == 200 and voids["key_id"] == key["key_id"]
    raw = base64.urlsafe_b64decode(key["public_key"] + "==")
    signature = base64.urlsafe_b64decode(voids["signature"] + "==")
    Ed25519PublicKey.from_public_bytes(raw).verify(signature, voids["body"].encode())
    body = json.loads(voids["body"])
    assert body["format"] == "adm-voids-1" and body["casino_id"] == CASINO
    assert body["voided"] == [floor.voided_number]
    assert datetime.fromisoformat(body["issued_at"]).utcoffset() is not None
    status, out = floor.json("GET", "/api/keys")
    assert (status, out["error"]) == (401, "NOT_SIGNED_IN")


def test_forged_and_malformed_codes_name_nobody(floor: Floor) -> None:
    session = floor.sign_in()
    forged = floor.valid[:-1] + ("0" if floor.valid[-1] != "0" else "1")
    for code, said in ((forged, "FORGED"), ("HELLO", "NOT_A_CARD")):
        status, out = floor.json("GET", f"/api/cards/{code}", headers={"Cookie": session})
        assert (status, out["answer"], out["holder_name"]) == (200, said, None)
        assert out["check"]["holder"] is None
    assert floor.checks()[-1].subject == "card:-"


def test_an_inspectors_check_is_marked(floor: Floor) -> None:
    status, out = floor.json("POST", "/api/session", {"username": "ines", "pin": PIN})
    assert status == 200 and out["inspector"] is True
    session = floor.sign_in("ines")
    floor.call("GET", f"/api/cards/{floor.valid}?place=Puerta", headers={"Cookie": session})
    entry = floor.checks()[-1]
    assert (entry.actor, entry.details["role"]) == ("ines", "inspector")


def test_wrong_pin_unknown_user_and_role(floor: Floor) -> None:
    wrong = floor.json("POST", "/api/session", {"username": "sala1", "pin": "0000"})
    unknown = floor.json("POST", "/api/session", {"username": "nadie", "pin": "0000"})
    assert wrong == unknown  # never which
    assert wrong[0] == 401 and wrong[1]["error"] == "BAD_CREDENTIALS"
    assert wrong[1]["message_es"] and wrong[1]["message_en"]
    status, out = floor.json("POST", "/api/session", {"username": "ana", "pin": PIN})
    assert (status, out["error"]) == (403, "ROLE_REQUIRED")  # a clerk works the desk
    status, out = floor.json("POST", "/api/session", {"username": "sala1"})
    assert (status, out["error"]) == (400, "BAD_REQUEST")


def test_wrong_pins_lock_the_account(floor: Floor) -> None:
    for _ in range(4):
        status, out = floor.json("POST", "/api/session", {"username": "sala1", "pin": "9999"})
        assert status == 401
    status, out = floor.json("POST", "/api/session", {"username": "sala1", "pin": "9999"})
    assert (status, out["error"]) == (423, "ACCOUNT_LOCKED")
    assert out["locked_until"]
    floor.wait(3600)  # past the sign-in rate limit, not past the lock
    status, out = floor.json("POST", "/api/session", {"username": "sala1", "pin": PIN})
    assert (status, out["error"]) == (423, "ACCOUNT_LOCKED")
    actions = [e.action for e in floor.store.audit_entries(limit=100000)]
    assert "ACCOUNT_LOCKED" in actions
    floor.clock.advance(timedelta(minutes=16))
    assert floor.sign_in()


def test_sign_ins_are_rate_limited_per_address(floor: Floor) -> None:
    for _ in range(5):
        floor.call("POST", "/api/session", {"username": "nadie", "pin": "0000"})
    status, headers, body = floor.call("POST", "/api/session", {"username": "sala1", "pin": PIN})
    assert status == 429 and int(headers["retry-after"]) >= 1
    assert json.loads(body)["error"] == "RATE_LIMITED"


def test_a_device_token_checks_cards(floor: Floor) -> None:
    token = floor.service.tokens.add("puerta-poker", "jefa", floor.clock.now())
    assert token.startswith("flr_") and len(token) == 4 + 43
    assert token not in repr(floor.store.audit_entries(limit=100000))
    bearer = {"Authorization": f"Bearer {token}"}
    status, out = floor.json("GET", f"/api/cards/{floor.valid}?place=Poker", headers=bearer)
    assert status == 200 and out["answer"] == "VALID"
    entry = floor.checks()[-1]
    assert (entry.actor, entry.details["channel"]) == ("token:puerta-poker", "floor-token")
    for wrong in (token[:-2] + "xx", "flr_nothing", "x" * 5000, ""):
        status, out = floor.json(
            "GET", f"/api/cards/{floor.valid}", headers={"Authorization": f"Bearer {wrong}"}
        )
        assert (status, out["error"]) == (401, "NOT_SIGNED_IN")
    floor.service.tokens.revoke("puerta-poker", "jefa", floor.clock.now())
    status, _ = floor.json("GET", f"/api/cards/{floor.valid}", headers=bearer)
    assert status == 401
    trail = [(e.action, e.subject) for e in floor.store.audit_entries(limit=100000)]
    assert ("FLOOR_TOKEN_ADDED", "floor-token:puerta-poker") in trail
    assert ("FLOOR_TOKEN_REVOKED", "floor-token:puerta-poker") in trail


def test_sessions_expire_when_idle(floor: Floor) -> None:
    session = floor.sign_in()
    floor.clock.advance(timedelta(minutes=31))
    status, _ = floor.json("GET", f"/api/cards/{floor.valid}", headers={"Cookie": session})
    assert status == 401


@pytest.mark.parametrize("floor", [Rate(1.0, 3)], indirect=True)
def test_checks_are_rate_limited(floor: Floor) -> None:
    session = floor.sign_in()
    answers = [
        floor.call("GET", f"/api/cards/{floor.valid}", headers={"Cookie": session})
        for _ in range(4)
    ]
    assert [a[0] for a in answers] == [200, 200, 200, 429]
    assert int(answers[-1][1]["retry-after"]) >= 1
    floor.wait(2)
    assert floor.call("GET", f"/api/cards/{floor.valid}", headers={"Cookie": session})[0] == 200


def test_offline_checks_are_recorded(floor: Floor) -> None:
    session = floor.sign_in()
    at = (floor.clock.now() - timedelta(minutes=20)).isoformat()
    checks = [
        {"code": floor.valid, "checked_at": at, "answer": "VALID", "place": "Mesa\x00 7"},
        {"code": floor.voided, "checked_at": at, "answer": "VOID", "place": "Mesa 7"},
    ]
    status, out = floor.json(
        "POST", "/api/offline-checks", {"checks": checks}, headers={"Cookie": session}
    )
    assert (status, out) == (200, {"recorded": 2})
    first, second = floor.checks()[-2:]
    assert first.details["channel"] == second.details["channel"] == "floor-offline"
    assert first.details["checked_at"] == at and first.details["place"] == "Mesa 7"
    assert second.subject == f"card:{floor.voided_number}"
    no_name(first)
    bad = {"checks": [{"code": "x", "checked_at": "yesterday", "answer": "VALID"}]}
    status, out = floor.json("POST", "/api/offline-checks", bad, headers={"Cookie": session})
    assert (status, out["error"]) == (400, "BAD_REQUEST")
    many = {"checks": [checks[0]] * 201}
    status, out = floor.json("POST", "/api/offline-checks", many, headers={"Cookie": session})
    assert status in (400, 413)


def test_bodies_are_bounded(floor: Floor) -> None:
    status, out = floor.json("POST", "/api/session", raw=b"{" + b" " * 5000 + b"}")
    assert (status, out["error"]) == (413, "TOO_LARGE")
    status, out = floor.json("POST", "/api/session", raw=b"\xff\xfe not json")
    assert (status, out["error"]) == (400, "BAD_REQUEST")


def test_the_page_and_nothing_outside_it(floor: Floor) -> None:
    status, headers, body = floor.call("GET", "/")
    assert status == 200 and b"<html" in body.lower()
    status, headers, _ = floor.call("GET", "/sw.js")
    assert status == 200 and headers["service-worker-allowed"] == "/"
    for path in ("/static/../../main.py", "/static/..%2f..%2fmain.py", "/static/%2e%2e/README.md"):
        status, _, body = floor.call("GET", path)
        assert status == 404 and b"import" not in body


def test_a_card_signed_after_a_rotation_verifies_at_once(floor: Floor) -> None:
    from db.card_keys import rotate_card_key, signed_card_code

    session = floor.session()
    card = floor.store.card(floor.valid_number)
    old = signed_card_code(floor.store, CASINO, card)
    assert floor.json("GET", f"/api/cards/{old}", headers=session)[1]["answer"] == "VALID"
    rotate_card_key(floor.store, "jefa", floor.clock.now())
    new = signed_card_code(floor.store, CASINO, card)
    floor.wait(1.5)  # the keys read a second ago are not read again for every code
    for code in (new, old):
        status, out = floor.json("GET", f"/api/cards/{code}", headers=session)
        assert (status, out["answer"]) == (200, "VALID")
    status, keys = floor.json("GET", "/api/keys", headers=session)
    assert [k["current"] for k in keys["keys"]] == [True, False]


def test_a_failure_inside_is_a_bare_500(
    floor: Floor, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("José María PEÑA NÚÑEZ 12345678Z")

    monkeypatch.setattr(floor.service, "check", broken)
    status, headers, body = floor.call("GET", f"/api/cards/{floor.valid}", headers=floor.session())
    assert status == 500 and json.loads(body)["error"] == "INTERNAL"
    assert headers["cache-control"] == "no-store"
    logged = caplog.text
    assert "RuntimeError" in logged and "/api/cards/{code}" in logged
    for secret in ("PEÑA", "12345678Z", floor.valid):
        assert secret not in body.decode() and secret not in logged
