"""Structured logs: JSON lines, and the game id on every line logged on a game's behalf."""

from __future__ import annotations

import io
import json
import logging

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import read_until, two_player_leaders
from throne.server import logs


@pytest.fixture
def captured() -> io.StringIO:
    stream = io.StringIO()
    handler = logs.handler("json", stream)
    logger = logging.getLogger("throne.server")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield stream
    logger.removeHandler(handler)
    logger.setLevel(old_level)


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
