"""The Hidden Leaders heuristic.

`evaluate` scores a full (usually determinized) state for every seat: the chance of each faction winning,
from the marker positions blurred by the plays still to come (the blur shrinks as some party nears the
face-up threshold), times the seat's share of that faction's win among the players allied with it (by
heroes of the faction in the party, as the engine's scoring counts them, through a softmax).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from throne.games.hidden_leaders import FACTIONS, LEADERS, THRESHOLDS
from throne.games.hidden_leaders.scoring import faction_heroes, winning_faction

SPREAD_PER_PLAY = 0.9
"""Marker spread (std. dev., spaces) added per expected future play."""
PLAY_SHARE = 0.6
"""Share of the remaining turns expected to be plays (the rest are discards and passes)."""
SOFTMAX = 0.9
"""Temperature of the share of a faction's win among its allied players (in heroes)."""
TIE_TOTAL = 0.05
TIE_RANK = 0.01


@lru_cache(maxsize=4096)
def faction_odds(red: int, green: int, spread_tenths: int) -> tuple[float, ...]:
    """P(each faction of FACTIONS wins) when the final markers are the current ones plus rounded noise."""
    spread = spread_tenths / 10
    if spread < 0.05:
        fac = winning_faction(red, green)
        return tuple(1.0 if f == fac else 0.0 for f in FACTIONS)
    reach = min(11, math.ceil(3 * spread))
    weights = [math.exp(-(d * d) / (2 * spread * spread)) for d in range(-reach, reach + 1)]
    total = sum(weights) ** 2
    odds = dict.fromkeys(FACTIONS, 0.0)
    for i, wr in enumerate(weights):
        r = min(12, max(1, red + i - reach))
        for j, wg in enumerate(weights):
            g = min(12, max(1, green + j - reach))
            odds[winning_faction(r, g)] += wr * wg
    return tuple(odds[f] / total for f in FACTIONS)


def spread(state: Any) -> float:
    """Expected marker noise until the end: grows with the plays left before a party reaches the threshold."""
    threshold = THRESHOLDS[state.variant][state.players]
    most_up = max((sum(1 for _, up in party if up) for party in state.parties), default=0)
    left = max(0, threshold - most_up)
    plays = left * state.players * PLAY_SHARE
    return SPREAD_PER_PLAY * math.sqrt(plays)


def evaluate(state: Any) -> list[float]:
    """Estimated chance of winning for every seat, each in [0, 1] (they sum to at most 1)."""
    n = state.players
    if state.is_over:
        winner = state.winner
        return [1.0 if seat == winner else 0.0 for seat in range(n)]
    odds = faction_odds(state.red, state.green, round(spread(state) * 10))
    values = [0.0] * n
    for fac, p in zip(FACTIONS, odds, strict=True):
        if p < 1e-4:
            continue
        aligned = [seat for seat in range(n) if fac in LEADERS[state.leaders[seat]].factions]
        if not aligned:
            continue
        if len(aligned) == 1:
            values[aligned[0]] += p
            continue
        strength = [
            faction_heroes(state, seat, fac)[0]
            - TIE_TOTAL * len(state.parties[seat])
            + TIE_RANK * LEADERS[state.leaders[seat]].number
            for seat in aligned
        ]
        top = max(strength)
        weights = [math.exp((s - top) / SOFTMAX) for s in strength]
        total = sum(weights)
        for seat, w in zip(aligned, weights, strict=True):
            values[seat] += p * w / total
    return values
