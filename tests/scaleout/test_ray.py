"""The Ray backend on a local runtime started here gives the same results as the process pool.

Everything runs in one test so that exactly one Ray runtime starts, whichever xdist worker runs it (the
`xdist_group` mark is kept for the grouping, but pytest 9 with pytest-xdist 3.8 no longer honours it).
"""

from __future__ import annotations

import os

import pytest
import ray

from tests.stopping import StopAfter
from throne.progress import Progress
from throne.scaleout.arena import run_arena
from throne.scaleout.backend import run_games
from throne.scaleout.selfplay import load_selfplay, run_selfplay
from throne.scaleout.tournament import outcome_key, run_tournament

pytestmark = pytest.mark.xdist_group("ray")


def double(job: int) -> int:
    return 2 * job


def tournament_keys(backend: str, game: str, games: int, players: int | None) -> tuple[list, list]:
    kwargs = {"seed": 21, "players": players, "backend": backend}
    result = run_tournament(game, ["random", "easy"], games, workers=2, **kwargs)
    return [outcome_key(r) for _, r in result.games], result.ratings


def test_ray_backend_matches_the_pool(tmp_path) -> None:
    # a busy CI box can take longer than Ray's default 30 s to start the local node
    os.environ.setdefault("RAY_raylet_start_wait_time_s", "120")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert run_games(double, list(range(9)), "ray") == [2 * i for i in range(9)]

        for game, players, games in (("leaders", None, 4), ("hidden-leaders", 3, 2)):
            on_pool = tournament_keys("pool", game, games, players)
            assert tournament_keys("ray", game, games, players) == on_pool

        counted = Progress("ray", mode="off")
        on_ray = run_arena("leaders", "random", "easy", games=4, seed=3, backend="ray", progress=counted)
        assert counted.done == counted.total == 4  # progress is reported on Ray as on the pool
        serial = run_arena("leaders", "random", "easy", games=4, seed=3, backend="serial")
        assert on_ray["results"] == serial["results"]

        options = {"seed": 4, "players": 3, "workers": 2}
        meta = run_selfplay("hidden-leaders", 2, tmp_path / "ray", backend="ray", **options)
        again = run_selfplay("hidden-leaders", 2, tmp_path / "pool", backend="pool", **options)
        assert meta["rows"] == again["rows"]
        assert load_selfplay(tmp_path / "ray")[1].equals(load_selfplay(tmp_path / "pool")[1])
    finally:
        ray.shutdown()

    # Ctrl-C during a run on a Ray runtime the run started itself: partial results, the runtime shut down
    options = {"games": 400, "jobs": 2, "backend": "ray", "progress": StopAfter(1)}
    stopped = run_arena("leaders", "random", "random", **options)
    assert stopped["partial"] is True and 1 <= stopped["games"] < 400
    assert not ray.is_initialized()
