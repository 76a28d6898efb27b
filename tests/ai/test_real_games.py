"""The worker path and the arena on the real engines."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tests import asyncrun
from throne import ai
from throne.cli import app
from throne.scaleout import arena

from .positions import hidden_positions, leaders_positions


def test_choose_move_on_a_leaders_position() -> None:
    state = leaders_positions(1, seed=5)[0]
    move = ai.choose_move("leaders", state, state.to_play, "easy", seed=1, timeout=30)
    assert move in state.legal_moves()


def test_choose_move_async_on_a_hidden_leaders_position() -> None:
    state = hidden_positions(5, 1, seed=9)[0]
    move = asyncrun.run(
        ai.choose_move_async("hidden-leaders", state, state.to_play, "greedy", seed=2, timeout=30)
    )
    assert move in state.legal_moves()


def test_leaders_arena_alternates_sides() -> None:
    report = arena.run_arena("leaders", "greedy", "random", games=2, seed=4)
    assert [r["seat_a"] for r in report["results"]] == [0, 1]
    assert report["a"]["wins"] + report["b"]["wins"] + report["draws"] == 2


def test_hidden_arena_and_cli_json() -> None:
    result = CliRunner().invoke(
        app, ["arena", "hidden-leaders", "random", "random", "--games", "3", "--players", "3", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # progress lines go to stderr
    assert report["players"] == 3
    assert [r["seat_a"] for r in report["results"]] == [0, 1, 2]


def test_bots_command_lists_levels() -> None:
    result = CliRunner().invoke(app, ["bots", "leaders"])
    assert result.exit_code == 0
    assert "hard" in result.output and "turns" in result.output


def test_terminal_opponents_use_the_registry() -> None:
    import random

    from throne.terminal import hidden_leaders as hl_term
    from throne.terminal import leaders as l_term

    state = leaders_positions(1, seed=8)[0]
    for level in ("easy", "medium"):
        assert l_term._bot_move(state, level, random.Random(1)) in state.legal_moves()
    hidden = hidden_positions(3, 1, seed=8)[0]
    for level in ("easy", "medium", "hard"):
        move = hl_term._bot_move(hidden, hidden.to_play, level, random.Random(1))
        assert move in hidden.legal_moves()
