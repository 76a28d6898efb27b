"""Greedy bot for perfect-information games: the action leading to the position the heuristic likes best."""

from __future__ import annotations

import random
from typing import Any

from throne.ai.base import Budget, check_turn
from throne.ai.search import SearchOps


class GreedyBot:
    """One ply: apply each action, score the result for the moving seat, keep the best (ties at random)."""

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        name: str = "greedy",
        *,
        ops: SearchOps | None = None,
    ) -> None:
        self.name = name
        self.default_budget = budget or Budget()
        self.ops = ops or SearchOps()
        self._rng = random.Random(seed)

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        check_turn(state, seat)
        ops = self.ops
        best: list[Any] = []
        best_value = -1.0
        for action in ops.actions(state):
            ops.apply(state, action)
            try:
                value = ops.values(state)[seat]
            finally:
                ops.undo(state)
            if value > best_value + 1e-12:
                best, best_value = [action], value
            elif value >= best_value - 1e-12:
                best.append(action)
        return ops.move_string(state, self._rng.choice(best))
