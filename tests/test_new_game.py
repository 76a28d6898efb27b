"""A game added in one place: the toy Sum Duel (tests/games/toy_game.py), once registered, appears in the
registry and plays through the command line, the bots and the server, with no other file knowing it."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from throne import ai, games
from throne.cli import app
from throne.games import GameSpec
from throne.games.api import RENDERERS, GameError
from throne.server.app import create_app
from throne.server.config import Settings

from .games import toy_game
from .server.helpers import hello, read_until


@pytest.fixture
def toy() -> Iterator[GameSpec]:
    games.register(toy_game.SPEC)
    yield toy_game.SPEC
    games.unregister(toy_game.GAME)


def test_the_command_line_lists_plays_and_matches_the_new_game(toy: GameSpec, tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["games"])
    assert listed.exit_code == 0 and "sum-duel: Sum Duel, 2, 3, 4 players" in listed.output
    assert "--option hand=" in listed.output
    bots = runner.invoke(app, ["bots", "sum-duel"])
    assert bots.exit_code == 0 and "random" in bots.output and "easy" in bots.output
    played = runner.invoke(app, ["play", "sum-duel", "--seed", "3", "-o", "hand=2"], input="1\n1\n")
    assert played.exit_code == 0, played.output
    assert "You are seat 0" in played.output and "game over" in played.output
    bad = runner.invoke(app, ["play", "sum-duel", "-o", "hand=7"])
    assert bad.exit_code != 0 and "unknown Sum Duel hand '7'" in bad.output
    arena = runner.invoke(app, ["arena", "sum-duel", "random", "easy", "--games", "4", "--json", "--quiet"])
    assert arena.exit_code == 0, arena.output
    report = json.loads(arena.output)
    assert report["games"] == 4 and report["players"] == 2
    bench = runner.invoke(app, ["bench", "sum-duel", "--runs", "1", "--seconds", "0.05", "--quiet"])
    assert bench.exit_code == 0 and "games/s" in bench.output


def test_a_game_played_in_the_plain_terminal_has_a_secret_seed_told_only_at_the_end(toy: GameSpec) -> None:
    played = CliRunner().invoke(app, ["play", "sum-duel", "-o", "hand=2"], input="1\n1\n")
    assert played.exit_code == 0, played.output
    before_end, _, end = played.output.partition("game over")
    secret = re.search(r"Seed of this game \(replays it with its moves\): ([0-9a-f]{32,})$", end.strip())
    assert secret is not None, played.output
    assert secret[1] not in before_end and "seed" not in before_end.lower()


def test_bots_choose_moves_of_the_new_game_in_worker_processes(toy: GameSpec) -> None:
    assert ai.bot_names("sum-duel") == ["random", "easy"]
    state = toy.new_state(5, 3)
    try:
        move = ai.choose_move("sum-duel", state, 0, "easy", seed=1, timeout=60)
    finally:
        ai.shutdown()
    assert move in state.legal_moves()


def test_the_server_deals_and_plays_the_new_game(toy: GameSpec, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, secret_key="test-secret", abandon_timeout=3600.0, bot_timeout=30.0)
    with TestClient(create_app(settings)) as client:
        every = client.get("/api/meta").json()["games"]
        meta = every["sum-duel"]
        assert meta["players"] == [2, 3, 4] and meta["options"][0]["name"] == "hand"
        assert meta["bots"] == ["random", "easy"] and meta["renderer"] == "generic"
        assert {every[g]["renderer"] for g in ("leaders", "hidden-leaders")} <= set(RENDERERS) - {"generic"}
        r = client.post(
            "/api/play-bot", json={"game": "sum-duel", "players": 2, "bot": "easy", "options": {"hand": "2"}}
        )
        assert r.status_code == 201, r.text
        game_id, token = r.json()["game"]["id"], r.json()["token"]
        assert r.json()["game"]["renderer"] == "generic"
        assert client.get(f"/api/games/{game_id}").json()["game"]["renderer"] == "generic"
        page = client.get(f"/games/{game_id}").text
        assert 'id="generic-ui"' in page and 'id="generic-moves"' in page
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, token)
            while True:
                msg, _ = read_until(ws, "state")
                if msg["status"] == "finished":
                    break
                if msg["your_turn"]:
                    ws.send_json({"type": "move", "move": msg["legal_moves"][0], "ply": msg["ply"]})
        assert msg["view"]["played"] and all(len(p) == 2 for p in msg["view"]["played"])
        replay = client.get(f"/api/games/{game_id}/replay").json()
        assert replay["total"] == 5 and replay["steps"][-1]["move"].startswith("play ")
        bad = {"game": "sum-duel", "bot": "easy", "options": {"hand": "9"}}
        assert client.post("/api/play-bot", json=bad).status_code == 400


def test_a_spec_names_a_known_web_renderer_and_the_pages_never_branch_on_a_game_id() -> None:
    assert toy_game.SPEC.renderer == "generic"
    with pytest.raises(GameError, match="unknown web renderer"):
        dataclasses.replace(toy_game.SPEC, renderer="sum-duel-board")
    static = Path(create_app.__code__.co_filename).parent / "static" / "js"
    for name in ("table.js", "generic-table.js"):
        text = (static / name).read_text()
        assert not any(f'"{g}"' in text for g in games.ids()), name
