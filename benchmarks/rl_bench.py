"""Research API speed: environment steps/s and tournament games/s (numbers for docs/BENCHMARKS.md).

    .venv/bin/python benchmarks/rl_bench.py [--seconds 3] [--runs 3] [--games 40]

Environment rates are agent-steps per second of random masked play (observation, mask and step of every
agent turn), given both per wall-clock second and per CPU second of the process (the box is shared).
Tournament rates are whole games per wall-clock second on the process pool and on a local Ray runtime, both
with 2 workers, for the same schedule (the results are checked to be identical).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np


def pettingzoo_rate(make: Callable[[], object], seconds: float) -> tuple[float, float]:
    env = make()
    rng = np.random.default_rng(0)
    steps, seed = 0, 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        env.reset(seed=seed)
        seed += 1
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - wall), steps / max(time.process_time() - cpu, 1e-9)


def gym_rate(env_id: str, seconds: float, **kwargs: object) -> tuple[float, float]:
    import gymnasium as gym

    import throne.rl  # noqa: F401

    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    steps, seed = 0, 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        _, info = env.reset(seed=seed)
        seed += 1
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = terminated or truncated
            steps += 1
    return steps / (time.perf_counter() - wall), steps / max(time.process_time() - cpu, 1e-9)


def chess_rate(seconds: float) -> tuple[float, float] | None:
    try:
        from pettingzoo.classic import chess_v6
    except ImportError:  # pettingzoo[classic] needs python-chess, not installed here
        return None
    return pettingzoo_rate(chess_v6.env, seconds)


def tournament_rate(backend: str, game: str, entrants: list[str], games: int, players: int | None):
    from throne.scaleout.tournament import outcome_key, run_tournament

    start = time.perf_counter()
    result = run_tournament(game, entrants, games, seed=1, players=players, backend=backend, workers=2)
    elapsed = time.perf_counter() - start
    return len(result.games) / elapsed, [outcome_key(r) for _, r in result.games]


def median_pair(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--games", type=int, default=20, help="games per pairing in the tournament runs")
    args = parser.parse_args()

    from throne.rl.pettingzoo import hidden_leaders_env, leaders_env

    rows: list[tuple[str, str, str]] = []

    def env_row(label: str, measure: Callable[[], tuple[float, float]]) -> None:
        wall, cpu = median_pair([measure() for _ in range(args.runs)])
        rows.append((label, f"{wall:,.0f}", f"{cpu:,.0f}"))
        print(f"{label}: {wall:,.0f} agent-steps/s wall, {cpu:,.0f} per CPU second", flush=True)

    env_row("PettingZoo `leaders_env()`", lambda: pettingzoo_rate(leaders_env, args.seconds))
    env_row(
        "PettingZoo `hidden_leaders_env(players=4)`",
        lambda: pettingzoo_rate(hidden_leaders_env, args.seconds),
    )
    env_row(
        "Gymnasium `throne/Leaders-v0` (random opponent)", lambda: gym_rate("throne/Leaders-v0", args.seconds)
    )
    env_row(
        "Gymnasium `throne/HiddenLeaders-v0` (4 players, random opponents)",
        lambda: gym_rate("throne/HiddenLeaders-v0", args.seconds),
    )
    chess = chess_rate(args.seconds)
    if chess is None:
        rows.append(("PettingZoo `chess_v6` (anchor)", "~600 (quoted; python-chess not installed)", "-"))
        print("chess_v6: not importable (python-chess missing); anchor quoted as ~600 agent-steps/s")
    else:
        rows.append(("PettingZoo `chess_v6` (anchor)", f"{chess[0]:,.0f}", f"{chess[1]:,.0f}"))

    print("\n| environment | agent-steps/s (wall) | agent-steps/s (CPU) |\n|---|---:|---:|")
    for label, wall, cpu in rows:
        print(f"| {label} | {wall} | {cpu} |")

    os.environ.setdefault("RAY_raylet_start_wait_time_s", "120")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        print("\n| tournament | games | pool (2 workers) games/s | local Ray (2 workers) games/s | same |")
        print("|---|---:|---:|---:|---|")
        for game, entrants, players in (
            ("leaders", ["random", "greedy", "easy"], None),
            ("hidden-leaders", ["random", "easy"], 4),
        ):
            tournament_rate("ray", game, entrants, 2, players)  # warm the Ray workers up
            pool_rate, pool_keys = tournament_rate("pool", game, entrants, args.games, players)
            ray_rate, ray_keys = tournament_rate("ray", game, entrants, args.games, players)
            label = f"{game}: {', '.join(entrants)}"
            print(
                f"| {label} | {len(pool_keys)} | {pool_rate:.1f} | {ray_rate:.1f} | {pool_keys == ray_keys} |"
            )
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
