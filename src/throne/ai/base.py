"""The common vocabulary of every bot: the `Bot` protocol, search budgets and the errors of `throne.ai`."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable


class AIError(ValueError):
    """Base class of the errors `throne.ai` raises for bad requests."""


class UnknownGameError(AIError):
    """The game name is not one `throne.ai` knows."""


class UnknownBotError(AIError):
    """The bot or level name is not registered for the game."""


class NotToPlayError(AIError):
    """A move was asked for a seat that does not have to decide now (or for a finished game)."""


class BudgetError(AIError):
    """A budget with a negative or otherwise impossible limit."""


@runtime_checkable
class GameState(Protocol):
    """The small protocol every game state offers the generic bots (both engines and the test games)."""

    @property
    def to_play(self) -> int: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def winner(self) -> int | None: ...

    def legal_moves(self) -> list[str]: ...

    def play(self, move: str) -> None: ...

    def clone(self) -> Any: ...


@dataclass(frozen=True)
class Budget:
    """How much a bot may search: iterations, seconds, or both (whichever runs out first).

    With neither limit a search bot uses its own default. Iteration budgets make a bot deterministic for a
    given seed; a seconds limit makes it depend on the machine's speed.
    """

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is not None and self.iterations < 1:
            raise BudgetError(f"a budget needs at least 1 iteration, got {self.iterations}")
        if self.seconds is not None and self.seconds <= 0:
            raise BudgetError(f"a budget needs a positive number of seconds, got {self.seconds}")

    @property
    def unlimited(self) -> bool:
        return self.iterations is None and self.seconds is None

    def capped(self, seconds: float) -> Budget:
        """This budget, with its time limit lowered to `seconds` if it was higher or absent."""
        if seconds <= 0:
            raise BudgetError(f"cannot cap a budget at {seconds} seconds")
        if self.seconds is not None and self.seconds <= seconds:
            return self
        return replace(self, seconds=seconds)

    def or_default(self, default: Budget) -> Budget:
        """`default` when this budget sets no limit at all, else this budget."""
        return default if self.unlimited else self

    def clock(self) -> BudgetClock:
        return BudgetClock(self)

    def describe(self) -> str:
        parts = []
        if self.iterations is not None:
            parts.append(f"{self.iterations} iterations")
        if self.seconds is not None:
            parts.append(f"{self.seconds:g} s")
        return " or ".join(parts) if parts else "default budget"


class BudgetClock:
    """Counts the iterations of one search against a `Budget`; `tick()` says whether another one may start."""

    __slots__ = ("_deadline", "_limit", "done")

    def __init__(self, budget: Budget) -> None:
        self.done = 0
        self._limit = budget.iterations
        self._deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds

    def expired(self) -> bool:
        if self._limit is not None and self.done >= self._limit:
            return True
        return self._deadline is not None and time.perf_counter() >= self._deadline

    def tick(self) -> bool:
        """True (and counts one iteration) while the budget allows another iteration."""
        if self.expired():
            return False
        self.done += 1
        return True


class Bot(Protocol):
    """A move chooser. `choose` returns a move string legal in `state` for `seat` (the seat to play).

    A Hidden Leaders bot reads the state only through `view(seat)` and `determinize(seat, rng)`; a Leaders
    searcher plays in a world with the unseen deck redealt. Hand bots `ai.seat_state(game, state, seat)`, so
    they never hold a secret at all (the worker does).
    """

    name: str

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str: ...


def check_turn(state: GameState, seat: int) -> None:
    """Raise `NotToPlayError` unless `seat` must decide now in `state`."""
    if state.is_over:
        raise NotToPlayError("the game is over: no move to choose")
    if state.to_play != seat:
        raise NotToPlayError(f"seat {seat} is not to play (seat {state.to_play} is)")
