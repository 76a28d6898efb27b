"""A real server process killed with SIGKILL mid-game and started again: every game resumes intact."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tests.server.realserver import ServerProcess


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path)
    try:
        yield proc
    finally:
        proc.stop()


def _guest(base: str, name: str) -> httpx.Client:
    c = httpx.Client(base_url=base, timeout=30)
    assert c.post("/api/accounts/guest", json={"name": name}).status_code == 200
    return c


def _view(base: str, game_id: int, token: str) -> dict:
    r = httpx.get(f"{base}/api/games/{game_id}/view", headers={"X-Seat-Token": token}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def _move(base: str, game_id: int, token: str, move: str, ply: int) -> None:
    r = httpx.post(
        f"{base}/api/games/{game_id}/move",
        json={"move": move, "ply": ply},
        headers={"X-Seat-Token": token},
        timeout=30,
    )
    assert r.status_code == 200, r.text


def _wait_for_turn(base: str, game_id: int, token: str) -> dict:
    """Waits (over the socket) until the token's seat must decide; returns that state."""
    with connect(f"{base.replace('http', 'ws')}/ws/games/{game_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        while True:
            msg = json.loads(ws.recv(timeout=60))
            if msg["type"] == "state" and (msg["your_turn"] or msg["status"] != "live"):
                return msg


def _recv_state(ws, ply: int) -> dict:
    while True:
        msg = json.loads(ws.recv(timeout=120))
        if msg["type"] == "state" and msg["ply"] == ply:
            return msg


def _log(data_dir: Path, game_id: int) -> list[tuple[int, int, str]]:
    with sqlite3.connect(data_dir / "throne.sqlite3") as db:
        return db.execute(
            "SELECT ply, seat, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
        ).fetchall()


def test_games_survive_a_killed_server(server: ServerProcess, tmp_path: Path) -> None:
    server.start()
    rng = random.Random(3)
    # A Leaders game between two people, a few moves in.
    ann, bob = _guest(server.base, "Ann"), _guest(server.base, "Bob")
    created = ann.post("/api/games", json={"game": "leaders", "players": 2}).json()
    leaders_id = created["game"]["id"]
    joined = bob.post(f"/api/games/{leaders_id}/join", json={}).json()
    tokens = {}
    for token in (created["token"], joined["token"]):
        tokens[_view(server.base, leaders_id, token)["seat"]] = token
    for ply in range(6):
        state = _view(server.base, leaders_id, tokens[0])
        mover = tokens[state["to_play"]]
        _move(
            server.base,
            leaders_id,
            mover,
            rng.choice(_view(server.base, leaders_id, mover)["legal_moves"]),
            ply,
        )
    # A Hidden Leaders game: one person and two bots, played until the person must decide.
    solo = _guest(server.base, "Solo")
    hidden = solo.post("/api/play-bot", json={"game": "hidden-leaders", "players": 3, "bot": "random"}).json()
    hidden_id, hidden_token = hidden["game"]["id"], hidden["token"]
    for _ in range(3):
        state = _wait_for_turn(server.base, hidden_id, hidden_token)
        _move(server.base, hidden_id, hidden_token, rng.choice(state["legal_moves"]), state["ply"])
    hidden_state = _wait_for_turn(server.base, hidden_id, hidden_token)

    before = {
        "leaders": _view(server.base, leaders_id, tokens[0]),
        "hidden": _view(server.base, hidden_id, hidden_token),
    }
    logs = {leaders_id: _log(tmp_path, leaders_id), hidden_id: _log(tmp_path, hidden_id)}
    assert before["hidden"]["view"] == hidden_state["view"]
    server.kill()

    server.start()
    after = {
        "leaders": _view(server.base, leaders_id, tokens[0]),
        "hidden": _view(server.base, hidden_id, hidden_token),
    }
    assert after == before  # same ply, same views: nothing lost, nothing replayed twice
    for game_id, log in logs.items():
        now = _log(tmp_path, game_id)
        assert now[: len(log)] == log and [p for p, _, _ in now] == list(range(len(now)))

    # Both games go on from there on the restarted server, over real WebSockets.
    with (
        connect(f"{server.ws_base}/ws/games/{leaders_id}") as ws0,
        connect(f"{server.ws_base}/ws/games/{leaders_id}") as ws1,
    ):
        sockets = {0: ws0, 1: ws1}
        for seat, ws in sockets.items():
            ws.send(json.dumps({"type": "hello", "token": tokens[seat]}))
        ply = before["leaders"]["ply"]
        for _ in range(6):
            state = _recv_state(ws0, ply)
            if state["status"] != "live":
                break
            mover = state if state["to_play"] == 0 else _recv_state(ws1, ply)
            sockets[state["to_play"]].send(
                json.dumps({"type": "move", "move": rng.choice(mover["legal_moves"]), "ply": ply})
            )
            ply += 1
        else:
            _recv_state(ws0, ply)  # the last move is stored and broadcast before the sockets close
    assert [m for _, _, m in _log(tmp_path, leaders_id)][: len(logs[leaders_id])] == [
        m for _, _, m in logs[leaders_id]
    ]
    played = ply - before["leaders"]["ply"]
    assert len(_log(tmp_path, leaders_id)) == ply and played > 0
    if played < 6:  # a short random game may end sooner
        assert (
            httpx.get(f"{server.base}/api/games/{leaders_id}", timeout=30).json()["game"]["status"]
            == "finished"
        )
    # The Hidden Leaders game goes on too: the person moves, the bots answer again.
    state = hidden_state
    for _ in range(2):
        _move(server.base, hidden_id, hidden_token, rng.choice(state["legal_moves"]), state["ply"])
        state = _wait_for_turn(server.base, hidden_id, hidden_token)
        if state["status"] != "live":
            break
    assert state["ply"] > hidden_state["ply"] + 1 or state["status"] == "finished"
    assert [p for p, _, _ in _log(tmp_path, hidden_id)] == list(range(state["ply"]))
