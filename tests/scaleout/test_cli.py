"""`throne tournament`, `throne selfplay` and `throne arena --backend` from the command line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from throne.cli import app

runner = CliRunner()


def test_tournament_command(tmp_path) -> None:
    args = ["tournament", "leaders", "random", "greedy", "--games", "2", "--backend", "serial"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Elo" in result.output
    report = {"tournament.json", "ratings.txt", "tournament.png"}
    assert {p.name for p in tmp_path.iterdir()} == {*report, "games.jsonl", "run.json"}
    assert json.loads((tmp_path / "tournament.json").read_text())["entrants"] == ["random", "greedy"]


def test_selfplay_command(tmp_path) -> None:
    args = ["selfplay", "hidden-leaders", "--games", "2", "--players", "3", "--backend", "serial"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "meta.json").read_text())
    assert meta["players"] == 3 and meta["games"] == 2 and (tmp_path / "trajectories.parquet").exists()


def test_arena_backend_option() -> None:
    args = ["arena", "leaders", "random", "greedy", "--games", "2", "--backend", "serial", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 2  # progress lines go to stderr


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "leaders", "random", "--games", "2"],
        ["tournament", "leaders", "random", "nobody", "--games", "2", "--backend", "serial"],
        ["selfplay", "leaders", "--games", "1", "--backend", "nowhere"],
        ["arena", "leaders", "random", "greedy", "--games", "1", "--backend", "pool", "--address", "x:1"],
    ],
)
def test_bad_arguments(args: list[str], tmp_path) -> None:
    result = runner.invoke(app, [*args, *(["--out", str(tmp_path)] if args[0] != "arena" else [])])
    assert result.exit_code == 2, result.output
