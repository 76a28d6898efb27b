"""§5-6 contract: board names, notation round-trips, the fast path and the JSON view."""

from __future__ import annotations

import json
import random

import pytest

from throne.games import leaders
from throne.games.leaders.board import CELL_OF, COORDS, NAMES, NEIGHBOURS, RECRUIT_CELLS

from .helpers import pos


@pytest.mark.parametrize(
    ("name", "coord", "neighbours"),
    [
        ("d1", (0, 3), {"c1", "d2", "e1"}),
        ("d4", (0, 0), {"c3", "c4", "d3", "d5", "e3", "e4"}),
        ("c3", (-1, 1), {"b2", "b3", "c2", "c4", "d3", "d4"}),
        ("d7", (0, -3), {"c6", "d6", "e6"}),
        ("a1", (-3, 3), {"a2", "b1", "b2"}),
        ("g4", (3, -3), {"f4", "f5", "g3"}),
    ],
)
def test_cells(name: str, coord: tuple[int, int], neighbours: set[str]) -> None:
    c = CELL_OF[name]
    assert COORDS[c] == coord
    assert {NAMES[n] for n in NEIGHBOURS[c]} == neighbours


def test_board_shape_and_recruit_cells() -> None:
    assert len(NAMES) == 37
    heights = [sum(1 for n in NAMES if n[0] == col) for col in "abcdefg"]
    assert heights == [4, 5, 6, 7, 6, 5, 4]
    assert [NAMES[c] for c in RECRUIT_CELLS[0]] == ["a1", "b1", "c1", "d1", "e1", "f1", "g1"]
    assert [NAMES[c] for c in RECRUIT_CELLS[1]] == ["a4", "b5", "c6", "d7", "e6", "f5", "g4"]


def test_new_game_and_position_string() -> None:
    st = leaders.new_game(seed=7)
    text = st.position()
    assert text.startswith("S=Ld1 N=Ld7 turn=S phase=action acted=- market=")
    assert text.endswith("recruits=1 turns=0")
    assert st.deck_size == 13 and len(st.market) == 3
    assert leaders.new_game(seed=7).position() == text
    assert (st.to_play, st.turn, st.phase, st.is_over, st.winner, st.termination) == (
        0,
        0,
        "action",
        False,
        None,
        None,
    )


def test_position_sorted_and_normalised() -> None:
    text = pos("CUb1,BRc2,HEa1,Ld1", "ACe5,Ld7", acted="HE,BR,CU", market="RI,IL,VI", deck="MA,WA")
    st = leaders.from_position(text)
    assert st.position() == (
        "S=Ld1,BRc2,HEa1,CUb1 N=Ld7,ACe5 turn=S phase=action acted=BR,HE,CU "
        "market=RI,IL,VI deck=MA,WA recruits=1 turns=6"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("S=Ld1", "missing keys"),
        (pos("Ld1,Ld2", "Ld7"), "twice"),
        (pos("Ld1", "Ld1"), "two pieces on d1"),
        (pos("Ld1,ACz9", "Ld7"), "unknown cell"),
        (pos("Ld1,ACa1", "Ld7,ACa2"), "twice"),
        (pos("ACa1", "Ld7"), "no Leader"),
        (pos("Ld1,HEa1", "Ld7"), "Hermit and the Cub"),
        (pos("Ld1", "Ld7", market="AC,AC"), "twice"),
        (pos("Ld1", "Ld7", phase="reaction"), "needs a Nemesis"),
        (pos("Ld1", "Ld7", acted="BR"), "does not have"),
        (pos("Ld1", "Ld7") + " extra=1", "unknown token"),
        (pos("Ld1", "Ld7", phase="recruit", market="-"), "no legal recruit move"),
    ],
)
def test_bad_positions(text: str, reason: str) -> None:
    with pytest.raises(leaders.PositionError, match=reason):
        leaders.from_position(text)


def test_draw_rule_keyword_carried() -> None:
    st = leaders.from_position(leaders.new_game(seed=1).position(), draw_rule=False)
    assert st.draw_rule is False
    assert st.record()["draw_rule"] is False
    assert "draw_rule" not in leaders.new_game(seed=1).record()


def test_fast_path_ids_are_position_independent() -> None:
    assert 0 < leaders.NUM_ACTIONS < 100_000
    names = {leaders.action_to_move(a) for a in range(leaders.NUM_ACTIONS)}
    assert len(names) == leaders.NUM_ACTIONS
    for a in (0, 1, 500, leaders.NUM_ACTIONS - 1):
        assert leaders.move_to_action(leaders.action_to_move(a)) == a
    st = leaders.new_game(seed=3)
    assert st.move_to_action("d1-d2") == leaders.move_to_action("D1-D2 ")
    assert st.action_to_move(st.move_to_action("+HE@a1,b1")) == "+HE@a1,b1"


def test_clone_is_independent_and_key_tracks_position() -> None:
    st = leaders.new_game(seed=4)
    c = st.clone()
    c.play("d1-d2")
    assert st.position() != c.position() and st.key() != c.key()
    c.undo()
    assert c.position() == st.position() and c.key() == st.key()
    assert hash(st.key()) == hash(c.key())


def test_view_is_json_safe_and_hides_deck() -> None:
    st = leaders.new_game(seed=9)
    st.play("d1-d2")
    v = st.view()
    assert json.loads(json.dumps(v)) == v
    assert v["pieces"] == [{"side": 0, "code": "L", "cell": "d2"}, {"side": 1, "code": "L", "cell": "d7"}]
    assert (v["turn"], v["to_play"], v["phase"], v["acted"], v["deck_size"]) == (0, 0, "action", ["L"], 13)
    assert v["legal_moves"] == ["end"] and v["last_move"] == "d1-d2"
    assert "deck" not in v
    assert st.pieces() == [(0, "L", "d2"), (1, "L", "d7")]


def test_undo_without_history() -> None:
    with pytest.raises(leaders.IllegalMoveError, match="nothing to undo"):
        leaders.new_game(seed=1).undo()


def test_clone_and_original_undo_independently_across_turns() -> None:
    """A clone shares the original's past plies; undoing either (turn ends, repetition counts included)
    never changes the other."""
    rng = random.Random(5)
    st = leaders.new_game(seed=5)
    positions = [st.position()]
    while len(positions) < 40 and not st.is_over:
        st.play(rng.choice(st.legal_moves()))
        positions.append(st.position())
    reps = dict(st._reps)
    c = st.clone()
    for _ in range(10):
        if c.is_over:
            break
        c.play(rng.choice(c.legal_moves()))
    assert st.position() == positions[-1] and st._reps == reps
    for _ in range(len(c._history) - len(positions) + 1):
        c.undo()
    assert c.position() == st.position() and c._reps == reps
    for expected in reversed(positions[:-1]):
        c.undo()
        assert c.position() == expected
    assert st.position() == positions[-1] and st._reps == reps and st.legal_moves()
    st.undo()
    assert st.position() == positions[-2]
