"""The only hidden information of Leaders: the order of the unseen deck (discovery mode).

Both seats see the same things: the board, the market, the cards already drawn and how many are left. A bot
may therefore be handed ``blind_record(state)`` (the record with the unseen cards in sorted order) and must
search worlds made by ``redeal(state, rng)`` (the unseen cards dealt again from its own generator).
"""

from __future__ import annotations

import random
from typing import Any

from ..randomness import KeyedRandom
from . import notation
from .state import State, from_position


def unseen(st: State) -> list[int]:
    """The cards still in the deck, in deck order (hidden from both seats)."""
    return st.deck[st.deck_pos :]


def blind_record(st: State) -> dict[str, Any]:
    """The record of ``st`` with the unseen deck cards in sorted order: a function of public information only.

    Replaying it gives the same position, history and draw-rule counts; only the deck order differs.
    """
    rec = st.record()
    start = from_position(rec["start"], draw_rule=st.draw_rule)
    drawn = st.deck_pos  # the start's deck is st.deck; its first deck_pos cards were drawn in public
    start.deck = st.deck[:drawn] + sorted(st.deck[drawn:])
    rec["start"] = notation.format_position(start)
    return rec


def redeal(st: State, rng: random.Random | KeyedRandom) -> State:
    """A copy of ``st`` whose unseen deck cards are shuffled by ``rng`` (one search world)."""
    world = st.clone()
    rest = unseen(st)
    rng.shuffle(rest)
    world.deck = st.deck[: st.deck_pos] + rest
    return world
