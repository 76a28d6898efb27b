"""The Leaders heuristic and search adapter.

A position is scored from each side's attack on the enemy Leader: attackers that already count toward a
capture, occupied cells around that Leader (surrounding), pieces closing in, and the champions on the board.
The difference of the two sides' scores goes through a logistic curve to a value in [0, 1] per side.
The evaluation reads the engine's piece arrays directly (`board`, `loc`, piece id = kind * 2 + side).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

from throne.ai.search import SearchOps
from throne.games.leaders.fast import (
    ACTION,
    AR,
    AS,
    CU,
    DISTANCE,
    LINE2,
    MOVE_STRINGS,
    NE,
    NEIGHBOURS,
    NUM_KINDS,
)

#: Weights of the features (tuned by arena play against the greedy and random bots).
W_ATTACKER = 1.0
W_REACH = 0.45
W_THREAT = 1.2
W_SURROUND = 1.5
W_CLOSE = (0.0, 0.0, 0.2, 0.1, 0.04)
W_PIECE = 0.25
W_LEADER_ROOM = 0.08
SCALE = 1.1


def attack_score(board: list[int], loc: list[int], side: int, movers: int) -> float:
    """How hard `side` presses the enemy Leader (higher is better for `side`).

    `movers` is a bit mask of the piece kinds of `side` that may still act before the enemy does (every
    kind for the side to play at the start of its turn, none for the other side): those of them one step
    away from a free cell next to the enemy Leader are a threat of capture.
    """
    target = loc[side ^ 1]
    if target < 0:
        return 0.0
    adjacent = 0
    occupied = 0
    neighbours = NEIGHBOURS[target]
    for c in neighbours:
        p = board[c]
        if p < 0:
            continue
        occupied += 1
        if p & 1 == side:
            kind = p >> 1
            if kind == AS:
                adjacent += 2
            elif kind != CU and kind != AR:
                adjacent += 1
    archer = loc[AR * 2 + side]
    if archer >= 0 and archer in LINE2[target]:
        adjacent += 1
    dist = DISTANCE[target]
    score = W_ATTACKER * adjacent + W_SURROUND * (occupied / len(neighbours)) ** 2
    reach = 0
    pieces = 0
    for kind in range(NUM_KINDS):
        c = loc[kind * 2 + side]
        if c < 0:
            continue
        if kind:
            pieces += 1
        d = dist[c]
        if d < len(W_CLOSE):
            score += W_CLOSE[d]
        if (
            d == 2
            and kind != CU
            and kind != AR
            and kind != NE
            and any(board[f] < 0 and dist[f] == 1 for f in NEIGHBOURS[c])
        ):
            reach += 2 if kind == AS else 1
            if (movers >> kind) & 1 and adjacent < 2:
                adjacent += 2 if kind == AS else 1
    score += W_REACH * reach + W_PIECE * pieces
    if movers and adjacent >= 2:
        score += W_THREAT
    own = loc[side]
    if own >= 0:
        score += W_LEADER_ROOM * sum(1 for c in NEIGHBOURS[own] if board[c] < 0)
    return score


ALL_KINDS = (1 << NUM_KINDS) - 1


def evaluate(state: Any) -> tuple[float, float]:
    """(value for South, value for North), each in [0, 1] and summing to 1."""
    if state.is_over:
        if state.winner is None:
            return 0.5, 0.5
        return (1.0, 0.0) if state.winner == 0 else (0.0, 1.0)
    board, loc = state.board, state.loc
    turn = state.turn
    movers = ALL_KINDS & ~state.acted_mask if state.phase_id == ACTION else 0
    south = attack_score(board, loc, 0, movers if turn == 0 else 0)
    diff = south - attack_score(board, loc, 1, movers if turn == 1 else 0)
    v = 1.0 / (1.0 + math.exp(-SCALE * diff))
    return v, 1.0 - v


class LeadersOps(SearchOps):
    """Search on the engine's integer actions (apply/undo without parsing)."""

    def __init__(self) -> None:
        super().__init__(evaluate)

    def players(self, state: Any) -> int:
        return 2

    def actions(self, state: Any) -> list[int]:
        return state.legal_actions()

    def apply(self, state: Any, action: Any) -> None:
        state.apply(action)

    def move_string(self, state: Any, action: Any) -> str:
        return state.action_to_move(action)

    def turn_id(self, state: Any) -> Hashable:
        # Strategist mode: each banishment is a turn of its own (they come between the turns)
        return (state.turns, len(state.banned), state.is_over)

    def turn_owner(self, state: Any) -> int:
        return state.turn

    def turn_group(self, actions: list[Any]) -> Hashable:
        """A turn's actions without its recruitments: turns that only recruit differently are one plan."""
        return tuple(a for a in actions if not MOVE_STRINGS[a].startswith("+"))

    def key(self, state: Any) -> Hashable:
        return state.key()

    def values(self, state: Any) -> tuple[float, float]:
        return evaluate(state)


OPS = LeadersOps()
