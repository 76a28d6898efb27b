"""The Hidden Leaders heuristic.

`evaluate` scores a full (usually determinized) state for every seat: the chance of each faction winning,
from the marker positions blurred by the plays still to come (the blur shrinks as some party nears the
face-up threshold), times the seat's share of that faction's win among the players allied with it (by
heroes of the faction in the party, as the engine's scoring counts them, through a softmax).

With the ``legends`` module and a Guardian leader seated in the (determinized) world, the Guardian marker is
blurred the same way, shifted up by the drift of future Guardian cards (+2 each, less the Fates), and the
Guardians win wherever it ends strictly ahead of both R and G (legends §3.1).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from throne.games.hidden_leaders.fast import (
    FACTIONS,
    GUARDIAN_LEADERS,
    GUARDIANS,
    LEADERS,
    THRESHOLDS,
    faction_heroes,
    winning_faction,
)

SPREAD_PER_PLAY = 0.9
"""Marker spread (std. dev., spaces) added per expected future play."""
PLAY_SHARE = 0.6
"""Share of the remaining turns expected to be plays (the rest are discards and passes)."""
SOFTMAX = 0.9
"""Temperature of the share of a faction's win among its allied players (in heroes)."""
TIE_TOTAL = 0.05
TIE_RANK = 0.01
GUARDIAN_DRIFT = 0.3
"""Expected Guardian marker move per future play: about 1 play in 5 is a Guardian card (+2), less Fates."""


def _clamp(v: int) -> int:
    return min(12, max(1, v))


@lru_cache(maxsize=8192)
def faction_odds(red: int, green: int, spread_tenths: int, guardian: int = 0,
                 drift_tenths: int = 0) -> tuple[float, ...]:
    """P(each faction of FACTIONS wins) when the final markers are the current ones plus rounded noise.

    ``guardian`` > 0 (the Guardian marker, with a Guardian leader seated) adds the Guardians' chance as a
    fifth entry; the Guardian marker's final space is its current one plus ``drift_tenths / 10`` and noise.
    """
    spread = spread_tenths / 10
    facs = (*FACTIONS, GUARDIANS) if guardian else FACTIONS
    if spread < 0.05:
        fac = winning_faction(red, green, guardian or None, bool(guardian))
        return tuple(1.0 if f == fac else 0.0 for f in facs)
    reach = min(11, math.ceil(3 * spread))
    weights = [math.exp(-(d * d) / (2 * spread * spread)) for d in range(-reach, reach + 1)]
    norm = sum(weights)
    ahead = [0.0] * 14  # ahead[m]: P(final Guardian marker > m)
    if guardian:
        centre = guardian + round(drift_tenths / 10)
        for k, w in enumerate(weights):
            v = _clamp(centre + k - reach)
            for m in range(v):
                ahead[m] += w / norm
    odds = dict.fromkeys(facs, 0.0)
    for i, wr in enumerate(weights):
        r = _clamp(red + i - reach)
        for j, wg in enumerate(weights):
            g = _clamp(green + j - reach)
            w = wr * wg / (norm * norm)
            pg = ahead[max(r, g)]
            if pg:
                odds[GUARDIANS] += w * pg
            odds[winning_faction(r, g)] += w * (1 - pg)
    return tuple(odds[f] for f in facs)


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
    blur = spread(state)
    facs: tuple[str, ...] = FACTIONS
    if state.guardian is not None and any(x in GUARDIAN_LEADERS for x in state.leaders):
        drift = GUARDIAN_DRIFT * (blur / SPREAD_PER_PLAY) ** 2  # plays left, from the spread
        odds = faction_odds(state.red, state.green, round(blur * 10), state.guardian, round(drift * 10))
        facs = (*FACTIONS, GUARDIANS)
    else:
        odds = faction_odds(state.red, state.green, round(blur * 10))
    values = [0.0] * n
    for fac, p in zip(facs, odds, strict=True):
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
