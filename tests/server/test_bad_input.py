"""Bad input gets a precise error on the offending connection only, and changes nothing."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.server.helpers import as_guest, hello, read_until, two_player_leaders
from throne.server import ws as ws_module
from throne.server.app import create_app
from throne.server.config import Settings

PASSWORD = "correct horse 9"  # a password the server accepts
LEGAL = "<legal>"  # replaced by a legal move of the seat to play

# (who sends: "mover" | "other" | "spectator", the raw frame, the error code)
WS_CASES = [
    ("mover", "{oops", "bad_json"),
    ("mover", "[1, 2]", "bad_message"),
    ("mover", '"move"', "bad_message"),
    ("mover", '{"type": "dance"}', "bad_message"),
    ("mover", '{"type": "move"}', "bad_message"),
    ("mover", '{"type": "move", "move": 5}', "bad_message"),
    ("mover", '{"type": "move", "move": ""}', "bad_message"),
    ("mover", '{"type": "move", "move": "end", "ply": "0"}', "bad_message"),
    ("mover", '{"type": "move", "move": "end", "ply": true}', "bad_message"),
    ("mover", json.dumps({"type": "move", "move": "x" * 300}), "bad_message"),
    ("mover", json.dumps({"type": "move", "move": "x" * 20000}), "too_large"),
    ("mover", '{"type": "move", "move": "zz"}', "illegal_move"),
    ("mover", '{"type": "move", "move": "a1-g7"}', "illegal_move"),
    ("mover", json.dumps({"type": "move", "move": LEGAL, "ply": 5}), "stale"),
    ("mover", '{"type": "hello", "token": null}', "bad_message"),
    ("mover", '{"type": "undo", "ply": "0"}', "bad_message"),
    ("mover", '{"type": "takeback_request", "ply": -1}', "bad_message"),
    ("mover", '{"type": "resign", "ply": true}', "bad_message"),
    ("other", json.dumps({"type": "move", "move": LEGAL}), "not_your_turn"),
    ("spectator", json.dumps({"type": "move", "move": LEGAL}), "spectator"),
]


@pytest.mark.parametrize(("who", "frame", "code"), WS_CASES)
def test_bad_socket_message_changes_nothing(client: TestClient, who: str, frame: str, code: str) -> None:
    game_id, tokens = two_player_leaders(client)
    before = client.get(f"/api/games/{game_id}/view").json()
    mover_seat = before["to_play"]
    legal = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[mover_seat]}).json()
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as mover,
        client.websocket_connect(f"/ws/games/{game_id}") as other,
        client.websocket_connect(f"/ws/games/{game_id}") as spectator,
    ):
        hello(mover, tokens[mover_seat])
        hello(other, tokens[1 - mover_seat])
        hello(spectator, None, spectate=True)
        sockets = {"mover": mover, "other": other, "spectator": spectator}
        for ws in sockets.values():
            read_until(ws, "state", 0)
        sockets[who].send_text(frame.replace(LEGAL, legal["legal_moves"][0]))
        error, _ = read_until(sockets[who], "error")
        assert error["code"] == code and error["message"]
        for name, ws in sockets.items():  # nobody else heard anything but their own pong
            ws.send_json({"type": "ping"})
            _, between = read_until(ws, "pong")
            assert all(m["type"] in {"table", "spectators"} for m in between), (name, between)
    after = client.get(f"/api/games/{game_id}/view").json()
    assert after["ply"] == 0 and after["view"] == before["view"]
    assert client.get(f"/api/games/{game_id}/record").json()["moves"] == []


def test_socket_without_hello_or_with_a_wrong_token(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_json({"type": "move", "move": "end"})
        assert read_until(ws, "error")[0]["code"] == "need_hello"
        ws.send_json({"type": "hello", "token": "not-a-token"})
        assert read_until(ws, "error")[0]["code"] == "bad_token"
        ws.send_json({"type": "hello", "token": 7})
        assert read_until(ws, "error")[0]["code"] == "bad_message"
        _other_id, other_tokens = two_player_leaders(client)
        ws.send_json({"type": "hello", "token": other_tokens[0]})  # a token of another game
        assert read_until(ws, "error")[0]["code"] == "bad_token"
        welcome, _ = hello(ws, tokens[1])
        assert welcome["seat"] == 1
    assert client.get(f"/api/games/{game_id}/view").json()["ply"] == 0


def test_unknown_game_socket_is_closed(client: TestClient) -> None:
    with client.websocket_connect("/ws/games/999999") as ws:
        ws.send_json({"type": "hello", "spectate": True})  # answered after the hello, like a private table
        assert ws.receive_json()["code"] == "unknown_game"
        message = ws.receive()
        assert message["type"] == "websocket.close" and message["code"] == 4404


def test_flooding_socket_is_rate_limited(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, secret_key="k", ws_rate_per_s=0.01, ws_burst=3, ws_max_refused=5)
    with TestClient(create_app(settings)) as client:
        game_id, _tokens = two_player_leaders(client)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            for _ in range(10):
                ws.send_json({"type": "ping"})
            codes = []
            while True:
                message = ws.receive()
                if message["type"] == "websocket.close":
                    break
                codes.append(json.loads(message["text"]).get("code"))
        assert "rate_limited" in codes and message["code"] == 1008
        assert client.get(f"/api/games/{game_id}/view").json()["ply"] == 0


def test_refusals_spread_over_a_long_game_do_not_close_the_socket(tmp_path, monkeypatch) -> None:
    """The socket closes at the `ws_max_refused`-th refusal within the window (a flood of bad messages),
    not at the `ws_max_refused`-th of its whole life (a long game's occasional stale moves)."""
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k", ws_max_refused=5))) as client:
        game_id, _tokens = two_player_leaders(client)
        monkeypatch.setattr(ws_module, "REFUSALS_WINDOW_S", 0.5)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            for _ in range(2):  # 8 refusals in all, 4 at a time
                for _ in range(4):
                    ws.send_json({"type": "bogus"})
                    assert ws.receive_json()["code"] == "bad_message"
                time.sleep(0.6)
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"
        monkeypatch.setattr(ws_module, "REFUSALS_WINDOW_S", 3600.0)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            for _ in range(6):  # closed at the fifth, which is told too
                ws.send_json({"type": "bogus"})
            codes = [ws.receive_json()["code"] for _ in range(5)]
            assert codes == ["bad_message"] * 5
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1008


@pytest.mark.parametrize(
    ("token", "status", "code"),
    [
        (None, 403, "bad_token"),
        ("wrong", 403, "bad_token"),
        ("x" * 500, 403, "bad_token"),
        ("other-seat", 409, "not_your_turn"),
    ],
)
def test_http_move_needs_the_right_seat(client: TestClient, token, status, code) -> None:
    game_id, tokens = two_player_leaders(client)
    mover = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    headers = {} if token is None else {"X-Seat-Token": tokens[1 - mover] if token == "other-seat" else token}
    r = client.post(f"/api/games/{game_id}/move", json={"move": "end"}, headers=headers)
    assert (r.status_code, r.json()["error"]["code"]) == (status, code)
    assert client.get(f"/api/games/{game_id}/view").json()["ply"] == 0


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("get", "/api/games/424242", None, 404, "not_found"),
        ("post", "/api/games/424242/join", {}, 404, "not_found"),
        ("post", "/api/games", {"game": "chess", "players": 2}, 400, "bad_options"),
        ("post", "/api/games", {"game": "leaders", "players": 3}, 400, "bad_options"),
        ("post", "/api/games", {"game": "leaders", "options": {"x": 1}}, 400, "bad_options"),
        ("post", "/api/games", {"game": "leaders", "bots": {"1": "grandmaster"}}, 400, "unknown_bot"),
        ("post", "/api/games", {"game": "leaders", "bots": {"5": "random"}}, 400, "bad_options"),
        (
            "post",
            "/api/games",
            {"game": "leaders", "bots": {"0": "random", "1": "random"}},
            409,
            "table_full",
        ),
        (
            "post",
            "/api/games",
            {"game": "leaders", "rated": True, "bots": {"1": "random"}},
            400,
            "rated_needs_people",
        ),
        ("post", "/api/games", {"game": "leaders", "rated": True}, 403, "rated_needs_account"),
        ("post", "/api/games", {"game": "hidden-leaders", "players": 7}, 400, "bad_options"),
        (
            "post",
            "/api/games",
            {"game": "hidden-leaders", "players": 4, "options": {"modules": []}},
            400,
            "bad_options",
        ),
        ("post", "/api/games", {"game": "leaders", "players": "two"}, 422, "invalid_request"),
        ("post", "/api/games", {"game": "leaders", "name": "x" * 40}, 400, "bad_name"),
        ("post", "/api/games", {"game": "leaders", "name": "x" * 300}, 400, "bad_name"),  # any length
        ("post", "/api/play-bot", {"game": "leaders", "name": "x" * 300}, 400, "bad_name"),
        ("post", "/api/accounts/guest", {"name": "x" * 300}, 400, "bad_name"),
        ("post", "/api/accounts/register", {"username": "x" * 300, "password": PASSWORD}, 400,
         "bad_username"),
        ("post", "/api/accounts/register", {"username": "ann", "password": PASSWORD, "name": "x" * 300}, 400,
         "bad_name"),
        ("get", "/api/games?status=weird", None, 400, "bad_status"),
        ("get", "/api/leaderboard/chess", None, 404, "unknown_game_kind"),
        ("get", "/api/players/99999", None, 404, "unknown_player"),
    ],
)
def test_http_bad_requests(client: TestClient, settings: Settings, method, path, body, status, code) -> None:
    r = getattr(client, method)(path, **({"json": body} if body is not None else {}))
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code and r.json()["error"]["message"]
    assert client.get("/api/games?status=open,live,finished").json()["games"] == []
    assert _users(settings) == 0  # a refusal makes no guest


def test_http_bodies_that_are_not_json_or_too_large(client: TestClient) -> None:
    r = client.post("/api/games", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"  # as docs/server-api.md says
    r = client.post("/api/games", content=b"x" * (65 * 1024), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"

    def chunks():
        for _ in range(80):
            yield b"x" * 1024

    r = client.post("/api/accounts/guest", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def _users(settings: Settings) -> int:
    with sqlite3.connect(settings.url.removeprefix("sqlite:///")) as db:
        return db.execute("SELECT count(*) FROM users").fetchone()[0]


@pytest.mark.parametrize(
    ("table", "join", "status", "code"),
    [
        ("started", {}, 409, "not_open"),
        ("open", {"seat": 7}, 400, "no_such_seat"),
        ("open", {"seat": 0}, 409, "seat_taken"),
        ("rated", {}, 403, "rated_needs_account"),
    ],
)
def test_a_refused_join_makes_the_visitor_no_guest(
    client: TestClient, settings: Settings, table: str, join: dict, status: int, code: str
) -> None:
    if table == "started":
        game_id, _ = two_player_leaders(client)
    elif table == "rated":
        client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
        game_id = client.post("/api/games", json={"game": "leaders", "rated": True}).json()["game"]["id"]
    else:
        as_guest(client, "Ann")
        r = client.post("/api/games", json={"game": "hidden-leaders", "players": 3})
        game_id = r.json()["game"]["id"]
    client.cookies.clear()
    before = _users(settings)
    r = client.post(f"/api/games/{game_id}/join", json={"name": "Visitor", **join})
    assert (r.status_code, r.json()["error"]["code"]) == (status, code), r.text
    assert _users(settings) == before and "throne_session" not in r.cookies


def test_joining_a_full_or_started_table(client: TestClient) -> None:
    game_id, _ = two_player_leaders(client)
    as_guest(client, "Late")
    r = client.post(f"/api/games/{game_id}/join", json={})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_open"
    r = client.post("/api/games", json={"game": "hidden-leaders", "players": 3, "bots": {"2": "random"}})
    open_id = r.json()["game"]["id"]
    r = client.post(f"/api/games/{open_id}/join", json={})
    assert r.status_code == 409 and r.json()["error"]["code"] == "already_seated"
    as_guest(client, "Other")
    r = client.post(f"/api/games/{open_id}/join", json={"seat": 0})
    assert r.status_code == 409 and r.json()["error"]["code"] == "seat_taken"
    r = client.post(f"/api/games/{open_id}/join", json={"seat": 2})
    assert r.status_code == 409 and r.json()["error"]["code"] == "seat_taken"
    r = client.post(f"/api/games/{open_id}/join", json={"seat": 3})
    assert r.status_code == 400 and r.json()["error"]["code"] == "no_such_seat"
    r = client.post(f"/api/games/{open_id}/leave", headers={"X-Seat-Token": "not a seat of this table"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"


def test_a_foreign_page_cannot_play_with_the_session_cookie(client: TestClient) -> None:
    r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
    game_id = r.json()["game"]["id"]
    foreign = {"origin": "http://evil.example"}
    with client.websocket_connect(f"/ws/games/{game_id}", headers=foreign) as ws:
        welcome, _ = hello(ws)
        assert welcome["seat"] is None  # a spectator, not the cookie's seat
    with client.websocket_connect(f"/ws/games/{game_id}", headers={"origin": "http://testserver"}) as ws:
        welcome, _ = hello(ws)
        assert welcome["seat"] == r.json()["seat"]


def test_a_failed_commit_changes_nothing_and_the_game_goes_on(client: TestClient, monkeypatch) -> None:
    game_id, tokens = two_player_leaders(client)
    repo = client.app.state.hub.repo
    real = repo.append_moves
    calls = []

    def fail_once(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise OSError("disk full")
        return real(*args, **kwargs)

    monkeypatch.setattr(repo, "append_moves", fail_once)
    view = client.get(f"/api/games/{game_id}/view").json()
    token = tokens[view["to_play"]]
    move = view["view"]["legal_moves"][0]
    r = client.post(f"/api/games/{game_id}/move", json={"move": move}, headers={"X-Seat-Token": token})
    assert r.status_code == 503 and r.json()["error"]["code"] == "store_unavailable"
    after = client.get(f"/api/games/{game_id}/view").json()
    assert after["ply"] == 0 and after["view"] == view["view"] and repo.moves(game_id) == []
    r = client.post(f"/api/games/{game_id}/move", json={"move": move}, headers={"X-Seat-Token": token})
    assert r.status_code == 200 and repo.moves(game_id) == [(view["to_play"], move)]


async def _a_bug(item: object) -> None:
    raise RuntimeError("a bug")


def test_a_move_the_server_fails_to_apply_is_a_500_not_the_movers_fault(
    client: TestClient, monkeypatch
) -> None:
    game_id, tokens = two_player_leaders(client)
    monkeypatch.setattr(client.app.state.hub.matches[game_id], "_apply", _a_bug)
    view = client.get(f"/api/games/{game_id}/view").json()
    seat = {"X-Seat-Token": tokens[view["to_play"]]}
    r = client.post(f"/api/games/{game_id}/move", json={"move": view["view"]["legal_moves"][0]}, headers=seat)
    assert r.status_code == 500 and r.json()["error"]["code"] == "server_error"


def test_a_table_control_the_server_fails_to_handle_is_answered_and_the_socket_goes_on(
    client: TestClient, monkeypatch
) -> None:
    """A resignation that fails on the server (a bug, a store error of another kind) is answered
    `server_error`: the socket, which waits for the answer, reads on (it froze, not even answering ping)."""
    game_id, tokens = two_player_leaders(client)
    monkeypatch.setattr(client.app.state.hub.matches[game_id], "_control", _a_bug)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[0])
        ws.send_json({"type": "resign"})
        error, _ = read_until(ws, "error")
        assert error["code"] == "server_error" and error["request"] == "resign"
        ws.send_json({"type": "ping"})
        read_until(ws, "pong")


def test_an_empty_move_over_http_is_refused_as_the_socket_refuses_it(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    for seat, token in tokens.items():
        empty = {"move": "", "ply": 0}
        r = client.post(f"/api/games/{game_id}/move", json=empty, headers={"X-Seat-Token": token})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", (seat, r.text)
