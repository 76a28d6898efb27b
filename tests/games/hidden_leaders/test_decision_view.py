"""The pending decision in a seat's view (rule book §7.2): who decides, its kind, the card being resolved,
what the answer is for (`purpose`: the continuation, or the turn's own decision) and, for marker options,
where the markers end up. Clients word prompts and draw options from these fields alone.

Row: (card played by seat 0, setup, moves before the decision, kind, purpose, deciding seat).
"""

from __future__ import annotations

import pytest

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.frames import Cont

from .helpers import run_card

SSS, PIG, LL, FF = "short-sighted-soldier", "pigmented-war-pig", "leery-lizard", "furious-frog"

ROWS = [
    ("shaky-sharpshooter", {"parties": {1: f"{SSS} {PIG}"}}, [], "marker", "marker", 0),
    ("shaky-sharpshooter", {"parties": {1: f"{SSS} {PIG}"}}, ["R+1"], "pick-hero", "bury", 0),
    ("curious-troll", {"parties": {1: f"~{LL}"}}, ["R+1"], "pick-hero", "look", 0),
    ("spirited-shaman", {"parties": {1: f"~{LL}"}}, [], "pick-hero", "turn-over", 0),
    ("overworked-amazon", {"parties": {1: f"{PIG} {LL}"}}, ["G-1"], "pick-seat", "amazon", 0),
    ("overworked-amazon", {"parties": {1: f"{PIG} {LL}"}}, ["G-1", "seat 1"], "pick-hero", "bury", 1),
    ("battle-pet-master", {"hands": {0: LL}}, [], "pick-hand", "hand-down", 0),
    ("hopeful-salamander", {"tavern": f"{SSS} {PIG} {LL}"}, [], "pick-tavern", "salamander", 0),
    ("joyless-chief", {"wilderness": f"{LL} {FF}"}, [], "pick-card", "chief", 0),
    ("double-shielded-turtle", {}, [], "faction", "turtle", 0),
    ("miniature-merman", {"wilderness": SSS}, ["R-1"], "pile", "merman", 0),
]


@pytest.mark.parametrize(("card", "setup", "moves", "kind", "purpose", "seat"), ROWS,
                         ids=[f"{r[0]}-{r[4]}" for r in ROWS])
def test_the_view_names_the_card_and_the_purpose(card, setup, moves, kind, purpose, seat) -> None:
    st = run_card(card, setup, moves)
    for viewer in (None, *range(st.players)):  # the decision is public: every seat and spectators see it
        d = st.view(viewer)["decision"]
        assert (d["seat"], d["kind"], d["card"], d["purpose"]) == (seat, kind, card, purpose)
    assert purpose in {c.value for c in Cont}


@pytest.mark.parametrize(
    ("markers", "expected"),
    [
        ((4, 4), {"R+1": {"red": 5, "green": 4}, "G-1": {"red": 4, "green": 3}}),
        ((12, 1), {"G-1": None, "R+1": None}),  # no option that changes nothing is offered
        ((12, 4), {"G-1": {"red": 12, "green": 3}}),
    ],
)
def test_marker_options_carry_the_track_result(markers, expected) -> None:
    st = run_card("shaky-sharpshooter", {"markers": markers, "parties": {1: SSS}}, [])
    if all(v is None for v in expected.values()):
        assert st.view(0)["decision"]["kind"] != "marker"
        return
    d = st.view(0)["decision"]
    assert d["kind"] == "marker"
    assert d["results"] == expected
    assert sorted(d["results"]) == st.legal_moves()


@pytest.mark.parametrize(
    ("phase_moves", "kind"),
    [(0, "setup"), (4, "action")],
)
def test_the_turns_own_decisions_are_their_own_purpose(phase_moves: int, kind: str) -> None:
    st = hl.new_game(players=4, seed=3)
    for _ in range(phase_moves):
        st.play(st.legal_moves()[0])
    d = st.view(st.to_play)["decision"]
    assert (d["kind"], d["purpose"], d["card"]) == (kind, kind, None)
    assert "results" not in d
