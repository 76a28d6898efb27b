"""The Guardian marker and the Fate deck of the ``legends`` module (legends §2.3–§2.4).

The Fate deck is not stored: it is complete (6 cards) between two Fates. A Fate is a pending ``fate``
decision of the burying seat whose frame holds the 2 drawn kinds in ``hid``; only that seat sees them.
"""

from __future__ import annotations

from typing import Any

from . import moves as _moves
from .frames import Ask, Cont, Filter, Kind
from .state import Cand, Frame, State, cont, filt, op

#: the six Fate cards (legends §2.4)
FATE_DECK: tuple[str, ...] = ("guardian-2", "guardian-2", "guardian-2", "guardian-1", "red-1", "green-1")
FATE_KINDS: tuple[str, ...] = ("green-1", "guardian-1", "guardian-2", "red-1")
#: what each Fate card does, in words (the catalogues hold the translations: ``hl.fate.<kind>``)
FATE_TEXT: dict[str, str] = {"guardian-2": "Guardian marker −2", "guardian-1": "Guardian marker −1",
                             "red-1": "Red marker −1", "green-1": "Green marker −1"}


def is_fate(fr: Frame) -> bool:
    """A pending Fate choice (its ``hid`` holds Fate kinds, not cards)."""
    return fr.get("then") == "fate"


def draw_fates(rng: Any) -> list[str]:
    """2 Fate cards drawn at random from the complete deck (``rng``: anything with ``shuffle``)."""
    deck = list(FATE_DECK)
    rng.shuffle(deck)
    return deck[:2]


def push_fate(st: State, by: int, card: str) -> None:
    """Seat ``by`` buried the Guardian card ``card``: it draws 2 Fate cards and must choose 1."""
    st.push(Ask(
        kind=Kind.FATE, seat=by, card=card, filter=Filter.FATE, then=Cont.FATE,
        ctx={"hid": draw_fates(st.rng("fate"))},
    ))


@filt("fate")
def _f_fate(st: State, fr: Frame) -> list[Cand]:
    return [(_moves.fate(k), k) for k in sorted(set(fr["hid"]))]


@cont("fate")
def _c_fate(st: State, fr: Frame, kind: str) -> None:
    apply_fate(st, kind)


def apply_fate(st: State, kind: str) -> None:
    """The move of one Fate card, clamped to the track."""
    if kind == "guardian-2":
        st.move_guardian(-2)
    elif kind == "guardian-1":
        st.move_guardian(-1)
    elif kind == "red-1":
        st.move_markers([("R", -1)])
    else:
        st.move_markers([("G", -1)])


@op("guardian-up")
def _op_guardian_up(st: State, fr: Frame) -> None:
    st.move_guardian(2)


def fate_view(st: State, seat: int | None) -> dict[str, Any] | None:
    """The pending Fate as ``seat`` sees it: the chooser sees the 2 drawn kinds, the others their count."""
    if st.phase != "resolve" or not st.stack or not is_fate(st.stack[-1]):
        return None
    fr = st.stack[-1]
    cards: Any = list(fr["hid"]) if fr["seat"] == seat else {"count": len(fr["hid"])}
    return {"seat": fr["seat"], "card": fr["card"], "cards": cards}
