"""Random games through the game contract only (`legal_moves()` + `play()`): a speed figure for any game."""

from __future__ import annotations

import random
import statistics
import time

from throne.games import GameSpec


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


def run(spec: GameSpec, runs: int = 5, seconds: float = 2.0) -> None:
    """Print the median moves and games per CPU second over `runs` runs."""
    rates = [random_games(spec, seconds, seed=i) for i in range(runs)]
    games_s = statistics.median(g / seconds for g, _ in rates)
    moves_s = statistics.median(m / seconds for _, m in rates)
    print(f"{spec.name}: random games through the contract, {spec.seats_default} players, median of {runs}")
    print(f"  {games_s:,.1f} games/s   {moves_s:,.0f} moves/s")
