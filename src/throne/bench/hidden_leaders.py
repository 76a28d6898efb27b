"""`throne bench hidden-leaders`: random-playout speed of the Hidden Leaders engine."""

from __future__ import annotations

import random
import statistics
import time

from throne.games import hidden_leaders as hl
from throne.progress import Progress

PLAYER_COUNTS = (2, 4, 6)


def game_api(players: int, seed: int) -> int:
    """One random game through the public API (legal_moves + play, knowledge tracked)."""
    rng = random.Random(seed)
    st = hl.new_game(players=players, seed=seed)
    n = 0
    while st.phase != "over":
        st.play(rng.choice(st.legal_moves()))
        n += 1
    return n


def game_playout(players: int, seed: int) -> int:
    """One random game on the search fast path: ``clone(track=False)`` + ``random_playout``."""
    st = hl.new_game(players=players, seed=seed).clone(track=False)
    return hl.random_playout(st, random.Random(seed))


MODES = {"api": game_api, "playout": game_playout}


def measure(players: int, seconds: float, seed0: int = 0, mode: str = "api") -> tuple[float, float]:
    """(games/s, decisions/s) of random games during about ``seconds`` of CPU time.

    CPU time (not wall time) is measured so that other processes on a shared machine do not count.
    """
    game = MODES[mode]
    games = decisions = 0
    start = time.process_time()
    end = start + seconds
    while True:
        decisions += game(players, seed0 + games)
        games += 1
        now = time.process_time()
        if now >= end:
            break
    elapsed = now - start
    return games / elapsed, decisions / elapsed


def run(runs: int = 5, seconds: float = 2.0, progress: Progress | None = None) -> bool:
    """Print the median of ``runs`` timed runs for 2, 4 and 6 players and both modes.

    False when Ctrl-C cut the runs short: the rows measured so far are printed (the last one perhaps over
    fewer runs).
    """
    bar = progress or Progress.off()
    bar.start(len(PLAYER_COUNTS) * len(MODES) * runs)
    table: list[tuple[int, str, list[tuple[float, float]]]] = []
    complete = False
    try:
        for players in PLAYER_COUNTS:
            for mode in MODES:
                table.append((players, mode, []))
                for r in range(runs):
                    table[-1][2].append(measure(players, seconds, seed0=1000 * r, mode=mode))
                    bar.advance()
        complete = True
    except KeyboardInterrupt:
        if not table or not table[0][2]:
            raise
    finally:
        bar.close(stopped=not complete)
    print(f"Hidden Leaders random games, modules=core, one core, median of {runs} runs of {seconds:g} CPU s")
    print("api     = legal_moves() + play(move) with knowledge tracking (as a game server runs it)")
    print("playout = clone(track=False) + random_playout(), the search fast path")
    print(f"{'players':>7} {'mode':>8} {'games/s':>10} {'decisions/s':>12} {'decisions/game':>15}")
    for players, mode, results in table:
        if not results:
            continue
        g = statistics.median(r[0] for r in results)
        d = statistics.median(r[1] for r in results)
        short = f"  ({len(results)} of {runs} runs)" if len(results) < runs else ""
        print(f"{players:>7} {mode:>8} {g:>10.1f} {d:>12.0f} {d / g:>15.1f}{short}")
    if not complete:
        print("PARTIAL: the benchmark was stopped")
    return complete
