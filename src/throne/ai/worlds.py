"""Search over a sampled world: perfect-information searchers made blind to what no seat can see.

A Leaders search would otherwise read the real order of the deck when it simulates a recruit's refill. The
wrapper hands the searcher a world where the unseen cards are dealt again from the bot's own generator, so
the move depends only on public information, the bot's seed and its budget.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from throne.ai.base import Bot, Budget


class SampledWorldBot:
    """`inner` choosing in `redeal(state, rng)`: a world consistent with what the seat sees."""

    def __init__(self, inner: Bot, redeal: Callable[[Any, random.Random], Any], seed: int = 0) -> None:
        self.inner = inner
        self.name = inner.name
        self._redeal = redeal
        self._rng = random.Random(f"worlds/{seed}")

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        return self.inner.choose(self._redeal(state, self._rng), seat, budget)

    def __getattr__(self, name: str) -> Any:  # search statistics of the inner bot (last_depth, ...)
        if name.startswith("__") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
