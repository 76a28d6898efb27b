"""Random playouts without move strings: the fast path of search bots.

``random_playout`` plays uniformly random legal decisions to the end of the game — the same option sets as
``legal_moves()``, drawn from ``rng`` — but skips building and parsing move strings for the frequent turn
steps (setup, main action, draw, discard down). It is meant for throwaway copies
(``state.clone(track=False)``): it does not extend ``history`` and leaves ``last`` unset.
"""

from __future__ import annotations

import random
from itertools import combinations

from .rules import _action, _discard_down, _draw, _setup, answer, decision, run
from .state import State

#: index combinations of 1..3 cards of a hand of n cards (the discard options)
_COMBOS: dict[int, list[tuple[int, ...]]] = {
    n: [c for k in (1, 2, 3) for c in combinations(range(n), k)] for n in range(0, 12)
}


def random_step(st: State, rng: random.Random) -> None:
    """Apply one uniformly random legal decision."""
    ph = st.phase
    st.changed()
    rnd = rng.random
    if ph == "action":
        seat = st.turn
        hand = st.hands[seat]
        n = len(hand)
        combos = _COMBOS[n] if n < 12 else [c for k in (1, 2, 3) for c in combinations(range(n), k)]
        r = int(rnd() * (n + len(combos) + 1))
        if r < n:
            _action(st, seat, "", hand[r])
        elif r < n + len(combos):
            srt = sorted(hand)  # the order in which play() discards a set
            _action(st, seat, "", tuple(srt[i] for i in combos[r - n]))
        else:
            _action(st, seat, "", ())
    elif ph == "draw":
        slots = [i for i, c in enumerate(st.tavern) if c is not None]
        if st.harbor or st.wilderness:
            slots.append(None)  # type: ignore[arg-type]
        _draw(st, st.turn, slots[int(rnd() * len(slots))])
    elif ph == "discard":
        hand = st.hands[st.turn]
        _discard_down(st, st.turn, hand[int(rnd() * len(hand))])
    elif ph == "resolve":
        _seat, _kind, _card, opts, moves = decision(st)
        st.changed()
        value = opts[moves[rng.randrange(len(moves))]]
        answer(st, st.stack.pop(), value)
        run(st)
    elif ph == "setup":
        hand = st.hands[st.setup_seat]
        a = rng.randrange(len(hand))
        b = rng.randrange(len(hand) - 1)
        if b >= a:
            b += 1
        _setup(st, st.setup_seat, (hand[a], hand[b]))
    else:
        raise ValueError("the game is over")
    st.last = None


def random_playout(st: State, rng: random.Random, max_steps: int = 100_000) -> int:
    """Play random decisions until the game is over; returns the number of decisions taken."""
    n = 0
    while st.phase != "over" and n < max_steps:
        random_step(st, rng)
        n += 1
    return n
