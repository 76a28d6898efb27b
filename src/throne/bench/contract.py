"""Random games through the game contract only (`legal_moves()` + `play()`): a speed figure for any game."""

from __future__ import annotations

import random
import statistics
import time

from throne.games import GameSpec
from throne.progress import Progress


def random_games(spec: GameSpec, seconds: float, seed: int = 0) -> tuple[int, int]:
    """(games, moves) of random play finished within `seconds` of CPU time."""
    rng = random.Random(seed)
    done = moves = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        state = spec.new_state(rng.randrange(2**31))
        while not state.is_over:
            state.play(rng.choice(state.legal_moves()))
            moves += 1
        done += 1
    return done, moves


def run(spec: GameSpec, runs: int = 5, seconds: float = 2.0, progress: Progress | None = None) -> bool:
    """Print the median moves and games per CPU second over `runs` runs; False when Ctrl-C cut them short."""
    bar = progress or Progress.off()
    bar.start(runs)
    rates: list[tuple[int, int]] = []
    complete = False
    try:
        for i in range(runs):
            rates.append(random_games(spec, seconds, seed=i))
            bar.advance()
        complete = True
    except KeyboardInterrupt:
        if not rates:
            raise
    finally:
        bar.close(stopped=not complete)
    games_s = statistics.median(g / seconds for g, _ in rates)
    moves_s = statistics.median(m / seconds for _, m in rates)
    print(f"{spec.name}: random games through the contract, {spec.seats_default} players, "
          f"median of {len(rates)}")
    print(f"  {games_s:,.1f} games/s   {moves_s:,.0f} moves/s")
    if not complete:
        print(f"PARTIAL: {len(rates)} of {runs} runs (the benchmark was stopped)")
    return complete
