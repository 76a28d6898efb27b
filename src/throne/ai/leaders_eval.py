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
from throne.games.leaders.board import DISTANCE, LINE2, NEIGHBOURS
from throne.games.leaders.pieces import AR, AS, CU, NUM_KINDS

#: Weights of the features (tuned by arena play against the greedy and random bots).
W_ATTACKER = 1.0
W_ASSASSIN_NEAR = 0.6
W_SURROUND = 1.5
W_CLOSE = (0.0, 0.0, 0.3, 0.12, 0.04)
W_PIECE = 0.25
W_LEADER_ROOM = 0.08
SCALE = 1.1

def attack_score(board: list[int], loc: list[int], side: int) -> float:
    """How hard `side` presses the enemy Leader (higher is better for `side`)."""
    target = loc[side ^ 1]
    if target < 0:
        return 0.0
    score = 0.0
    occupied = 0
    neighbours = NEIGHBOURS[target]
    for c in neighbours:
        p = board[c]
        if p < 0:
            continue
        occupied += 1
        if p & 1 == side:
            kind = p >> 1
            if kind != CU and kind != AR:
                score += W_ATTACKER
    surrounded = occupied / len(neighbours)
    score += W_SURROUND * surrounded * surrounded
    archer = loc[AR * 2 + side]
    if archer >= 0 and archer in LINE2[target]:
        score += W_ATTACKER
    dist = DISTANCE[target]
    assassin = loc[AS * 2 + side]
    if assassin >= 0 and dist[assassin] == 2:
        score += W_ASSASSIN_NEAR
    pieces = 0
    for kind in range(1, NUM_KINDS):
        c = loc[kind * 2 + side]
        if c < 0:
            continue
        pieces += 1
        d = dist[c]
        if d < len(W_CLOSE):
            score += W_CLOSE[d]
    score += W_PIECE * pieces
    own = loc[side]
    if own >= 0:
        free = sum(1 for c in NEIGHBOURS[own] if board[c] < 0)
        score += W_LEADER_ROOM * free
    return score


def evaluate(state: Any) -> tuple[float, float]:
    """(value for South, value for North), each in [0, 1] and summing to 1."""
    if state.is_over:
        if state.winner is None:
            return 0.5, 0.5
        return (1.0, 0.0) if state.winner == 0 else (0.0, 1.0)
    board, loc = state.board, state.loc
    diff = attack_score(board, loc, 0) - attack_score(board, loc, 1)
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
        return (state.turns, state.is_over)

    def key(self, state: Any) -> Hashable:
        return state.key()

    def values(self, state: Any) -> tuple[float, float]:
        return evaluate(state)


OPS = LeadersOps()
