"""Hostile input to the floor service over real HTTPS (art. 22.4; no personal data beyond
what the floor needs): codes huge, in any script, with NUL, path traversal in /static and
``..%2f``; hostile headers (huge Authorization, bad cookies). Whatever arrives, never a
500, never a traceback, never a holder's name in an answer that is not a card's."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.floor.conftest import Floor
from ui.floor.limits import Rate

UNLIMITED = Rate(1e6, 1_000_000)
FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
NAME_PARTS = ("José", "María", "PEÑA", "NÚÑEZ", "Jos\\u00e9", "PE\\u00d1A")
LATIN1 = st.characters(min_codepoint=32, max_codepoint=255, blacklist_characters="\x7f")
CODES = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=300, max_size=3000),
    st.sampled_from(
        [
            "..%2f..%2fmain.py",
            "../../etc/passwd",
            "ADM1-\x00",
            "ADM2-" + "Z" * 400,
            "adm2'0000",
            "\u202eADM1",
            "%00",
            "ADM1-" + "0" * 5000,
        ]
    ),
)


def clean(status: int, body: bytes, *, named: bool = False) -> None:
    assert status != 500 and status < 600, (status, body[:200])
    text = body.decode("utf-8", "replace")
    assert "Traceback" not in text and 'File "' not in text
    if not named:
        assert not any(part in text for part in NAME_PARTS), text[:300]


@pytest.mark.parametrize("floor", [UNLIMITED], indirect=True)
@FUZZ
@given(code=CODES)
def test_hostile_codes(floor: Floor, code: str) -> None:
    path = "/api/cards/" + urllib.parse.quote(code, safe="")
    place = "?place=" + urllib.parse.quote(code[:80])
    status, _, body = floor.call("GET", path + place, headers=floor.session())
    if status == 200:
        out = json.loads(body)
        named = out["answer"] in {"VALID", "NOT_YET_VALID", "EXPIRED", "VOID"}
        clean(status, body, named=named)
        assert "identity" not in json.dumps(out["check"]["holder"] or {})
    else:
        clean(status, body)


@FUZZ
@given(path=st.one_of(st.text(max_size=200), st.sampled_from([
    "../main.py", "..%2f..%2fmain.py", "%2e%2e/%2e%2e/README.md", "..\\..\\main.py",
    "vendor/../../../db/store.py", "%00", "/etc/passwd", "//etc/passwd",
])))  # fmt: skip
def test_hostile_static_paths(floor: Floor, path: str) -> None:
    quoted = urllib.parse.quote(path, safe="/%")
    status, _, body = floor.call("GET", "/static/" + quoted)
    clean(status, body)
    if status == 200:  # only the page's own files
        assert b"import " not in body[:2000] and b"root:" not in body


@FUZZ
@given(
    authorization=st.one_of(
        st.text(alphabet=LATIN1, max_size=40),
        st.text(alphabet=LATIN1, min_size=400, max_size=7000),
        st.builds(lambda t: "Bearer " + t, st.text(alphabet=LATIN1, max_size=200)),
    ),
    cookie=st.one_of(
        st.text(alphabet=LATIN1, max_size=300),
        st.builds(lambda t: "floor_session=" + t, st.text(alphabet=LATIN1, max_size=300)),
    ),
)
def test_hostile_headers(floor: Floor, authorization: str, cookie: str) -> None:
    floor.wait(3600)  # the rate limits are not what this fuzzes
    headers = {"Authorization": authorization.strip(), "Cookie": cookie.strip()}
    status, _, body = floor.call("GET", f"/api/cards/{floor.valid}", headers=headers)
    clean(status, body)
    assert status in (400, 401, 429, 431)
    status, _, body = floor.call(
        "POST", "/api/session", raw=cookie.encode("latin-1"), headers=headers
    )
    clean(status, body)


KEYS = st.sampled_from(["username", "pin", "place", "checks", "code", "checked_at", "answer"])
LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50)
)
BODIES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(KEYS | st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)


@FUZZ
@given(body=BODIES)
def test_hostile_bodies(floor: Floor, body: object) -> None:
    floor.wait(3600)
    status, _, data = floor.call("POST", "/api/session", body)
    clean(status, data)
    status, _, data = floor.call("POST", "/api/offline-checks", body, headers=floor.session())
    clean(status, data)
