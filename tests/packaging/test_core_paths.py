"""The core commands run with no optional extra: terminal play, replay, bots, benchmarks, a serial arena.

Every module of the `server`, `rl` and `ray` extras is made absent (tests/packaging/blocker.py); the same
commands run on a real core-only install in tests/packaging/test_installed.py.
"""

from __future__ import annotations

import json

import pytest

from tests.packaging.blocker import first_leaders_turn, run_throne
from throne import extras

ALL_EXTRAS = [m for mods in extras.EXTRAS.values() for m in mods]


def test_terminal_hidden_leaders_to_the_end() -> None:
    result = run_throne(
        "play hidden-leaders --players 2 --opponent random --seed 5", ALL_EXTRAS, stdin="1\n" * 3000
    )
    assert result.returncode == 0, result.stderr
    assert "Game over. Winning faction:" in result.stdout and "Game abandoned" not in result.stdout


def test_terminal_leaders_save_and_replay(tmp_path) -> None:
    record = tmp_path / "game.json"
    turn = first_leaders_turn(7)
    played = run_throne(
        "play leaders --side S --opponent random --seed 7",
        ALL_EXTRAS,
        stdin="moves\n" + "".join(f"{m}\n" for m in turn) + "save game.json\nquit\n",
        cwd=tmp_path,
    )
    assert played.returncode == 0, played.stderr
    assert turn[0] in played.stdout and "Saved the record to game.json." in played.stdout
    moves = json.loads(record.read_text())["moves"]
    assert moves[: len(turn)] == turn and len(moves) > len(turn)  # the bot answered
    replayed = run_throne(["replay", str(record)], ALL_EXTRAS, stdin="\n" * 10 + "q\n")
    assert replayed.returncode == 0 and replayed.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        "bench leaders --runs 1 --seconds 0.05 --quiet",
        "bench hidden-leaders --runs 1 --seconds 0.05 --quiet",
        "bots",
        "games",
        "arena leaders random greedy --games 2 --backend serial --quiet",
    ],
)
def test_core_command(args: str) -> None:
    result = run_throne(args, ALL_EXTRAS)
    assert result.returncode == 0 and result.stderr == "", result.stderr
