"""Game-flow races: join/leave/start, a seat taken over by a bot, private tables that look missing."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from tests.server.helpers import as_guest, hello, read_until, two_player_leaders
from throne.server.app import create_app
from throne.server.config import Settings
from throne.store.repo import AlreadySeated


def test_a_joiner_keeps_the_token_when_the_host_leaves_during_the_start(client: TestClient) -> None:
    as_guest(client, "Host")
    created = client.post("/api/games", json={"game": "leaders"}).json()
    game_id, host_token = created["game"]["id"], created["token"]
    repo = client.app.state.hub.repo
    real = repo.join_seat

    def join_then_host_leaves(*args: Any, **kwargs: Any) -> Any:
        joined = real(*args, **kwargs)
        repo.leave_seat(game_id, _hash(host_token))  # lands between the seat's commit and the start
        return joined

    repo.join_seat = join_then_host_leaves
    as_guest(client, "Guest")
    r = client.post(f"/api/games/{game_id}/join", json={})
    assert r.status_code == 200, r.text  # not a 409 after the seat was taken
    token = r.json()["token"]
    game = client.get(f"/api/games/{game_id}").json()["game"]
    assert game["status"] == "open" and [s["kind"] for s in game["seats"]].count("human") == 1
    left = client.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": token})
    assert left.status_code == 200 and left.json()["game"]["status"] == "aborted"  # the token works


def _hash(token: str) -> str:
    from throne.server.sessions import token_hash

    return token_hash(token)


def test_a_full_table_whose_start_fails_still_gives_the_token_and_starts_later(client: TestClient) -> None:
    client.app.state.hub.settings.retry_base = 0.05
    as_guest(client, "Host")
    game_id = client.post("/api/games", json={"game": "leaders"}).json()["game"]["id"]
    repo = client.app.state.hub.repo
    real, calls = repo.start_game, []

    def fails_once(*args: Any) -> Any:
        calls.append(args)
        if len(calls) == 1:
            raise OperationalError("UPDATE games", {}, Exception("database is locked"))
        return real(*args)

    repo.start_game = fails_once
    as_guest(client, "Guest")
    r = client.post(f"/api/games/{game_id}/join", json={})
    assert r.status_code == 200 and r.json()["token"], r.text
    deadline = time.monotonic() + 10
    while client.get(f"/api/games/{game_id}").json()["game"]["status"] != "live":
        assert time.monotonic() < deadline, "the full table never started"
        time.sleep(0.05)
    view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": r.json()["token"]})
    assert view.status_code == 200 and view.json()["seat"] in (0, 1) and len(calls) == 2


def test_one_person_cannot_take_two_seats_by_joining_twice_at_once(client: TestClient) -> None:
    user = as_guest(client, "Twice")
    as_guest(client, "Host")
    game_id = client.post("/api/games", json={"game": "hidden-leaders", "players": 4}).json()["game"]["id"]
    repo = client.app.state.hub.repo
    repo.join_seat(game_id, None, user_id=user["id"], name="Twice", token_hash="a" * 64)
    with pytest.raises(AlreadySeated):  # the check is inside the write, not a read before it
        repo.join_seat(game_id, None, user_id=user["id"], name="Twice", token_hash="b" * 64)


def test_a_seat_taken_over_by_a_bot_is_never_told_to_move(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=0.3, takeover_bot="random")
    with TestClient(create_app(settings)) as client:

        async def never(*_args: Any, **_kw: Any) -> str:  # the bot never answers: the position stays
            await asyncio.sleep(3600)
            raise AssertionError

        client.app.state.hub.chooser = never
        game_id, tokens = two_player_leaders(client)
        deadline = time.monotonic() + 10
        while True:
            game = client.get(f"/api/games/{game_id}").json()["game"]
            if any(s.get("takeover") for s in game["seats"]):
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        seat = game["to_play"]
        assert game["seats"][seat].get("takeover")  # positions and table places match at ply 0 only
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            welcome, _ = hello(ws, tokens[seat])
            assert welcome["seat"] == seat
            state, _ = read_until(ws, "state", 0)
            assert state["to_play"] == seat and state["your_turn"] is False and state["legal_moves"] == []
        view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[seat]}).json()
        assert view["legal_moves"] == []


def _private(client: TestClient, live: bool) -> tuple[int, str, str]:
    as_guest(client, "Host")
    created = client.post("/api/games", json={"game": "leaders", "private": True}).json()
    game_id, invite = created["game"]["id"], created["invite"]
    if live:
        as_guest(client, "Friend")
        assert client.post(f"/api/games/{game_id}/join", json={"invite": invite}).status_code == 200
    client.cookies.clear()
    return game_id, invite, created["token"]


# (method, path, headers, body): every way to probe a game without its invite or a seat of it
PROBES = [
    ("get", "/api/games/{id}", {}, None),
    ("get", "/api/games/{id}/view", {}, None),
    ("get", "/api/games/{id}/view", {"X-Seat-Token": "wrong"}, None),
    ("get", "/api/games/{id}/view?invite=wrong", {"X-Seat-Token": "x" * 200}, None),
    ("post", "/api/games/{id}/move", {}, {"move": "end"}),
    ("post", "/api/games/{id}/move", {"X-Seat-Token": "wrong"}, {"move": "end", "ply": 0}),
    ("post", "/api/games/{id}/leave", {}, None),
    ("post", "/api/games/{id}/leave", {"X-Seat-Token": "wrong"}, None),
    ("post", "/api/games/{id}/join", {}, {"invite": "wrong"}),
    ("get", "/api/games/{id}/record", {}, None),
    ("get", "/api/games/{id}/replay", {}, None),
]


@pytest.mark.parametrize("live", [False, True], ids=["open", "live"])
@pytest.mark.parametrize(("method", "path", "headers", "body"), PROBES)
def test_a_private_table_answers_like_a_missing_game(
    client: TestClient, live: bool, method: str, path: str, headers: dict, body: dict | None
) -> None:
    game_id, _invite, _token = _private(client, live)
    missing = game_id + 1000
    kwargs: dict[str, Any] = {"headers": headers} | ({"json": body} if body is not None else {})
    hidden = client.request(method, path.format(id=game_id), **kwargs)
    absent = client.request(method, path.format(id=missing), **kwargs)
    assert hidden.status_code == absent.status_code == 404, (hidden.text, absent.text)
    assert hidden.json() == {"error": {"code": "not_found", "message": f"no game {game_id}"}}
    assert absent.json() == {"error": {"code": "not_found", "message": f"no game {missing}"}}


@pytest.mark.parametrize("hello_msg", [{"spectate": True}, {"token": "wrong"}, {"invite": "wrong"}])
def test_a_private_table_socket_answers_like_a_missing_game(client: TestClient, hello_msg: dict) -> None:
    game_id, _invite, _token = _private(client, live=True)
    answers = []
    for gid in (game_id, game_id + 1000):
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"type": "hello", **hello_msg})
            error = ws.receive_json()
            answers.append((error["code"], error["message"].replace(str(gid), "N"), ws.receive()["code"]))
    assert answers[0] == answers[1] == ("unknown_game", "no game N", 4404)
