"""Browser-facing defences: security headers on every response, the CSRF guard, 63-bit integer bounds."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, hello, read_until, two_player_leaders
from throne.server.app import create_app
from throne.server.config import Settings

HOST = "testserver"  # the Host header TestClient sends


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),
        ("GET", "/games/1", 200),
        ("GET", "/api/health", 200),
        ("GET", "/api/games/999", 404),
        ("GET", "/static/js/net.js", 200),
        ("GET", "/no/such/page", 404),
        ("POST", "/api/accounts/guest", 422),
    ],
)
def test_every_response_carries_the_security_headers(client: TestClient, method, path, status) -> None:
    r = client.request(method, path)
    assert r.status_code == status
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self';" in csp and "unsafe-inline" not in csp
    assert f"ws://{HOST}" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "same-origin"


def test_refusals_of_the_guards_carry_the_headers_too(client: TestClient) -> None:
    big = client.post(
        "/api/accounts/guest", content=b"x" * 70_000, headers={"content-type": "application/json"}
    )
    forged = client.post(
        "/api/accounts/guest", json={"name": "x"}, headers={"origin": "https://evil.example"}
    )
    for r in (big, forged):
        assert r.status_code in (403, 413) and r.headers["x-frame-options"] == "DENY"


def test_the_api_docs_page_gets_its_own_policy(client: TestClient) -> None:
    r = client.get("/api/docs")
    assert r.status_code == 200 and "cdn.jsdelivr.net" in r.headers["content-security-policy"]


def test_pages_contain_no_inline_script_or_style(client: TestClient) -> None:
    """The strict policy would block them; only JSON data blocks (never executed) are inline."""
    pages = ("/", "/games/1", "/games/1/replay", "/login", "/signup", "/leaderboard", "/players/1")
    for path in (*pages, "/rules", "/rules/leaders", "/rules/hidden-leaders", "/help"):
        r = client.get(path)
        assert r.status_code == 200, path
        html = r.text
        assert "style=" not in html and "<style" not in html
        for chunk in html.split("<script")[1:]:
            head = chunk.split(">", 1)[0]
            assert "src=" in head or 'type="application/json"' in head, head


# (headers added to a POST /api/accounts/logout made with a session cookie, the status, session kept?)
CSRF_CASES = [
    ({"origin": "https://evil.example"}, 403, True),
    ({"origin": "null"}, 403, True),
    ({"origin": f"http://{HOST}.evil.example"}, 403, True),
    ({"sec-fetch-site": "cross-site"}, 403, True),
    ({"sec-fetch-site": "same-site"}, 403, True),
    ({"content-type": "application/x-www-form-urlencoded"}, 403, True),
    ({"content-type": "text/plain"}, 403, True),
    ({"content-type": "multipart/form-data; boundary=x"}, 403, True),
    ({}, 403, True),  # no content type at all: what a bodiless cross-site form POST sends
    ({"content-type": "application/json", "origin": "https://evil.example"}, 403, True),
    ({"content-type": "application/json"}, 200, False),
    ({"content-type": "application/json; charset=utf-8", "origin": f"http://{HOST}"}, 200, False),
    ({"content-type": "application/json", "sec-fetch-site": "same-origin"}, 200, False),
]


@pytest.mark.parametrize(("headers", "status", "kept"), CSRF_CASES)
def test_cross_site_state_changes_are_refused(client: TestClient, headers, status, kept) -> None:
    user = as_guest(client, "Ann")
    r = client.post("/api/accounts/logout", headers=headers)
    assert r.status_code == status
    if status == 403:
        assert r.json()["error"]["code"] == "cross_site"
    me = client.get("/api/accounts/me").json()["user"]
    assert (me is not None and me["id"] == user["id"]) is kept


def test_a_cross_site_page_cannot_create_a_table_in_a_victims_name(client: TestClient) -> None:
    as_guest(client, "Ann")
    r = client.post(
        "/api/games",
        content='{"game": "leaders"}',
        headers={"content-type": "text/plain", "origin": "https://evil.example"},
    )
    assert r.status_code == 403
    assert client.get("/api/games").json()["games"] == []


def test_scripts_without_a_session_and_seat_token_requests_pass(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    client.cookies.clear()
    assert client.post("/api/accounts/guest", json={"name": "Bot script"}).status_code == 200
    r = client.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": tokens[0]})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_open"  # past the guard


def test_a_configured_public_origin_is_accepted(settings: Settings) -> None:
    """Behind a proxy that rewrites Host, the public address is listed: its pages' requests act, and so do
    their game sockets (seated by the session cookie); another site's still do not."""
    settings.allowed_origins = ("https://throne.example",)
    with TestClient(create_app(settings)) as client:
        r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
        game_id, seat = r.json()["game"]["id"], r.json()["seat"]
        for origin, seated in (("https://throne.example", seat), ("https://evil.example", None)):
            with client.websocket_connect(f"/ws/games/{game_id}", headers={"origin": origin}) as ws:
                welcome, _ = hello(ws)
                assert welcome["seat"] == seated, origin
        ok = client.post("/api/accounts/logout", json={}, headers={"origin": "https://throne.example"})
        assert ok.status_code == 200


SECURE_COOKIES = [("", False), ("0", False), ("off", False), ("1", True), ("on", True)]  # the setting, Secure


@pytest.mark.parametrize(("value", "secure"), SECURE_COOKIES)
def test_session_cookies_are_marked_secure_when_the_setting_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, secure: bool
) -> None:
    monkeypatch.setenv("THRONE_SECURE_COOKIES", value)
    with TestClient(create_app(Settings(data_dir=tmp_path))) as client:
        r = client.post("/api/accounts/guest", json={"name": "Ann"})
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("throne_session=") and ("; Secure" in cookie or "; secure" in cookie) == secure


def test_a_secure_cookies_setting_that_is_not_yes_or_no_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THRONE_SECURE_COOKIES", "maybe")
    with pytest.raises(ValueError, match="THRONE_SECURE_COOKIES must be"):
        Settings()


# (method, path, JSON body or None, status, error code)
BIG = 2**63
INT_CASES = [
    ("GET", f"/api/games/{BIG}", None, 422, "invalid_request"),
    ("GET", "/api/games/0", None, 422, "invalid_request"),
    ("GET", f"/api/games/{BIG}/view", None, 422, "invalid_request"),
    ("GET", f"/api/games/{BIG}/record", None, 422, "invalid_request"),
    ("GET", f"/api/games/1/replay?start={BIG}", None, 422, "invalid_request"),
    ("GET", f"/api/players/{10**40}", None, 422, "invalid_request"),
    ("GET", f"/api/players/1/games?offset={BIG}", None, 422, "invalid_request"),
    ("GET", f"/games/{BIG}", None, 422, "invalid_request"),
    ("GET", f"/players/{BIG}", None, 422, "invalid_request"),
    ("POST", f"/api/games/{BIG}/join", {}, 422, "invalid_request"),
    ("POST", "/api/games/{game}/join", {"seat": BIG}, 422, "invalid_request"),
    ("POST", "/api/games/{game}/join", {"seat": -1}, 422, "invalid_request"),
    ("POST", "/api/games/{game}/move", {"move": "end", "ply": BIG}, 422, "invalid_request"),
    ("POST", "/api/games", {"game": "leaders", "seat": BIG}, 422, "invalid_request"),
    ("POST", "/api/games", {"game": "leaders", "bots": {str(BIG): "easy"}}, 400, "bad_options"),
    ("POST", "/api/games", {"game": "leaders", "options": {"x": [BIG]}}, 400, "bad_options"),
    ("POST", "/api/games/{game}/move", '{"move": "end", "ply": ' + "9" * 5000 + "}", 400, "bad_json"),
    ("POST", "/api/games/{game}/move", '{"move": "end", "ply": 1', 400, "bad_json"),  # cut short
    ("POST", "/api/games", "{", 400, "bad_json"),
]


@pytest.mark.parametrize(("method", "path", "body", "status", "code"), INT_CASES)
def test_integers_beyond_63_bits_get_a_precise_error(client: TestClient, method, path, body, status, code):
    as_guest(client, "Ann")
    game = client.post("/api/games", json={"game": "leaders"}).json()["game"]["id"]
    kwargs = (
        {"content": body, "headers": {"content-type": "application/json"}} if isinstance(body, str) else {}
    )
    if isinstance(body, dict):
        kwargs = {"json": body}
    r = client.request(method, path.format(game=game), **kwargs)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    assert client.get(f"/api/games/{game}").json()["game"]["status"] == "open"  # nothing changed


@pytest.mark.parametrize(
    "frame",
    [
        '{"type": "move", "move": "end", "ply": ' + "9" * 5000 + "}",
        f'{{"type": "move", "move": "end", "ply": {BIG}}}',
    ],
)
def test_a_huge_ply_on_the_socket_is_a_bad_message(client: TestClient, frame: str) -> None:
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[0])
        read_until(ws, "state", 0)
        ws.send_text(frame)
        error, _ = read_until(ws, "error")
        assert error["code"] == "bad_message" and "2^63" in error["message"]
        ws.send_json({"type": "ping"})
        read_until(ws, "pong")
    assert client.get(f"/api/games/{game_id}/view").json()["ply"] == 0


def test_a_socket_to_a_game_id_beyond_63_bits_is_unknown(client: TestClient) -> None:
    with client.websocket_connect(f"/ws/games/{BIG}") as ws:
        ws.send_json({"type": "hello"})
        assert ws.receive_json()["code"] == "unknown_game"
