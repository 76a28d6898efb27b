"""Monte Carlo tree search (UCT) for perfect-information games, any number of seats.

Leaves are scored by the game heuristic (optionally after a few random actions), values are kept per seat,
and each seat maximises its own value. With `transpositions=True` positions reached by different action
orders share one node (keyed by `SearchOps.key`); a path that comes back to a node already on it stops there.
The search applies and undoes actions on the caller's state and leaves it as it found it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from typing import Any

from throne.ai.base import Budget, check_turn
from throne.ai.search import SearchOps

DEFAULT_BUDGET = Budget(iterations=1000)


class _Node:
    __slots__ = ("children", "n", "to_play", "untried", "w")

    def __init__(self, to_play: int, actions: list[Any], players: int) -> None:
        self.to_play = to_play
        self.untried = actions
        self.children: dict[Any, _Node] = {}
        self.n = 0
        self.w = [0.0] * players


class MctsBot:
    """UCT with heuristic leaves; deterministic for a given seed and iteration budget."""

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        name: str = "mcts",
        *,
        ops: SearchOps | None = None,
        exploration: float = 0.7,
        rollout: int = 0,
        transpositions: bool = True,
    ) -> None:
        self.name = name
        self.default_budget = budget or DEFAULT_BUDGET
        self.ops = ops or SearchOps()
        self.exploration = exploration
        self.rollout = rollout
        self.transpositions = transpositions
        self._rng = random.Random(seed)
        self.last_iterations = 0

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        check_turn(state, seat)
        ops = self.ops
        actions = ops.actions(state)
        if len(actions) == 1:
            return ops.move_string(state, actions[0])
        action = self.search(state, (budget or Budget()).or_default(self.default_budget))
        return ops.move_string(state, action)

    def search(self, state: Any, budget: Budget) -> Any:
        """The most visited root action after the budget is spent."""
        ops = self.ops
        players = ops.players(state)
        table: dict[Hashable, _Node] = {}
        root = self._new_node(state, players)
        key = ops.key(state) if self.transpositions else None
        if key is not None:
            table[key] = root
        clock = budget.clock()
        while clock.tick():
            self._iterate(state, root, table, players)
        self.last_iterations = clock.done
        return max(root.children.items(), key=lambda kv: (kv[1].n, kv[1].w[root.to_play]))[0]

    def _new_node(self, state: Any, players: int) -> _Node:
        actions = [] if state.is_over else list(self.ops.actions(state))
        self._rng.shuffle(actions)
        return _Node(state.to_play if not state.is_over else -1, actions, players)

    def _iterate(self, state: Any, root: _Node, table: dict[Hashable, _Node], players: int) -> None:
        ops = self.ops
        node = root
        path = [root]
        on_path = {id(root)}
        applied = 0
        values: Sequence[float] | None = None
        try:
            while values is None:
                if state.is_over:
                    values = ops.terminal_values(state)
                    break
                if node.untried:
                    action = node.untried.pop()
                    ops.apply(state, action)
                    applied += 1
                    key = ops.key(state) if self.transpositions else None
                    child = table.get(key) if key is not None else None
                    fresh = child is None
                    if child is None:
                        child = self._new_node(state, players)
                        if key is not None:
                            table[key] = child
                    node.children[action] = child
                else:
                    action, child = self._select(node)
                    ops.apply(state, action)
                    applied += 1
                    fresh = False
                if fresh or id(child) in on_path:
                    path.append(child)
                    values = self._leaf(state)
                    break
                node = child
                path.append(node)
                on_path.add(id(node))
        finally:
            for _ in range(applied):
                ops.undo(state)
        for visited in path:
            visited.n += 1
            w = visited.w
            for i in range(players):
                w[i] += values[i]

    def _select(self, node: _Node) -> tuple[Any, _Node]:
        seat = node.to_play
        log_n = math.log(max(node.n, 1))
        c = self.exploration
        best = None
        best_score = -math.inf
        for action, child in node.children.items():
            if child.n == 0:
                return action, child
            score = child.w[seat] / child.n + c * math.sqrt(log_n / child.n)
            if score > best_score:
                best, best_score = (action, child), score
        assert best is not None
        return best

    def _leaf(self, state: Any) -> Sequence[float]:
        if self.rollout <= 0 or state.is_over:
            return self.ops.values(state)
        ops = self.ops
        done = 0
        try:
            while done < self.rollout and not state.is_over:
                ops.apply(state, self._rng.choice(ops.actions(state)))
                done += 1
            return ops.values(state)
        finally:
            for _ in range(done):
                ops.undo(state)
