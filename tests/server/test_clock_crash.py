"""Clocks after `kill -9`: a real server is killed mid-turn and started again; each clock resumes from its
stored checkpoint and the time the server was down is not charged."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import connect

from tests.server.realserver import ServerProcess
from tests.server.test_crash import _guest, _move, _view

DOWN_S = 2.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path, {"THRONE_CLOCK_CHECKPOINT": "0.2"})
    try:
        yield proc
    finally:
        proc.stop()


def _stored_clock(data_dir: Path, game_id: int) -> dict:
    with sqlite3.connect(data_dir / "throne.sqlite3") as db:
        return json.loads(db.execute("SELECT clock FROM games WHERE id = ?", (game_id,)).fetchone()[0])


def test_clocks_resume_after_kill_9_without_charging_the_downtime(
    server: ServerProcess, tmp_path: Path
) -> None:
    server.start()
    ann, bob = _guest(server.base, "Ann"), _guest(server.base, "Bob")
    control = {"kind": "fischer", "minutes": 5, "increment": 3}
    created = ann.post("/api/games", json={"game": "leaders", "players": 2, "time_control": control}).json()
    game_id = created["game"]["id"]
    joined = bob.post(f"/api/games/{game_id}/join", json={}).json()
    tokens = {}
    for token in (created["token"], joined["token"]):
        tokens[_view(server.base, game_id, token)["seat"]] = token
    first = _view(server.base, game_id, tokens[0])["to_play"]
    while (view := _view(server.base, game_id, tokens[first]))["to_play"] == first:
        _move(server.base, game_id, tokens[first], view["legal_moves"][0], view["ply"])
    runner = 1 - first
    deadline = time.monotonic() + 30
    while (stored := _stored_clock(tmp_path, game_id))["remaining_ms"][runner] == 300_000:
        assert time.monotonic() < deadline, "no clock checkpoint was stored"
        time.sleep(0.1)  # a checkpoint of the running clock lands every 0.2 s
    server.kill()
    stored = _stored_clock(tmp_path, game_id)
    assert stored["running"] == runner and stored["remaining_ms"][runner] < 300_000
    time.sleep(DOWN_S)  # the server is down
    began = time.monotonic()
    server.start()
    with connect(f"{server.ws_base}/ws/games/{game_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": tokens[runner]}))
        while (msg := json.loads(ws.recv(timeout=60)))["type"] != "state":
            pass
    since_restart_ms = (time.monotonic() - began) * 1000
    clocks = msg["clocks"]
    assert clocks["running"] == runner
    assert clocks["remaining_ms"][first] == stored["remaining_ms"][first]  # a stopped clock is exact
    spent = stored["remaining_ms"][runner] - clocks["remaining_ms"][runner]
    assert 0 <= spent <= since_restart_ms  # only time since the restart is charged, never the downtime
