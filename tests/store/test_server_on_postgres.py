"""The whole server on PostgreSQL: accounts, a table, a live game over the WebSocket, records and ratings."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.store.pg import PgCluster
from throne.server.app import create_app
from throne.server.config import Settings


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_rated_game_on_postgres(pg_cluster: PgCluster, tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path, database_url=pg_cluster.new_database(), secret_key="k", ws_rate_per_s=1000.0
    )
    with TestClient(create_app(settings)) as client:
        joined = []
        for name in ("ann", "bob"):
            client.cookies.clear()
            assert (
                client.post(
                    "/api/accounts/register", json={"username": name, "password": "rook-to-e4!"}
                ).status_code
                == 201
            )
            if name == "ann":
                created = client.post("/api/games", json={"game": "leaders", "rated": True}).json()
                game_id, token = created["game"]["id"], created["token"]
            else:
                token = client.post(f"/api/games/{game_id}/join", json={}).json()["token"]
            joined.append(token)
        views = [client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": t}).json() for t in joined]
        tokens = {v["seat"]: t for v, t in zip(views, joined, strict=True)}
        rng = random.Random(8)
        with (
            client.websocket_connect(f"/ws/games/{game_id}") as ws0,
            client.websocket_connect(f"/ws/games/{game_id}") as ws1,
        ):
            sockets = {0: ws0, 1: ws1}
            for seat, ws in sockets.items():
                ws.send_json({"type": "hello", "token": tokens[seat]})
            ply = 0
            while True:
                state = _state(ws0, ply)
                if state["status"] != "live":
                    break
                mover = state if state["to_play"] == 0 else _state(ws1, ply)
                sockets[state["to_play"]].send_json(
                    {"type": "move", "move": rng.choice(mover["legal_moves"]), "ply": ply}
                )
                ply += 1
        record = client.get(f"/api/games/{game_id}/record").json()
        assert len(record["moves"]) == ply and record["result"] in ("S", "N", "draw")
        board = client.get("/api/leaderboard/leaders").json()["entries"]
        assert len(board) == 2 and all(e["games"] == 1 for e in board)
        user = board[0]["user"]["id"]
        assert client.get(f"/api/players/{user}/games").json()["total"] == 1


def _state(ws, ply: int) -> dict:
    while True:
        msg = ws.receive_json()
        assert msg["type"] != "error", msg
        if msg["type"] == "state" and msg["ply"] == ply:
            return msg
