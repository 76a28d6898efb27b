"""Typed decision frames: every pending decision of real games reads back as an `Ask` of a known `Kind` and
turns into the same frame; a frame naming an unknown kind, filter or continuation is refused when pushed."""

from __future__ import annotations

import random

import pytest

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.frames import Ask, Decision, FrameError, Kind
from throne.games.hidden_leaders.rules import decision


def test_pending_decisions_of_random_games_are_typed() -> None:
    rng = random.Random(3)
    kinds = set()
    for seed in range(4):
        st = hl.new_game(players=4, seed=seed, modules=("core", "kickstarter", "queens", "legends"))
        while not st.is_over:
            pending = decision(st)
            assert isinstance(pending, Decision) and isinstance(pending.kind, Kind)
            kinds.add(pending.kind)
            if st.phase == "resolve":
                frame = st.stack[-1]
                assert Ask.of(frame).frame(bool(frame.get("asif"))) == frame
            st.play(rng.choice(st.legal_moves()))
    assert {Kind.SETUP, Kind.ACTION, Kind.PICK_HERO} <= kinds


@pytest.mark.parametrize(
    ("kind", "f", "then", "error"),
    [("no-such-kind", "hero", "bury", ValueError), ("pick-hero", "nope", "bury", FrameError),
     ("pick-hero", "hero", "nope", FrameError)],
)
def test_a_bad_frame_is_refused_when_pushed(kind: str, f: str, then: str, error: type[Exception]) -> None:
    st = hl.new_game(players=3, seed=1)
    before = list(st.stack)
    with pytest.raises(error):
        st.ask(kind, 0, None, f, then, ps=[0, 1, 2])
    assert st.stack == before
