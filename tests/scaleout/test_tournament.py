"""Tournaments: the schedule, identical results on every local backend, and the report files."""

from __future__ import annotations

import json

import pytest

from tests.stopping import StopAfter
from throne.scaleout.tournament import (
    TournamentError,
    format_table,
    outcome_key,
    run_tournament,
    schedule,
    write_report,
)


@pytest.mark.parametrize(
    ("game", "entrants", "games", "count"),
    [
        ("leaders", ["random", "easy"], 4, 4),  # sides alternate inside one direction
        ("leaders", ["random", "easy", "medium"], 2, 6),
        ("hidden-leaders", ["random", "easy"], 3, 6),  # both entrants take the single seat
        ("hidden-leaders", ["random", "easy", "medium"], 1, 6),
    ],
)
def test_schedule_size(game: str, entrants: list[str], games: int, count: int) -> None:
    assert len(schedule(game, entrants, games)) == count


@pytest.mark.parametrize(("entrants", "games"), [(["random"], 2), (["random", "random"], 2), (["a", "b"], 0)])
def test_schedule_errors(entrants: list[str], games: int) -> None:
    with pytest.raises(TournamentError):
        schedule("leaders", entrants, games)


def test_pool_and_serial_agree() -> None:
    serial = run_tournament("leaders", ["random", "greedy", "easy"], 2, seed=11, backend="serial")
    pool = run_tournament("leaders", ["random", "greedy", "easy"], 2, seed=11, backend="pool", workers=2)
    assert [outcome_key(r) for _, r in serial.games] == [outcome_key(r) for _, r in pool.games]
    assert serial.ratings == pool.ratings


def test_bad_player_count() -> None:
    with pytest.raises(TournamentError, match="players"):
        run_tournament("leaders", ["random", "easy"], 2, players=3, backend="serial")


def test_report_files(tmp_path) -> None:
    result = run_tournament("leaders", ["random", "greedy", "easy"], 2, seed=3, backend="serial")
    paths = write_report(result, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["entrants"] == ["random", "greedy", "easy"]
    assert len(data["games"]) == 6 and len(data["ratings"]) == 3
    assert data["score_matrix"][0][0] is None
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert paths["table"].read_text().splitlines()[0].split()[:3] == ["entrant", "Elo", "±95%"]
    assert format_table(result).count("\n") == 3


def test_stopped_tournament_is_partial_and_resumes_to_the_full_result(tmp_path) -> None:
    entrants = ["random", "greedy", "easy"]
    stop = StopAfter(4)
    partial = run_tournament("leaders", entrants, 3, seed=7, backend="serial", out=tmp_path, progress=stop)
    assert stop.closed_stopped is True and partial.partial and len(partial.games) == 4
    assert partial.to_json()["partial"] is True and partial.to_json()["games_planned"] == 9
    assert "PARTIAL: 4 of 9 games" in format_table(partial)
    counted = StopAfter(100)
    options = {"seed": 7, "out": tmp_path, "resume": True, "progress": counted}
    resumed = run_tournament("leaders", entrants, 3, backend="pool", workers=2, **options)
    assert counted.done - counted._first == 5 and not resumed.partial
    whole = run_tournament("leaders", entrants, 3, seed=7, backend="serial")
    assert [(m, outcome_key(r)) for m, r in resumed.games] == [(m, outcome_key(r)) for m, r in whole.games]
    assert resumed.ratings == whole.ratings and "partial" not in resumed.to_json()


def test_resume_refuses_another_tournament(tmp_path) -> None:
    pair = ["random", "greedy"]
    run_tournament("leaders", pair, 1, seed=7, backend="serial", out=tmp_path)
    with pytest.raises(ValueError, match="seed 7"):
        run_tournament("leaders", pair, 1, seed=8, backend="serial", out=tmp_path, resume=True)
