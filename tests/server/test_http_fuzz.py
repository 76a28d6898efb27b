"""Bad input over HTTP (docs/server-api.md, *Conventions*): every refusal is a precise, documented JSON
error — never a 500, never text/plain — and changes nothing in the store. A seeded randomized sweep over every
API route, and the cases it found, one test each.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, server_settings
from throne.server.app import create_app
from throne.server.config import Settings

# A JSON string escape of a lone UTF-16 surrogate: valid JSON text and valid UTF-8 on the wire, but Python's
# json module decodes it to the str "\ud800", which cannot be encoded back to UTF-8 (not in an answer, not
# in a hash, not in an SQLite parameter).
SURROGATE = "\\ud800"
JSON = {"content-type": "application/json"}
PASSWORD = "rook-to-e4!"
TABLES = ("users", "games", "seats", "moves", "chat", "chat_mutes", "ratings", "rematches")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # no rate limits in the way; no clock checkpoints rewriting live games' rows while the test compares them
    return server_settings(tmp_path, rate_limits={}, clock_checkpoint=3600.0)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    # raise_server_exceptions=False: a failure is answered as a client sees it (the app's JSON 500)
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def _store(settings: Settings) -> dict[str, list[tuple]]:
    """Every row of the tables a request could change."""
    with sqlite3.connect(settings.url.removeprefix("sqlite:///")) as db:
        return {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES}


def _refused(r: Any, status: int, codes: set[str]) -> None:
    """A documented JSON error: the status, one of `codes`, a message, and no traceback."""
    assert r.status_code == status, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json"), r.headers["content-type"]
    error = r.json()["error"]
    assert error["code"] in codes and error["message"], error
    assert "Traceback" not in r.text


def _raw(client: TestClient, path: str, text: str, **headers: str) -> Any:
    return client.post(path, content=text.encode(), headers={**JSON, **headers})


def _register(client: TestClient, username: str) -> dict[str, Any]:
    client.cookies.clear()
    r = client.post("/api/accounts/register", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return r.json()["user"]


# ---- an Origin header that is no URL ----------------------------------------------------------------------

# urllib.parse.urlsplit raises ValueError on these ("Invalid IPv6 URL", "... does not appear to be an IPv4 or
# IPv6 address"); a browser never sends them, a script may send anything.
BROKEN_ORIGINS = ["http://[", "http://[::1", "http://a]", "http://[zz]"]


@pytest.mark.parametrize("origin", BROKEN_ORIGINS)
def test_an_origin_that_is_no_url_is_refused_as_cross_site(
    client: TestClient, settings: Settings, origin: str
) -> None:
    """docs/server-api.md: a POST with "an `Origin` other than this site" is refused `403 cross_site`, and
    every response carries the security headers. An Origin that urlsplit cannot parse is not this site: it
    gets that 403 (and makes no guest)."""
    before = _store(settings)
    r = client.post("/api/accounts/guest", json={"name": "Ann"}, headers={"origin": origin})
    _refused(r, 403, {"cross_site"})
    assert r.headers.get("content-security-policy") and r.headers.get("x-frame-options") == "DENY"
    assert _store(settings) == before


def test_a_socket_with_an_origin_that_is_no_url_spectates(client: TestClient) -> None:
    """docs/server-api.md: "A socket whose `Origin` is another site never acts through the cookie (only
    through a token ...)". A seated player's cookie on a socket whose Origin urlsplit cannot parse is
    welcomed as a spectator (seat null)."""
    as_guest(client, "Ann")
    r = client.post("/api/games", json={"game": "leaders"})
    game_id = r.json()["game"]["id"]
    with client.websocket_connect(f"/ws/games/{game_id}", headers={"origin": "http://["}) as ws:
        ws.send_json({"type": "hello"})
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome" and welcome["seat"] is None, welcome


# ---- ids beyond 31 bits in a body --------------------------------------------------------------------------


def test_a_mute_of_a_user_id_beyond_31_bits_is_an_invalid_request(
    client: TestClient, settings: Settings
) -> None:
    """docs/server-api.md, Conventions: "ids are 1 … 2^31−1 ... (`422 invalid_request`)", and the mutes row
    says `422` for "not an integer id": `POST /api/accounts/mutes` with `user_id` 2^31 (or up to 2^63−1)
    too, not `404 unknown_user`."""
    as_guest(client, "Ann")
    before = _store(settings)
    for user_id in (2**31, 2**40, 2**63 - 1):
        r = client.post("/api/accounts/mutes", json={"user_id": user_id, "muted": True})
        _refused(r, 422, {"invalid_request"})
    assert _store(settings) == before


# ---- invalid_request never echoes a value ------------------------------------------------------------------


def test_an_invalid_bots_key_is_not_echoed(client: TestClient, settings: Settings) -> None:
    """docs/server-api.md: `invalid_request` "names the bad fields, never echoes their values". A `bots` key
    that is no integer is the bad value here: the message names the field, `bots`, not the key (pydantic
    puts a mapping's keys in the error's `loc`)."""
    secret = "hunter2-not-a-seat"
    before = _store(settings)
    r = client.post("/api/games", json={"game": "leaders", "bots": {secret: "easy"}})
    _refused(r, 422, {"invalid_request"})
    assert secret not in r.text, r.json()["error"]["message"]
    assert "bots" in r.json()["error"]["message"]  # the field is named
    assert _store(settings) == before


# ---- a seeded sweep over every API route -------------------------------------------------------------------

WEIRD: list[Any] = [
    None, True, False, 0, -1, 1, 2**31 - 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, 1.5, "NaN",
    "Infinity", "", " ", "x", "a" * 300, "\u202e", "\u2066x\u2069", "\x00", "\x07", "é", "\U0001f600",
    SURROGATE, [], [1], {}, {"a": 1}, "leaders", "hidden-leaders", "easy", "open", "end",
]  # fmt: skip
HOSTILE = [
    {"origin": "https://evil.example"}, {"origin": "null"}, {"sec-fetch-site": "cross-site"},
    {"content-type": "text/plain"}, {"content-type": "application/x-www-form-urlencoded"},
    {"origin": "http://testserver"}, *({"origin": o} for o in BROKEN_ORIGINS),
]  # fmt: skip
BAD_IDS = ["0", "-1", "2147483648", str(2**63), "abc", "1.5", "1e3", "%00", "0x1", "\uff11", "99999"]
BAD_QUERY = ["", "x", "open,,live", "%00", "%ED%A0%80", "%E2%80%AE", "a" * 300, "0", "-1", "5001", str(2**63)]


def _literal(value: Any) -> str:
    """`value` as JSON text; "NaN" and "Infinity" bare (Python's json reads them), SURROGATE as its escape."""
    if value == SURROGATE:
        return f'"{SURROGATE}"'
    return value if value in ("NaN", "Infinity") else json.dumps(value)


def _body(fields: dict[str, Any], rng: random.Random) -> str:
    """`fields` as a JSON object, with up to two of them replaced by odd values, dropped or joined by an
    unknown field; now and then no JSON object at all."""
    parts = {k: json.dumps(v) for k, v in fields.items()}
    for _ in range(rng.randint(0, 2)):
        roll = rng.random()
        if roll < 0.6 and parts:
            parts[rng.choice(list(parts))] = _literal(rng.choice(WEIRD))
        elif roll < 0.75 and parts:
            parts.pop(rng.choice(list(parts)))
        else:
            parts[rng.choice(["zz", "\u202e", "__proto__", "privat"])] = _literal(rng.choice(WEIRD))
    if rng.random() < 0.04:
        return rng.choice(["", "[]", "null", "1", '"x"', "{", "{}}", "9" * 5000])
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in parts.items()) + "}"


def test_random_bad_requests_get_documented_errors_and_change_nothing(
    client: TestClient, settings: Settings
) -> None:
    """Seeded random requests to every API route, from a valid request with a few fields made odd (wrong
    types, huge or non-finite numbers, lone surrogates, bidi controls, unknown fields), with odd path ids and
    query values, from a visitor, a guest, an account or a forged cookie, sometimes with hostile headers:
    every answer is JSON, no error is a 5xx but a 503, every error has a code and a message and no
    traceback, and a refused request changes nothing in the store (docs/server-api.md, Conventions)."""

    async def never(*_args: Any, **_kwargs: Any) -> str:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    client.app.state.hub.chooser = never  # bots never move: the store changes only by requests
    ann = _register(client, "ann_acct")
    ann_cookie = client.cookies["throne_session"]
    r = client.post("/api/games", json={"game": "leaders", "private": True})
    private_id, private_token, invite = r.json()["game"]["id"], r.json()["token"], r.json()["invite"]
    r = client.post("/api/games", json={"game": "hidden-leaders", "players": 4})
    open_id, open_token = r.json()["game"]["id"], r.json()["token"]
    as_guest(client, "Bob")
    bob_cookie = client.cookies["throne_session"]
    r = client.post("/api/games", json={"game": "leaders"})
    live_id, bob_token = r.json()["game"]["id"], r.json()["token"]
    as_guest(client, "Cy")
    cy_token = client.post(f"/api/games/{live_id}/join", json={}).json()["token"]
    client.cookies.clear()
    games = [live_id, private_id, open_id]
    tokens = [private_token, open_token, bob_token, cy_token, "x" * 43, "é", "t" * 200]
    cookies = {"ann": ann_cookie, "bob": bob_cookie, "forged": ann_cookie[:-3] + "AAA", "junk": "x.y.z"}

    posts = {
        "/api/accounts/guest": {"name": "Dee"},
        "/api/accounts/register": {"username": "dee_acct", "password": PASSWORD, "name": "Dee"},
        "/api/accounts/login": {"username": "ann_acct", "password": PASSWORD},
        "/api/accounts/password": {"password": PASSWORD, "new_password": "bishop-to-c4!"},
        "/api/accounts/logout": {},
        "/api/accounts/mutes": {"user_id": ann["id"], "muted": True},
        "/api/games": {"game": "leaders", "players": 2, "options": {"mode": "discovery"},
                       "bots": {"1": "easy"},
                       "seat": 0, "side": 0, "sit": True, "rated": False, "private": False, "name": "Dee",
                       "time_control": {"kind": "fischer", "minutes": 5, "increment": 3}},
        "/api/play-bot": {"game": "leaders", "bot": "easy", "players": 2, "options": {}, "name": "Dee",
                          "side": 1, "time_control": {"kind": "correspondence", "days": 2}},
        "/api/games/{g}/join": {"seat": 1, "name": "Dee", "invite": invite},
        "/api/games/{g}/leave": {},
        "/api/games/{g}/move": {"move": "end", "ply": 0},
        "/api/tutorials/leaders/{s}": {"move": "d1-d2"},
        "/api/tutorials/hidden-leaders": {"moves": []},
    }  # fmt: skip
    gets = [
        "/api/games?status={q}&game={q}&limit={q}", "/api/games/{g}?invite={q}",
        "/api/games/{g}/view?invite={q}",
        "/api/games/{g}/record?invite={q}", "/api/games/{g}/replay?start={q}&limit={q}&views={q}&invite={q}",
        "/api/games/{g}/chat?invite={q}", "/api/players/{g}", "/api/players/{g}/games?limit={q}&offset={q}",
        "/api/leaderboard/{q}?limit={q}", "/api/tutorials/{q}/{q}", "/api/accounts/me", "/api/accounts/mutes",
    ]  # fmt: skip
    rng = random.Random(20261205)
    before = _store(settings)
    problems: list[str] = []
    for _ in range(500):
        who = rng.choice([None, *cookies])
        headers = {"content-type": "application/json"}
        if who is not None:
            headers["cookie"] = f"throne_session={cookies[who]}"
        if rng.random() < 0.1:
            headers.update(rng.choice(HOSTILE))
        if rng.random() < 0.3:
            headers["x-seat-token"] = rng.choice(tokens)
        game = str(rng.choice(games)) if rng.random() < 0.8 else rng.choice(BAD_IDS)
        if rng.random() < 0.35:
            method = rng.choice(["GET"] * 6 + ["POST", "PUT", "DELETE", "PATCH"])
            path = rng.choice(gets).replace("{g}", game)
            while "{q}" in path:
                path = path.replace("{q}", rng.choice([*BAD_QUERY, invite, "leaders", "1", "true"]), 1)
            content = None
        else:
            method = rng.choice(["POST"] * 12 + ["GET", "PUT"])
            template = rng.choice(list(posts))
            path = template.replace("{g}", game).replace("{s}", rng.choice(["0", "4", "5", "-1", "x"]))
            content = _body(posts[template], rng).encode("utf-8", "surrogatepass")
        client.cookies.clear()
        raw = {k.encode(): v.encode("latin-1", "replace") for k, v in headers.items()}
        r = client.request(method, path, content=content, headers=raw)
        what = f"{method} {path} {who} {headers} {(content or b'')[:120]!r} -> {r.status_code} {r.text[:160]}"
        if r.status_code >= 500 and r.status_code != 503:
            problems.append(f"5xx: {what}")
        if r.status_code >= 400:
            if not r.headers.get("content-type", "").startswith("application/json"):
                problems.append(f"not JSON: {what}")
                continue
            error = r.json().get("error") or {}
            if not (error.get("code") and error.get("message")) or "Traceback" in r.text:
                problems.append(f"bad error: {what}")
            after = _store(settings)
            if after != before:
                problems.append(f"refused but changed the store: {what}")
            before = after
        else:
            before = _store(settings)
    assert not problems, "\n".join(problems[:10])


# ---- a 500 is a response too -------------------------------------------------------------------------------


def test_a_server_error_carries_the_security_headers(client: TestClient) -> None:
    """docs/server-api.md: "Every response carries `Content-Security-Policy` ..., `X-Frame-Options: DENY`,
    `X-Content-Type-Options: nosniff` ...". A route that fails is answered `500 server_error` by the handler
    of `Exception`, which Starlette runs in ServerErrorMiddleware, outside every middleware added with
    add_middleware (SecurityHeaders among them): the handler adds the headers itself."""
    as_guest(client, "Ann")
    game_id = client.post("/api/games", json={"game": "leaders"}).json()["game"]["id"]

    def a_bug(*_args: Any, **_kwargs: Any) -> dict:
        raise RuntimeError("a bug")

    client.app.state.hub.summary = a_bug
    r = client.get(f"/api/games/{game_id}")
    _refused(r, 500, {"server_error"})
    assert r.headers.get("x-content-type-options") == "nosniff", dict(r.headers)
    assert r.headers.get("x-frame-options") == "DENY" and r.headers.get("content-security-policy")


# ---- an over-long password is a bad password ---------------------------------------------------------------


def test_a_password_over_1000_characters_is_a_bad_password(client: TestClient, settings: Settings) -> None:
    """docs/server-api.md: register (and a password change) answer `400 bad_password` for a password that is
    not "8–128 chars", however long it is (not `422 invalid_request` past 1000 characters); a current
    password of that length is `401 bad_credentials`."""
    long = "Rook-" + "x7" * 600  # 1205 characters, 4+ different ones
    before = _store(settings)
    r = client.post("/api/accounts/register", json={"username": "ann_acct", "password": long})
    _refused(r, 400, {"bad_password"})
    assert _store(settings) == before
    _register(client, "ann_acct")
    before = _store(settings)
    r = client.post("/api/accounts/password", json={"password": PASSWORD, "new_password": long})
    _refused(r, 400, {"bad_password"})
    r = client.post("/api/accounts/password", json={"password": long, "new_password": "bishop-to-c4!"})
    _refused(r, 401, {"bad_credentials"})
    assert _store(settings) == before
