"""`throne bench hidden-leaders`: random-playout speed of the Hidden Leaders engine."""

from __future__ import annotations

import random
import statistics
import time

from throne.games import hidden_leaders as hl

PLAYER_COUNTS = (2, 4, 6)


def playout(players: int, seed: int, modules: tuple[str, ...] = ("core",), track: bool = True) -> int:
    """One random game from the deal to the end; returns the number of decisions.

    ``track=False`` plays on a ``clone(track=False)`` as search playouts do (no per-seat knowledge).
    """
    rng = random.Random(seed)
    st = hl.new_game(players=players, seed=seed, modules=modules)
    if not track:
        st = st.clone(track=False)
    n = 0
    while st.phase != "over":
        st.play(rng.choice(st.legal_moves()))
        n += 1
    return n


def measure(players: int, seconds: float, seed0: int = 0, track: bool = True) -> tuple[float, float]:
    """(games/s, decisions/s) of random playouts during about ``seconds``."""
    games = decisions = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        decisions += playout(players, seed0 + games, track=track)
        games += 1
        now = time.perf_counter()
        if now >= end:
            break
    elapsed = now - start
    return games / elapsed, decisions / elapsed


def run(runs: int = 5, seconds: float = 2.0) -> None:
    """Print the median of ``runs`` timed runs for 2, 4 and 6 players."""
    print(f"Hidden Leaders random playouts, modules=core, median of {runs} runs of {seconds:g} s")
    print("full = the engine as a game server uses it (knowledge tracked for views);")
    print("playout = clone(track=False), the search fast path")
    print(f"{'players':>7} {'mode':>8} {'games/s':>10} {'decisions/s':>12} {'decisions/game':>15}")
    for players in PLAYER_COUNTS:
        for track in (True, False):
            results = [measure(players, seconds, seed0=1000 * r, track=track) for r in range(runs)]
            g = statistics.median(r[0] for r in results)
            d = statistics.median(r[1] for r in results)
            mode = "full" if track else "playout"
            print(f"{players:>7} {mode:>8} {g:>10.1f} {d:>12.0f} {d / g:>15.1f}")
