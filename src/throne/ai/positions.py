"""Mid-game positions reached by seeded random play: the sample the bot benchmark and the bot tests use."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any


def random_positions(
    new_game: Callable[[int], Any], count: int, seed: int = 0, min_moves: int = 0, max_moves: int = 40
) -> list[Any]:
    """`count` unfinished positions: deals `new_game(s)` for s = seed, seed + 1, … plus random moves."""
    out = []
    deal = seed
    while len(out) < count:
        rng = random.Random(deal)
        state = new_game(deal)
        for _ in range(rng.randint(min_moves, max_moves)):
            if state.is_over:
                break
            state.play(rng.choice(state.legal_moves()))
        if not state.is_over:
            out.append(state)
        deal += 1
    return out
