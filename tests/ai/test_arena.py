"""Arena plumbing on the toy games: seat rotation, seeds, interval numbers, JSON and saved records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.stopping import StopAfter
from throne.ai.stats import wilson
from throne.scaleout import arena


@pytest.mark.parametrize(
    ("wins", "n", "lo", "hi"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (190, 200, 0.9104, 0.9726)],
)
def test_wilson_interval(wins: int, n: int, lo: float, hi: float) -> None:
    got = wilson(wins, n)
    assert got == pytest.approx((lo, hi), abs=1e-4)


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_two_seat_arena_rotates_seats_and_deals() -> None:
    report = arena.run_arena("tictactoe", "random", "random", games=6, seed=10)
    assert [r["seat_a"] for r in report["results"]] == [0, 1, 0, 1, 0, 1]
    assert [r["seed"] for r in report["results"]] == [10, 10, 11, 11, 12, 12]
    assert report["a"]["wins"] + report["b"]["wins"] + report["draws"] == 6
    assert report["a_by_seat"] == {
        "0": {"games": 3, "a_wins": sum(r["winner"] == 0 for r in report["results"] if r["seat_a"] == 0)},
        "1": {"games": 3, "a_wins": sum(r["winner"] == 1 for r in report["results"] if r["seat_a"] == 1)},
    }
    lo, hi = wilson(report["a"]["wins"], 6)
    assert report["a"]["ci95"] == [round(lo, 4), round(hi, 4)]


def test_multi_seat_arena_gives_bot_a_one_seat() -> None:
    report = arena.run_arena("nim", "mcts-test", "random", games=6, players=3, seed=1)
    assert [r["seat_a"] for r in report["results"]] == [0, 1, 2, 0, 1, 2]
    assert report["b"]["wins"] == sum(r["winner"] != r["seat_a"] for r in report["results"])


def test_arena_is_reproducible_and_parallel_matches_serial() -> None:
    serial = arena.run_arena("nim", "random", "random", games=4, players=2, seed=3)
    parallel = arena.run_arena("nim", "random", "random", games=4, players=2, seed=3, jobs=2)
    assert serial["results"] == parallel["results"]


def test_arena_json_and_saved_records(tmp_path: Path) -> None:
    report = arena.run_arena("tictactoe", "random", "random", games=2, seed=0, save=tmp_path)
    saved = json.loads((tmp_path / "arena.json").read_text())
    assert saved["results"] == report["results"]
    records = sorted(tmp_path.glob("game-*.json"))
    assert len(records) == 2
    assert json.loads(records[0].read_text())["game"] == "tictactoe"
    text = arena.format_report(report)
    assert "95% CI" in text and "random" in text


@pytest.mark.parametrize(("players", "games"), [(5, 2), (2, 0)])
def test_bad_arena_settings(players: int, games: int) -> None:
    with pytest.raises(arena.ArenaError):
        arena.run_arena("tictactoe", "random", "random", games=games, players=players)


def test_stopped_arena_reports_partial_and_resumes_to_the_full_result(tmp_path: Path) -> None:
    stop = StopAfter(3)
    partial = arena.run_arena("tictactoe", "random", "random", games=8, seed=5, save=tmp_path, progress=stop)
    assert stop.closed_stopped is True
    assert partial["partial"] is True and partial["games"] == 3 and partial["games_planned"] == 8
    assert "PARTIAL: 3 of 8 games" in arena.format_report(partial)
    assert json.loads((tmp_path / "arena.json").read_text())["partial"] is True
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 3
    with (tmp_path / "results.jsonl").open("a") as log:
        log.write('{"index": 7, "se')  # a line cut short by a kill is dropped
    counted = StopAfter(100)
    resumed = arena.run_arena(
        "tictactoe", "random", "random", games=8, seed=5, save=tmp_path, resume=True, progress=counted
    )
    assert counted.done - counted._first == 5 and counted.closed_stopped is False
    whole = arena.run_arena("tictactoe", "random", "random", games=8, seed=5)
    assert "partial" not in resumed and resumed["results"] == whole["results"]
    assert {k: v for k, v in resumed.items() if k not in ("wall_seconds", "seconds_per_move")} == {
        k: v for k, v in whole.items() if k not in ("wall_seconds", "seconds_per_move")
    }
    assert len(list(tmp_path.glob("game-*.json"))) == 8


@pytest.mark.parametrize(
    ("change", "message"), [({"seed": 6}, "seed 5"), ({"bot_b": "mcts-test"}, "bot_b 'random'")]
)
def test_resume_refuses_another_run(tmp_path: Path, change: dict, message: str) -> None:
    arena.run_arena("tictactoe", "random", "random", games=2, seed=5, save=tmp_path)
    before = (tmp_path / "results.jsonl").read_text()
    settings = {"bot_b": "random", "seed": 5} | change
    with pytest.raises(ValueError, match=message):
        arena.run_arena("tictactoe", "random", games=2, save=tmp_path, resume=True, **settings)
    assert (tmp_path / "results.jsonl").read_text() == before


def test_resume_needs_a_directory() -> None:
    with pytest.raises(arena.ArenaError, match="resuming"):
        arena.run_arena("tictactoe", "random", "random", games=2, resume=True)
