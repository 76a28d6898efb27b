"""The Hidden Leaders tutorial: the first turn of a fixed deal (2 players, core cards, the learner in seat 0
starts), both setup choices already made; the turn's main action is playing a card."""

from __future__ import annotations

from ..tutorial import Turn
from . import rules
from .rules import new_game
from .state import State

SEED = 3


def start() -> State:
    """The tutorial deal with both setup choices made (the first listed pair), seat 0 to play."""
    st = new_game(players=2, seed=SEED, modules=("core",))
    while rules.decision(st)[1] == "setup":
        st.play(st.legal_moves()[0])
    return st


def decision(st: State) -> str | None:
    return rules.decision(st)[1]


def offered(st: State) -> list[str]:
    """The engine's moves, except that the main action of the tutorial turn is playing a card."""
    legal = st.legal_moves()
    if decision(st) == "action":
        return [m for m in legal if m.startswith("play ")] or legal
    return legal


TUTORIAL = Turn(start, offered, decision)
