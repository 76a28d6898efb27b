"""The interface between a game and the generic searchers (greedy, MCTS, alpha-beta).

A `SearchOps` says how to list, apply and undo actions (strings or an engine's integer fast path), how to
name an action as a move string, how to key a position for transpositions, and how good a position is for
each seat (`values`, each in [0, 1]: exact at the end of a game, a heuristic estimate before).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any


class SearchOps:
    """Search over move strings with `legal_moves`/`play`/`undo`; subclasses may use a faster path."""

    def __init__(self, heuristic: Callable[[Any], Sequence[float]] | None = None) -> None:
        self.heuristic = heuristic

    def players(self, state: Any) -> int:
        return int(getattr(state, "players", 2))

    def actions(self, state: Any) -> list[Any]:
        return state.legal_moves()

    def apply(self, state: Any, action: Any) -> None:
        state.play(action)

    def undo(self, state: Any) -> None:
        state.undo()

    def move_string(self, state: Any, action: Any) -> str:
        """The move string of `action` in `state` (before it is applied)."""
        return action

    def turn_id(self, state: Any) -> Hashable:
        """Changes exactly when a turn ends; by default every action is a whole turn."""
        return len(getattr(state, "history", ())) + (1000000 if state.is_over else 0)

    def turn_owner(self, state: Any) -> int:
        """The seat whose turn it is (it may differ from `to_play` while another seat answers)."""
        return state.to_play

    def turn_group(self, actions: list[Any]) -> Hashable:
        """Completed turns with the same group are alternatives of one plan; the searcher keeps the best."""
        return tuple(actions)

    def key(self, state: Any) -> Hashable | None:
        key = getattr(state, "key", None)
        return key() if key is not None else None

    def terminal_values(self, state: Any) -> list[float]:
        n = self.players(state)
        winner = state.winner
        if winner is None:
            return [1.0 / n] * n
        return [1.0 if seat == winner else 0.0 for seat in range(n)]

    def values(self, state: Any) -> Sequence[float]:
        if state.is_over:
            return self.terminal_values(state)
        if self.heuristic is None:
            n = self.players(state)
            return [1.0 / n] * n
        return self.heuristic(state)
