"""Small drivers for the API: tables of two people, reading a socket up to a given state."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from throne import logs
from throne.server.config import Settings
from throne.server.lobby import Hub
from throne.store import Database, Repo
from throne.store.repo import SeatSpec


def as_guest(client: TestClient, name: str) -> dict[str, Any]:
    client.cookies.clear()
    r = client.post("/api/accounts/guest", json={"name": name})
    assert r.status_code == 200, r.text
    return r.json()["user"]


def two_player_leaders(client: TestClient) -> tuple[int, dict[int, str]]:
    """A live Leaders game between two guests; returns the game id and {engine seat: token}."""
    as_guest(client, "Ann")
    r = client.post("/api/games", json={"game": "leaders", "players": 2})
    assert r.status_code == 201, r.text
    game_id, token_a = r.json()["game"]["id"], r.json()["token"]
    as_guest(client, "Bob")
    r = client.post(f"/api/games/{game_id}/join", json={})
    assert r.status_code == 200, r.text
    token_b = r.json()["token"]
    client.cookies.clear()
    game = r.json()["game"]
    assert game["status"] == "live"
    tokens = {}
    for token in (token_a, token_b):
        seat = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()["seat"]
        tokens[seat] = token
    assert sorted(tokens) == [0, 1]
    return game_id, tokens


def read_until(ws, kind: str, ply: int | None = None, limit: int = 50) -> tuple[dict[str, Any], list[dict]]:
    """Reads messages until one of `kind` (and `ply`, for states); returns it and what came before."""
    seen = []
    for _ in range(limit):
        msg = ws.receive_json()
        if msg["type"] == kind and (ply is None or msg.get("ply") == ply):
            return msg, seen
        seen.append(msg)
    raise AssertionError(f"no {kind} message (ply {ply}) in {limit} messages: {seen[-3:]}")


def hello(ws, token: str | None = None, **extra: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    ws.send_json({"type": "hello", "token": token, **extra})
    welcome, _ = read_until(ws, "welcome")
    return welcome, None


@contextmanager
def two_seats(client: TestClient, game_id: int, tokens: dict[int, str]) -> Iterator[tuple[Any, Any]]:
    """The sockets of seats 0 and 1 of a two-player table, each greeted with its seat token."""
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ws0,
        client.websocket_connect(f"/ws/games/{game_id}") as ws1,
    ):
        hello(ws0, tokens[0])
        hello(ws1, tokens[1])
        yield ws0, ws1


def store_hub(tmp_path: Path) -> Hub:
    """A hub over a fresh SQLite store in `tmp_path`, without an app around it."""
    db = Database(f"sqlite:///{tmp_path / 'g.sqlite3'}")
    db.upgrade()
    return Hub(Settings(data_dir=tmp_path, secret_key="k"), Repo(db))


def live_games(repo: Repo, n: int) -> list[int]:
    """`n` live two-player Leaders games straight in the store; their ids."""
    ids = []
    for _ in range(n):
        seats = [SeatSpec(seat=p, kind="human", name=f"P{p}", token_hash=f"t{len(ids)}-{p}") for p in (0, 1)]
        info = repo.create_game(
            game="leaders", players=2, options={}, rated=False, private=False, invite=None,
            creator_id=None, seats=seats,
        )  # fmt: skip
        repo.start_game(info.id, seed=1, order=[0, 1])
        ids.append(info.id)
    return ids


def join_as(client: TestClient, game_id: int, name: str) -> str:
    """A new guest `name` joins the table; returns their seat token."""
    client.cookies.clear()
    as_guest(client, name)
    r = client.post(f"/api/games/{game_id}/join", json={})
    assert r.status_code == 200, r.text
    return r.json()["token"]


def seat_view(client: TestClient, game_id: int, token: str) -> dict[str, Any]:
    """The game's view as the seat of `token` sees it."""
    client.cookies.clear()
    return client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()


@contextmanager
def json_log_lines(logger_name: str, level: int = logging.DEBUG) -> Iterator[io.StringIO]:
    """What the logger writes meanwhile, as `throne serve --log-format json` writes it."""
    stream = io.StringIO()
    handler = logs.handler("json", stream)
    logger = logging.getLogger(logger_name)
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(level)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def server_settings(data_dir: Path, **overrides: Any) -> Settings:
    """The settings the server tests run with: no abandonment, quick bots, rate limits out of the way."""
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "secret_key": "test-secret",
        "abandon_timeout": 3600.0,
        "bot_timeout": 5.0,
        "ws_rate_per_s": 1000.0,
        "ws_burst": 1000,
    }
    return Settings(**{**values, **overrides})


def locked_write(*_args: Any, **_kwargs: Any) -> None:
    """A write the database refuses for now (another writer holds the lock past the busy timeout)."""
    raise OperationalError("UPDATE games", {}, Exception("database is locked"))


def next_of_kinds(ws: Any, kinds: tuple[str, ...], limit: int = 50) -> dict[str, Any]:
    """The next message of one of `kinds` (others skipped, at most `limit`)."""
    for _ in range(limit):
        msg = ws.receive_json()
        if msg["type"] in kinds:
            return msg
    raise AssertionError(f"no message of {kinds}")


def until_finished(ws: Any) -> dict[str, Any]:
    """The first `state` of the finished game."""
    state = read_until(ws, "state")[0]
    while state["status"] != "finished":
        state = read_until(ws, "state")[0]
    return state


def first_legal_bots(hub: Hub) -> None:
    """The hub's bots play the first of their legal moves, at once and in this process."""

    async def first_legal(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        return state.legal_moves()[0]

    hub.chooser = first_legal
