"""The random bot: a uniformly random legal move (the baseline of every arena)."""

from __future__ import annotations

import random
from typing import Any

from throne.ai.base import Budget, check_turn


class RandomBot:
    """Picks uniformly among the legal moves of the seat to play; deterministic for a given seed."""

    def __init__(self, seed: int = 0, budget: Budget | None = None, name: str = "random") -> None:
        self.name = name
        self.default_budget = budget or Budget()
        self._rng = random.Random(seed)

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        check_turn(state, seat)
        return self._rng.choice(state.legal_moves())
