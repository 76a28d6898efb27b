"""Structured logs: JSON lines, the game id on every line logged on a game's behalf, and what `throne serve`
writes at a log level and in a format."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from tests.server.helpers import as_guest, json_log_lines, read_until, server_settings, two_player_leaders
from tests.server.realserver import ServerProcess
from throne import logs
from throne.server.app import create_app
from throne.server.config import Settings


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    with json_log_lines("throne.server") as stream:
        yield stream


def test_a_played_move_logs_a_json_line_with_its_game_id(client: TestClient, captured: io.StringIO) -> None:
    game_id, tokens = two_player_leaders(client)
    view = client.get(f"/api/games/{game_id}/view").json()
    seat = view["to_play"]
    move = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[seat]}).json()
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_json({"type": "hello", "token": tokens[seat]})
        read_until(ws, "state", 0)
        ws.send_json({"type": "move", "move": move["legal_moves"][0], "ply": 0})
        read_until(ws, "state", 1)
    lines = [json.loads(line) for line in captured.getvalue().splitlines()]
    committed = [line for line in lines if "committed" in line["message"]]
    assert committed, lines
    assert committed[0]["game_id"] == game_id
    assert committed[0]["level"] == "debug" and committed[0]["logger"] == "throne.server.match"
    assert {"time", "level", "logger", "message"} <= set(committed[0])


@pytest.mark.parametrize(
    ("fmt", "context", "extra", "expected"),
    [
        ("json", None, None, None),
        ("json", 7, None, 7),
        ("json", 7, {"game_id": 9}, 9),  # an explicit id wins over the context
        ("text", 7, None, " game=7"),
        ("text", None, None, ""),
    ],
)
def test_the_game_id_comes_from_the_context_or_the_call(fmt, context, extra, expected) -> None:
    stream = io.StringIO()
    logger = logging.Logger("throne.test")
    logger.addHandler(logs.handler(fmt, stream))
    token = logs.GAME_ID.set(context)
    try:
        logger.warning("hello %s", "there", extra=extra)
    finally:
        logs.GAME_ID.reset(token)
    line = stream.getvalue().strip()
    if fmt == "json":
        record = json.loads(line)
        assert record["message"] == "hello there" and record["level"] == "warning"
        assert record.get("game_id") == expected
    else:
        assert line.endswith(f"throne.test{expected}: hello there")


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="text or json"):
        logs.handler("xml")


def test_background_tasks_log_as_their_own_game_or_none(settings: Settings) -> None:
    """A timed game's clock checkpoints log as that game, though a request started them; the group commit,
    which a game's first move starts, logs as no game, whichever moves it carries."""
    settings.clock_checkpoint = 0.05
    with TestClient(create_app(settings)) as client:
        hub = client.app.state.hub
        as_guest(client, "Ann")
        timed = {"game": "leaders", "time_control": {"kind": "fischer", "minutes": 5, "increment": 3}}
        game_id = client.post("/api/games", json=timed).json()["game"]["id"]
        client.cookies.clear()
        as_guest(client, "Bob")
        client.post(f"/api/games/{game_id}/join", json={})
        match = hub.matches[game_id]
        seen: dict[str, set[int | None]] = {"checkpoint": set(), "group commit": set()}

        async def checkpoint() -> None:
            seen["checkpoint"].add(logs.GAME_ID.get())

        write = hub.commits.write

        async def group_write(moves: object) -> object:
            seen["group commit"].add(logs.GAME_ID.get())
            return await write(moves)

        match.checkpoint, hub.commits.write = checkpoint, group_write

        async def play() -> None:
            await match.submit(match.state.to_play, match.state.legal_moves()[0], 0)
            await asyncio.sleep(0.3)

        client.portal.call(play)
        during_play = {task: set(games) for task, games in seen.items()}  # (the shutdown checkpoints too)
    assert during_play == {"checkpoint": {game_id}, "group commit": {None}}


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_an_invite_in_a_logged_address_is_blanked(fmt: str) -> None:
    """uvicorn's access line carries the request's query string: a private table's invite is not logged."""
    stream = io.StringIO()
    logger = logging.Logger("uvicorn.access")
    logger.addHandler(logs.handler(fmt, stream))
    path = "/api/games/12/replay?start=0&invite=Secr3t-_x&views=false"
    logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", path, "1.1", 200)
    line = stream.getvalue()
    assert "Secr3t" not in line
    assert "/api/games/12/replay?start=0&invite=…&views=false" in line


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """`throne serve` with more options; stopped at the end."""
    started: list[ServerProcess] = []

    def start(*options: str) -> ServerProcess:
        server = ServerProcess(tmp_path, {"THRONE_RATE_LIMITS": "off"}, options)
        started.append(server)
        server.start()
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


def _stopped(server: ServerProcess) -> str:
    server.stop()
    return server.log.read_text(errors="replace")


def test_log_level_debug_logs_each_committed_move_and_no_seat_token(
    serve: Callable[..., ServerProcess],
) -> None:
    """`--log-level debug` adds our line per committed move, not uvicorn's: at DEBUG the `websockets`
    protocol it drives would log every frame and handshake header, a `hello`'s seat token among them."""
    server = serve("--log-level", "debug", "--log-format", "text")
    with (
        httpx.Client(base_url=server.base, timeout=30) as ann,
        httpx.Client(base_url=server.base, timeout=30) as bob,
    ):
        assert ann.post("/api/accounts/guest", json={"name": "Ann"}).status_code == 200
        assert bob.post("/api/accounts/guest", json={"name": "Bob"}).status_code == 200
        created = ann.post("/api/games", json={"game": "leaders", "players": 2}).json()
        game_id = created["game"]["id"]
        tokens = [created["token"], bob.post(f"/api/games/{game_id}/join", json={}).json()["token"]]
        seated = zip((ann, bob), tokens, strict=True)
        views = {
            t: c.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": t}).json() for c, t in seated
        }
    token, move = next((t, v["legal_moves"][0]) for t, v in views.items() if v["legal_moves"])
    with connect(f"{server.ws_base}/ws/games/{game_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "move", "move": move, "ply": 0}))
        while (msg := json.loads(ws.recv(timeout=30)))["type"] != "state" or msg["ply"] != 1:
            assert msg["type"] != "error", msg
    log = _stopped(server)
    assert f"throne.server.match game={game_id}: ply 0 committed" in log, log[-3000:]
    assert not [line for line in log.splitlines() if any(t in line for t in tokens)]


def test_log_format_json_makes_every_line_json_the_store_processes_too(
    serve: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """`--log-format json`: one JSON object a line, from the store processes too (they share the server's
    stderr), and a line about a game (a corrupt row left out of the lobby list) carries its `game_id`."""
    with TestClient(create_app(server_settings(tmp_path))) as client:
        as_guest(client, "Ann")
        broken = client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]
    with sqlite3.connect(tmp_path / "throne.sqlite3") as db:
        db.execute("UPDATE games SET created_at = 'garbage' WHERE id = ?", (broken,))
    server = serve("--log-format", "json")
    assert httpx.get(f"{server.base}/api/games", params={"status": "open"}, timeout=30).status_code == 200
    records, not_json = [], []
    for line in filter(str.strip, _stopped(server).splitlines()):
        try:
            records.append(json.loads(line))
        except ValueError:
            not_json.append(line)
    assert not not_json
    about = [r for r in records if "cannot be read" in r["message"]]
    assert about and all(r.get("game_id") == broken for r in about), records
