"""Self-play trajectories: the documented Parquet columns, consistent with the games that were played."""

from __future__ import annotations

import numpy as np
import pytest

from tests.stopping import StopAfter
from throne.scaleout.selfplay import SelfplayJob, load_selfplay, play_selfplay, run_selfplay


@pytest.mark.parametrize(("game", "players"), [("leaders", 2), ("hidden-leaders", 3)])
def test_trajectories(tmp_path, game: str, players: int) -> None:
    meta = run_selfplay(game, 2, tmp_path, seed=5, players=players, backend="serial")
    meta2, table = load_selfplay(tmp_path)
    assert meta == meta2 and meta["rows"] == table.num_rows > 0
    assert table.column_names == [
        "game", "seed", "step", "seat", "observation", "legal_actions", "action", "return",
    ]  # fmt: skip
    width = int(np.prod(meta["observation_shape"]))
    rows = table.to_pylist()
    assert all(len(r["observation"]) == width for r in rows[:5])
    assert all(r["action"] in r["legal_actions"] for r in rows)
    for game_index in (0, 1):
        mine = [r for r in rows if r["game"] == game_index]
        assert [r["step"] for r in mine] == list(range(len(mine)))
        assert {r["seed"] for r in mine} == {5 + game_index}
        returns = {r["seat"]: r["return"] for r in mine}
        assert set(returns.values()) <= {-1.0, 0.0, 1.0}
        assert sum(v == 1.0 for v in returns.values()) <= 1


def test_pool_matches_serial(tmp_path) -> None:
    serial = run_selfplay("leaders", 3, tmp_path / "a", seed=2, backend="serial")
    pool = run_selfplay("leaders", 3, tmp_path / "b", seed=2, backend="pool", workers=2)
    assert serial["rows"] == pool["rows"]
    assert load_selfplay(tmp_path / "a")[1].equals(load_selfplay(tmp_path / "b")[1])


def test_one_game_is_reproducible() -> None:
    job = SelfplayJob("hidden-leaders", "random", 9, 0, players=4)
    a, b = play_selfplay(job), play_selfplay(job)
    assert np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action"], b["action"])


def test_errors(tmp_path) -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        run_selfplay("leaders", 1, tmp_path, bot="nobody", backend="serial")
    with pytest.raises(ValueError, match="at least one game"):
        run_selfplay("leaders", 0, tmp_path, backend="serial")


def test_stopped_selfplay_writes_the_finished_games(tmp_path) -> None:
    stop = StopAfter(2)
    meta = run_selfplay("leaders", 6, tmp_path, seed=2, backend="pool", workers=2, progress=stop)
    assert stop.closed_stopped is True
    assert meta["partial"] is True and meta["games_planned"] == 6 and meta["games"] >= 2
    assert meta["game_numbers"] == sorted(meta["game_numbers"])
    saved, table = load_selfplay(tmp_path)
    assert saved == meta and table.num_rows == meta["rows"]
    assert sorted(set(table.column("game").to_pylist())) == meta["game_numbers"]
    whole = run_selfplay("leaders", 6, tmp_path / "whole", seed=2, backend="serial")
    _, full = load_selfplay(tmp_path / "whole")
    kept = [r for r in full.to_pylist() if r["game"] in meta["game_numbers"]]
    assert table.to_pylist() == kept and whole["games"] == 6 and "partial" not in whole
