"""`throne bench hidden-leaders`: random-playout speed of the Hidden Leaders engine."""

from __future__ import annotations

import random
import statistics
import time

from throne.games import hidden_leaders as hl

PLAYER_COUNTS = (2, 4, 6)


def playout(players: int, seed: int, modules: tuple[str, ...] = ("core",)) -> int:
    """One random game from the deal to the end; returns the number of decisions."""
    rng = random.Random(seed)
    st = hl.new_game(players=players, seed=seed, modules=modules)
    n = 0
    while st.phase != "over":
        st.play(rng.choice(st.legal_moves()))
        n += 1
    return n


def measure(players: int, seconds: float, seed0: int = 0) -> tuple[float, float]:
    """(games/s, decisions/s) of random playouts during about ``seconds``."""
    games = decisions = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        decisions += playout(players, seed0 + games)
        games += 1
        now = time.perf_counter()
        if now >= end:
            break
    elapsed = now - start
    return games / elapsed, decisions / elapsed


def run(runs: int = 5, seconds: float = 2.0) -> None:
    """Print the median of ``runs`` timed runs for 2, 4 and 6 players."""
    print(f"Hidden Leaders random playouts, modules=core, median of {runs} runs of {seconds:g} s")
    print(f"{'players':>7} {'games/s':>10} {'decisions/s':>12} {'decisions/game':>15}")
    for players in PLAYER_COUNTS:
        results = [measure(players, seconds, seed0=1000 * r) for r in range(runs)]
        g = statistics.median(r[0] for r in results)
        d = statistics.median(r[1] for r in results)
        print(f"{players:>7} {g:>10.1f} {d:>12.0f} {d / g:>15.1f}")
