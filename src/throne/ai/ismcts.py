"""Bots for hidden-information games (Hidden Leaders): determinized greedy and single-observer ISMCTS.

Both read a state only through `determinize(seat, rng)`: every world they search is one the seat cannot tell
apart from the real game, drawn from what the seat knows alone. ISMCTS keeps one
tree of move strings for the observer; each iteration samples a world, descends through the moves legal in
it (UCB with availability counts, each seat maximising its own value), expands one move, plays a short
random rollout and scores the result with the heuristic for every seat.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from throne.ai.base import Budget, check_turn

Evaluate = Callable[[Any], Sequence[float]]

DEFAULT_BUDGET = Budget(iterations=300)


def _default_evaluate() -> Evaluate:
    from throne.ai.hidden_eval import evaluate

    return evaluate


class _Node:
    __slots__ = ("avail", "children", "n", "w")

    def __init__(self, players: int) -> None:
        self.children: dict[str, _Node] = {}
        self.n = 0
        self.avail = 1
        self.w = [0.0] * players


class IsmctsBot:
    """Single-observer information-set MCTS; deterministic for a given seed and iteration budget."""

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        name: str = "ismcts",
        *,
        evaluate: Evaluate | None = None,
        exploration: float = 0.7,
        rollout: int = 4,
    ) -> None:
        self.name = name
        self.default_budget = budget or DEFAULT_BUDGET
        self.evaluate = evaluate or _default_evaluate()
        self.exploration = exploration
        self.rollout = rollout
        self.seed = seed
        self.last_iterations = 0

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        check_turn(state, seat)
        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        rng = random.Random(self.seed)
        root = _Node(state.players)
        clock = (budget or Budget()).or_default(self.default_budget).clock()
        while clock.tick():
            self._iterate(state.determinize(seat, rng), root, rng)
        self.last_iterations = clock.done
        ranked = [(child.n, child.w[seat] / max(child.n, 1), move) for move, child in root.children.items()]
        ranked = [r for r in ranked if r[2] in legal]
        if not ranked:
            return rng.choice(legal)
        return max(ranked)[2]

    def _iterate(self, world: Any, root: _Node, rng: random.Random) -> None:
        players = len(root.w)
        node = root
        path = [root]
        while not world.is_over:
            legal = world.legal_moves()
            mover = world.to_play
            children = node.children
            untried = [m for m in legal if m not in children]
            for m in legal:
                child = children.get(m)
                if child is not None:
                    child.avail += 1
            if untried:
                move = rng.choice(untried)
                world.play(move)
                child = children[move] = _Node(players)
                path.append((child, mover))
                break
            move = self._select(node, legal, mover)
            world.play(move)
            node = children[move]
            path.append((node, mover))
        for _ in range(self.rollout):
            if world.is_over:
                break
            world.play(rng.choice(world.legal_moves()))
        values = self.evaluate(world)
        root.n += 1
        for visited, _mover in path[1:]:
            visited.n += 1
            w = visited.w
            for i in range(players):
                w[i] += values[i]

    def _select(self, node: _Node, legal: list[str], mover: int) -> str:
        c = self.exploration
        best, best_score = legal[0], -math.inf
        for move in legal:
            child = node.children[move]
            score = child.w[mover] / child.n + c * math.sqrt(math.log(child.avail) / child.n)
            if score > best_score:
                best, best_score = move, score
        return best


class DeterminizedGreedyBot:
    """One decision ahead: each legal move is played in the same few sampled worlds and scored there."""

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        name: str = "greedy",
        *,
        evaluate: Evaluate | None = None,
    ) -> None:
        self.name = name
        self.default_budget = budget or Budget(iterations=8)
        self.evaluate = evaluate or _default_evaluate()
        self.seed = seed
        self.last_iterations = 0

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        """The budget's iterations are the number of sampled worlds (a time limit stops sampling early)."""
        check_turn(state, seat)
        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        rng = random.Random(self.seed)
        totals = dict.fromkeys(legal, 0.0)
        clock = (budget or Budget()).or_default(self.default_budget).clock()
        while clock.tick():
            world = state.determinize(seat, rng)
            for move in legal:
                trial = world.clone()
                trial.play(move)
                totals[move] += self.evaluate(trial)[seat]
        self.last_iterations = clock.done
        best = max(totals.values())
        return rng.choice([m for m in legal if totals[m] >= best - 1e-9])
