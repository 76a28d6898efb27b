"""Alpha-beta search for two-seat games, over single actions, with iterative deepening.

Turns may hold several actions of the same seat (Leaders): a node maximises when the root seat is to play
and minimises otherwise, so no strict alternation is assumed. A transposition table keyed by
`SearchOps.key` stores bounds and best actions for move ordering. The iteration budget counts visited nodes;
when it runs out the result of the last completed depth is used.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

from throne.ai.base import Budget, BudgetClock, check_turn
from throne.ai.search import SearchOps

DEFAULT_BUDGET = Budget(iterations=20000)
WIN_BONUS = 1e-3
"""Terminal values are pushed beyond [0, 1] by this much per remaining ply, so faster wins score higher."""

WIDEN = 3
"""How much wider the own beams of the whole-turn search get when every candidate turn loses."""

_EXACT, _LOWER, _UPPER = 0, 1, 2


class _OutOfBudget(Exception):
    pass


class AlphaBetaBot:
    """Iterative-deepening alpha-beta; deterministic for a given seed and node budget."""

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        name: str = "alphabeta",
        *,
        ops: SearchOps | None = None,
        max_depth: int = 32,
        order_depth: int = 2,
    ) -> None:
        self.name = name
        self.default_budget = budget or DEFAULT_BUDGET
        self.ops = ops or SearchOps()
        self.max_depth = max_depth
        self.order_depth = order_depth
        self._rng = random.Random(seed)
        self.last_depth = 0
        self.last_iterations = 0

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        check_turn(state, seat)
        actions = self.ops.actions(state)
        if len(actions) == 1:
            return self.ops.move_string(state, actions[0])
        action = self.search(state, seat, (budget or Budget()).or_default(self.default_budget))
        return self.ops.move_string(state, action)

    def search(self, state: Any, seat: int, budget: Budget) -> Any:
        self._me = seat
        self._clock: BudgetClock = budget.clock()
        self._table: dict[Hashable, tuple[int, float, int, Any]] = {}
        root_actions = list(self.ops.actions(state))
        self._rng.shuffle(root_actions)
        best = root_actions[0]
        self.last_depth = 0
        for depth in range(1, self.max_depth + 1):
            try:
                value, action = self._root(state, root_actions, depth)
            except _OutOfBudget:
                break
            best = action
            self.last_depth = depth
            root_actions.remove(action)
            root_actions.insert(0, action)
            if value >= 1.0 or value <= 0.0:  # a forced result was found
                break
        self.last_iterations = self._clock.done
        return best

    def _root(self, state: Any, actions: list[Any], depth: int) -> tuple[float, Any]:
        ops = self.ops
        alpha, beta = -2.0, 2.0
        best_action, best_value = actions[0], -2.0
        for action in actions:
            ops.apply(state, action)
            try:
                value = self._search(state, depth - 1, alpha, beta)
            finally:
                ops.undo(state)
            if value > best_value:
                best_value, best_action = value, action
            alpha = max(alpha, value)
        return best_value, best_action

    def _search(self, state: Any, depth: int, alpha: float, beta: float) -> float:
        if not self._clock.tick():
            raise _OutOfBudget
        ops = self.ops
        if state.is_over:
            value = ops.terminal_values(state)[self._me]
            if value == 1.0:
                return 1.0 + WIN_BONUS * depth
            if value == 0.0:
                return -WIN_BONUS * depth
            return value
        if depth <= 0:
            return ops.values(state)[self._me]
        key = ops.key(state)
        hint = None
        if key is not None:
            entry = self._table.get(key)
            if entry is not None:
                e_depth, e_value, e_flag, hint = entry
                if e_depth >= depth and (
                    e_flag == _EXACT
                    or (e_flag == _LOWER and e_value >= beta)
                    or (e_flag == _UPPER and e_value <= alpha)
                ):
                    return e_value
        maximizing = state.to_play == self._me
        actions = self._ordered(state, depth, maximizing, hint)
        alpha0, beta0 = alpha, beta
        best_action = None
        if maximizing:
            best = -2.0
            for action in actions:
                ops.apply(state, action)
                try:
                    value = self._search(state, depth - 1, alpha, beta)
                finally:
                    ops.undo(state)
                if value > best:
                    best, best_action = value, action
                    alpha = max(alpha, value)
                    if alpha >= beta:
                        break
        else:
            best = 3.0
            for action in actions:
                ops.apply(state, action)
                try:
                    value = self._search(state, depth - 1, alpha, beta)
                finally:
                    ops.undo(state)
                if value < best:
                    best, best_action = value, action
                    beta = min(beta, value)
                    if alpha >= beta:
                        break
        if key is not None:
            flag = _UPPER if best <= alpha0 else _LOWER if best >= beta0 else _EXACT
            self._table[key] = (depth, best, flag, best_action)
        return best

    def _ordered(self, state: Any, depth: int, maximizing: bool, hint: Any) -> list[Any]:
        ops = self.ops
        actions = list(ops.actions(state))
        if depth >= self.order_depth:
            scored = []
            for action in actions:
                ops.apply(state, action)
                v = ops.values(state)[self._me]
                ops.undo(state)
                scored.append((v, action))
            scored.sort(key=lambda t: t[0], reverse=maximizing)
            actions = [a for _, a in scored]
        if hint is not None and hint in actions:
            actions.remove(hint)
            actions.insert(0, hint)
        return actions


class TurnSearchBot:
    """Alpha-beta over whole turns (Leaders turns hold several actions).

    The candidate turns of a seat come from a beam search inside the turn: partial turns are extended by
    every legal action, positions reached by different orders are merged, and the `width` best partial
    turns (by the heuristic) survive each step; the `keep` best completed turns are the candidates (the
    replies of the other seat use the narrower `reply_width` and `reply_keep`). A
    decision of the other seat inside a turn (a Nemesis reaction) is taken greedily for that seat; when the
    searching seat itself must answer inside the other seat's turn, its "turn" is that one decision. The
    searcher deepens over turns (1, 2, 3, ...) until the budget, counted in heuristic evaluations, runs out,
    then plays the first action of the best turn of the last completed depth. The rest of that turn is
    kept as a plan: while the game follows it (same positions), the next calls play it without searching.
    """

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        name: str = "turns",
        *,
        ops: SearchOps | None = None,
        width: int = 6,
        keep: int = 8,
        reply_width: int = 2,
        reply_keep: int = 4,
        diverse: bool = False,
        root_keep: int = 12,
        max_depth: int = 6,
    ) -> None:
        self.name = name
        self.default_budget = budget or Budget(iterations=20000)
        self.ops = ops or SearchOps()
        self.width = width
        self.keep = keep
        self.reply_width = reply_width
        self.reply_keep = reply_keep
        self.diverse = diverse
        self.root_keep = root_keep
        self._diverse = False
        self._candidates: list[list[Any]] | None = None
        self._plan: list[tuple[Hashable, Any]] = []
        self.max_depth = max_depth
        self._rng = random.Random(seed)
        self.last_depth = 0
        self.last_iterations = 0

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        check_turn(state, seat)
        ops = self.ops
        actions = ops.actions(state)
        if len(actions) == 1:
            return ops.move_string(state, actions[0])
        if self._plan and self._plan[0][0] == ops.key(state) and self._plan[0][1] in actions:
            return ops.move_string(state, self._plan.pop(0)[1])
        self._plan = []
        self._candidates = None
        self._me = seat
        self._clock = (budget or Budget()).or_default(self.default_budget).clock()
        best_turn: list[Any] | None = None
        self.last_depth = 0
        for depth in range(1, self.max_depth + 1):
            try:
                value, turn = self._root(state, depth)
            except _OutOfBudget:
                break
            best_turn = turn
            self.last_depth = depth
            if value >= 1.0:
                break
            if value <= 0.0:
                best_turn = self._widen(state, depth) or best_turn
                break
        self.last_iterations = self._clock.done
        if not best_turn:
            # not even one depth finished: the greedy action
            best_turn = [max(actions, key=lambda a: self._after(state, a))]
        self._remember(state, seat, best_turn)
        return ops.move_string(state, best_turn[0])

    def _widen(self, state: Any, depth: int) -> list[Any] | None:
        """Every candidate turn loses: search again with wider own beams, while the budget lasts."""
        saved = self.width, self.keep, self.root_keep, self._candidates
        self.width, self.keep, self.root_keep = self.width * WIDEN, self.keep * WIDEN, self.root_keep * WIDEN
        self._candidates = None
        try:
            value, turn = self._root(state, depth)
        except _OutOfBudget:
            return None
        finally:
            self.width, self.keep, self.root_keep, self._candidates = saved
        return turn if value > 0.0 else None

    def _remember(self, state: Any, seat: int, turn: list[Any]) -> None:
        """Keep the own actions after the first one, each with the position it is meant for."""
        ops = self.ops
        plan = []
        for done, action in enumerate(turn):
            if done and state.to_play == seat:
                plan.append((ops.key(state), action))
            ops.apply(state, action)
        for _ in turn:
            ops.undo(state)
        self._plan = plan

    def _after(self, state: Any, action: Any) -> float:
        self.ops.apply(state, action)
        try:
            return self.ops.values(state)[self._me]
        finally:
            self.ops.undo(state)

    def _value(self, state: Any) -> float:
        if not self._clock.tick():
            raise _OutOfBudget
        return self.ops.values(state)[self._me]

    def _root(self, state: Any, depth: int) -> tuple[float, list[Any]]:
        if self._candidates is None:
            self._candidates = self.turns(state, state.to_play, diverse=self.diverse)
        best_value, best_turn = -2.0, []
        alpha, beta = -2.0, 2.0
        for turn in self._candidates:
            value = self._play_turn(state, turn, depth - 1, alpha, beta)
            if value > best_value:
                best_value, best_turn = value, turn
            alpha = max(alpha, value)
        if best_turn:  # search the best turn first at the next depth
            self._candidates.remove(best_turn)
            self._candidates.insert(0, best_turn)
        return best_value, best_turn

    def _play_turn(self, state: Any, turn: list[Any], depth: int, alpha: float, beta: float) -> float:
        ops = self.ops
        for action in turn:
            ops.apply(state, action)
        try:
            return self._search(state, depth, alpha, beta)
        finally:
            for _ in turn:
                ops.undo(state)

    def _search(self, state: Any, depth: int, alpha: float, beta: float) -> float:
        if state.is_over:
            value = self.ops.terminal_values(state)[self._me]
            return 1.0 + WIN_BONUS * depth if value == 1.0 else -WIN_BONUS * depth if value == 0.0 else value
        if depth <= 0:
            return self._value(state)
        maximizing = state.to_play == self._me
        best = -2.0 if maximizing else 3.0
        for turn in self.turns(state, state.to_play):
            value = self._play_turn(state, turn, depth - 1, alpha, beta)
            if maximizing:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

    def turns(self, state: Any, side: int, diverse: bool = False) -> list[list[Any]]:
        """The `keep` most promising whole turns of `side` from `state`, best first (action lists).

        `diverse`: the best turn for every first action is followed too, and the candidates are the
        `root_keep` best turns with different first actions.
        """
        ops = self.ops
        start = ops.turn_id(state)
        mine = side == self._me
        sign = 1.0 if mine else -1.0
        width, keep = (self.width, self.keep) if mine else (self.reply_width, self.reply_keep)
        if diverse:
            keep = self.root_keep
        self._diverse = diverse
        beam: list[list[Any]] = [[]]
        done: dict[Hashable, tuple[float, list[Any]]] = {}
        while beam:
            grown: dict[Hashable, tuple[float, list[Any]]] = {}
            for prefix in beam:
                for action in prefix:
                    ops.apply(state, action)
                try:
                    self._extend(state, side, sign, start, prefix, grown, done)
                finally:
                    for _ in prefix:
                        ops.undo(state)
            ranked = sorted(grown.values(), key=lambda t: -t[0])
            beam = [seq for _, seq in ranked[:width]]
            if diverse:
                firsts = {seq[0] for seq in beam}
                for _, seq in ranked[width:]:
                    if seq[0] not in firsts:
                        firsts.add(seq[0])
                        beam.append(seq)
        self._diverse = False
        ranked = sorted(done.values(), key=lambda t: -t[0])
        return [seq for _, seq in ranked[:keep]]

    def _extend(
        self,
        state: Any,
        side: int,
        sign: float,
        start: Hashable,
        prefix: list[Any],
        grown: dict[Hashable, tuple[float, list[Any]]],
        done: dict[Hashable, tuple[float, list[Any]]],
    ) -> None:
        ops = self.ops
        owner = ops.turn_owner(state) == side
        for action in ops.actions(state):
            ops.apply(state, action)
            try:
                seq = [*prefix, action]
                if owner and not state.is_over and ops.turn_id(state) == start and state.to_play != side:
                    reply = self._reply(state, sign)
                    ops.apply(state, reply)
                    seq.append(reply)
                    try:
                        self._file(state, side, sign, start, seq, grown, done)
                    finally:
                        ops.undo(state)
                else:
                    self._file(state, side, sign, start, seq, grown, done)
            finally:
                ops.undo(state)

    def _reply(self, state: Any, sign: float) -> Any:
        """The other seat's in-turn decision, taken greedily for that seat."""
        ops = self.ops
        best, best_value = None, 3.0
        for action in ops.actions(state):
            ops.apply(state, action)
            try:
                value = sign * self._value(state)
            finally:
                ops.undo(state)
            if best is None or value < best_value:
                best, best_value = action, value
        return best

    def _file(
        self,
        state: Any,
        side: int,
        sign: float,
        start: Hashable,
        seq: list[Any],
        grown: dict[Hashable, tuple[float, list[Any]]],
        done: dict[Hashable, tuple[float, list[Any]]],
    ) -> None:
        key = self.ops.key(state)
        if key is None:
            key = tuple(seq)
        finished = state.is_over or self.ops.turn_id(state) != start or state.to_play != side
        if not finished:
            if key not in grown:
                grown[key] = (sign * self._value(state), seq)
            return
        # completed turns that differ only in their last details (which card is recruited where) compete
        # for one place among the candidates, so that the candidates differ in what the pieces do
        group = seq[0] if self._diverse else self.ops.turn_group(seq)
        value = self.ops.terminal_values(state)[self._me] if state.is_over else self._value(state)
        if group not in done or sign * value > done[group][0]:
            done[group] = (sign * value, seq)
