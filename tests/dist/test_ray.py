"""The Ray backend on a local runtime started here gives the same results as the process pool."""

from __future__ import annotations

import os

import pytest
import ray

from throne.ai.arena import run_arena
from throne.dist.backend import run_games
from throne.dist.selfplay import load_selfplay, run_selfplay
from throne.dist.tournament import outcome_key, run_tournament

pytestmark = pytest.mark.xdist_group("ray")


def double(job: int) -> int:
    return 2 * job


@pytest.fixture(scope="session")
def local_ray():
    """One local runtime per test process (the tests of the "ray" group share one xdist worker)."""
    # a busy CI box can take longer than Ray's default 30 s to start the local node
    os.environ.setdefault("RAY_raylet_start_wait_time_s", "120")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_run_games_on_ray(local_ray) -> None:
    assert run_games(double, list(range(9)), "ray") == [2 * i for i in range(9)]


@pytest.mark.parametrize(("game", "players", "games"), [("leaders", None, 4), ("hidden-leaders", 3, 2)])
def test_tournament_same_on_ray_and_pool(local_ray, game: str, players: int | None, games: int) -> None:
    kwargs = {"seed": 21, "players": players}
    on_ray = run_tournament(game, ["random", "easy"], games, backend="ray", **kwargs)
    on_pool = run_tournament(game, ["random", "easy"], games, backend="pool", workers=2, **kwargs)
    assert [outcome_key(r) for _, r in on_ray.games] == [outcome_key(r) for _, r in on_pool.games]
    assert on_ray.ratings == on_pool.ratings


def test_arena_on_ray(local_ray) -> None:
    on_ray = run_arena("leaders", "random", "easy", games=4, seed=3, backend="ray")
    serial = run_arena("leaders", "random", "easy", games=4, seed=3, backend="serial")
    assert on_ray["results"] == serial["results"]


def test_selfplay_on_ray(local_ray, tmp_path) -> None:
    on_ray = run_selfplay("hidden-leaders", 2, tmp_path / "ray", seed=4, players=3, backend="ray")
    serial = run_selfplay("hidden-leaders", 2, tmp_path / "serial", seed=4, players=3, backend="serial")
    assert on_ray["rows"] == serial["rows"]
    assert load_selfplay(tmp_path / "ray")[1].equals(load_selfplay(tmp_path / "serial")[1])
