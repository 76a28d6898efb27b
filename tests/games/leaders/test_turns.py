"""§3-4: capture and surround, the legality/victory order, Nemesis reactions, recruitment and draws."""

from __future__ import annotations

import pytest

from throne.games import leaders

from .helpers import pos, state

# (id, South, North, turn, move, winner, termination)
WINS = [
    # Archer exactly 2 away in line (d3 over the South Vizier on d2) + the Bruiser stepping next to d1
    ("archer-at-two-with-blocker", "Ld1,VId2", "Ld7,ARd3,BRc2", "N", "c2-c1", 1, "capture"),
    ("assassin-alone", "Ld1", "Ld7,ASd3", "N", "d3-d2", 1, "capture"),
    # Cub on e1 counts 0, Hermit on c1 counts 1: no capture, but d1's three neighbours are full
    ("cub-surrounds-not-captures", "Ld1,VId2", "Ld7,HEc2,CUe2", "N", "c2-c1,e2-e1", 1, "surround"),
    ("one-adjacent-is-not-capture", "Ld1", "Ld7,ACc2,RIe2", "N", "c2-c1", None, None),
    ("two-adjacent-capture", "Ld1", "Ld7,ACc1,RIe2", "N", "e2-e1", 1, "capture"),
    ("leader-counts-toward-capture", "Ld5,BRe6", "Ld7", "S", "d5-d6", 0, "capture"),
]


@pytest.mark.parametrize(
    ("south", "north", "turn", "move", "winner", "termination"),
    [r[1:] for r in WINS],
    ids=[r[0] for r in WINS],
)
def test_winning(
    south: str, north: str, turn: str, move: str, winner: int | None, termination: str | None
) -> None:
    st = state(south, north, turn=turn)
    st.play(move)
    assert (st.winner, st.termination) == (winner, termination)
    assert st.is_over == (termination is not None)


def test_archer_adjacent_counts_zero() -> None:
    st = state("Ld1", "Ld7,ARd2,BRc2", turn="N")
    st.play("c2-c1")
    assert not st.is_over


def test_move_losing_both_leaders_is_illegal() -> None:
    """§4 step 1 (ruling): d5-d6 would capture d7 but leaves d6 captured by the North Leader and Acrobat."""
    st = state("Ld5,BRe6", "Ld7,ACc5")
    assert "d5-d6" not in st.legal_moves()
    with pytest.raises(leaders.IllegalMoveError, match="own Leader captured"):
        st.play("d5-d6")


def test_self_surround_is_illegal() -> None:
    st = state("Ld1,ACd2,BRc1,RIe2", "Ld7")
    assert "e2-e1" not in st.legal_moves()
    with pytest.raises(leaders.IllegalMoveError, match="own Leader surrounded"):
        st.play("e2-e1")


# ------------------------------------------------------------------------- Nemesis reactions
NEMESIS = [
    # (id, South, North, trigger, end cells of the reaction paths, cells per path string)
    (
        "two-steps-any-cell-within-two",
        "Ld1",
        "Ld7,NEd4",
        "d1-d2",
        {
            "d5",
            "e4",
            "e3",
            "d3",
            "c3",
            "c4",
            "d6",
            "e5",
            "f4",
            "f3",
            "f2",
            "e2",
            "c2",
            "b2",
            "b3",
            "b4",
            "c5",
        },
        3,
    ),
    # the only way out of a1 is b1, and b1 leads nowhere new: one step
    ("one-step-when-no-two-step-path", "Ld1,ACa2,RIb2,BRc2,RGc1", "Ld7,NEa1", "d1-e1", {"b1"}, 2),
    # two-step paths to c6 would surround the own Leader on d7: excluded while others exist
    (
        "self-harm-excluded",
        "Ld1",
        "Ld7,VIe6,ARd6,NEb5",
        "d1-d2",
        {"c5", "d5", "c4", "b4", "b3", "a3", "a4"},
        3,
    ),
    # no 2-step path: among the 1-step paths b5-c6 would surround d7, so only b5-a4 is offered
    ("one-step-self-harm-excluded", "Ld1,BRc5,RIb4,ACa3", "Ld7,VIe6,ARd6,NEb5", "d1-d2", {"a4"}, 2),
]


@pytest.mark.parametrize(
    ("south", "north", "trigger", "ends", "length"), [r[1:] for r in NEMESIS], ids=[r[0] for r in NEMESIS]
)
def test_nemesis_reaction(south: str, north: str, trigger: str, ends: set[str], length: int) -> None:
    st = state(south, north)
    st.play(trigger)
    assert (st.phase, st.to_play, st.turn) == ("reaction", 1, 0)
    moves = st.legal_moves()
    assert {m.split("-")[-1] for m in moves} == ends
    assert len(moves) == len(ends)
    steps = {len(m.split("-")) for m in moves}
    assert steps == {length}
    st.play(moves[0])
    assert (st.phase, st.to_play) == ("action", 0)
    assert st.acted == frozenset({"L"})


# §4 step 3 (ruling): the Nemesis must move 2 whenever any 2-step path exists, even when every one of them
# leaves its owner's Leader lost; then the other player wins. Same rule among 1-step paths when no 2-step
# path exists.
# (id, South, North, trigger, the reaction moves listed, the one played, winner, termination)
NEMESIS_FORCED = [
    # 2-step a4-b5-c6 surrounds d7; the safe 1-step a4-b5 is not allowed while a 2-step path exists
    ("every-two-step-self-harms", "Ld1,BRb4,RIa3,ACc5", "Ld7,VIe6,ARd6,NEa4", "d1-d2", ["a4-b5-c6"],
     "a4-b5-c6", 0, "surround"),
    # the harmful single step b5-c6 is not offered while the safe 2-step path b5-a4-a3 exists
    ("two-step-preferred-to-harmful-step", "Ld1,RIb4,ACc4", "Ld7,VIe6,ARd6,NEb5,BRc5", "d1-d2", ["b5-a4-a3"],
     "b5-a4-a3", None, None),
    # no 2-step path; the only step c6 surrounds d7: it is forced and South wins
    ("only-step-self-harms", "Ld1,BRc5,RIb4,ACa4", "Ld7,VIe6,ARd6,NEb5", "d1-d2", ["b5-c6"], "b5-c6",
     0, "surround"),
    # a safe 2-step path exists next to harmful ones: only the safe ones are listed
    ("mixed-two-steps-safe-only", "Ld1,BRb4,ACc5", "Ld7,VIe6,ARd6,NEa4", "d1-d2", ["a4-a3-a2", "a4-a3-b3"],
     "a4-a3-b3", None, None),
]


@pytest.mark.parametrize(
    ("south", "north", "trigger", "listed", "move", "winner", "termination"),
    [r[1:] for r in NEMESIS_FORCED],
    ids=[r[0] for r in NEMESIS_FORCED],
)
def test_nemesis_must_move_two(
    south: str, north: str, trigger: str, listed: list[str], move: str, winner: int | None,
    termination: str | None,
) -> None:
    st = state(south, north)
    st.play(trigger)
    assert (st.phase, st.to_play) == ("reaction", 1)
    assert st.legal_moves() == sorted(listed)
    st.play(move)
    assert (st.winner, st.termination) == (winner, termination)
    if winner is None:
        assert (st.phase, st.to_play) == ("action", 0)


def test_nemesis_boxed_in_stays() -> None:
    st = state("Ld1,ACa2,RIb2,BRb1", "Ld7,NEa1")
    st.play("d1-d2")
    assert (st.phase, st.to_play) == ("action", 0)


def test_nemesis_reaction_is_owners_decision() -> None:
    st = state("Ld1,RId4", "Ld7,NEa4")
    st.play("d1-d2")
    for move in ("d4-d6", "end"):
        with pytest.raises(leaders.IllegalMoveError, match="not your decision"):
            st.play(move)
    with pytest.raises(leaders.IllegalMoveError, match="2 cells"):
        st.play("a4-a3")
    st.play("a4-a3-a2")
    assert st.position().startswith("S=Ld2,RId4 N=Ld7,NEa2 turn=S phase=action acted=L")


def test_nemesis_reaction_can_win() -> None:
    st = state("Ld1", "Ld7,BRf1,NEd4")
    st.play("d1-e1")
    assert st.to_play == 1
    st.play("d4-e3-e2")
    assert (st.winner, st.termination) == (1, "capture")


def test_pushing_enemy_leader_triggers_own_nemesis() -> None:
    st = state("Ld1,BRd5,NEa1", "Ld6")
    st.play("d5:d6>d7")
    assert (st.phase, st.to_play, st.turn) == ("reaction", 0, 0)


def test_no_reaction_when_own_leader_moves_with_own_nemesis() -> None:
    st = state("Ld1,NEa1", "Ld7")
    st.play("d1-d2")
    assert st.phase == "action"


def test_brewmaster_moving_leader_triggers_enemy_nemesis() -> None:
    st = state("Ld1,BMd2", "Ld7,NEd4")
    st.play("d2:d1>e1")
    assert (st.phase, st.to_play) == ("reaction", 1)


# ------------------------------------------------------------------------- recruitment
def test_north_double_first_recruitment() -> None:
    st = leaders.from_position(
        pos("Ld1,RGa1", "Ld7", turn="N", market="AC,RI,BR", deck="IL,CL", recruits=2, turns=1)
    )
    st.play("end")
    assert (st.phase, st.recruits, st.recruit_allowance) == ("recruit", 2, 2)
    st.play("+AC@a4")
    assert (st.phase, st.recruits, st.market) == ("recruit", 1, ["IL", "RI", "BR"])
    assert st.view()["recruit_allowance"] == 2  # the second of two recruitments
    st.play("+RI@b5")
    assert (st.turn, st.phase, st.turns, st.recruits, st.market) == (0, "action", 2, 1, ["IL", "CL", "BR"])
    assert st.view()["recruit_allowance"] == 1


def test_new_game_north_recruits_twice() -> None:
    st = leaders.new_game(seed=3)
    st.play("end")
    st.play(st.legal_moves()[0])
    assert (st.turn, st.recruits) == (1, 2)
    st.play("end")
    st.play(st.legal_moves()[0])
    assert st.phase == "recruit"
    st.play(st.legal_moves()[0])
    assert (st.turn, st.recruits, st.deck_size) == (0, 1, 10)


def test_recruit_placement_can_win() -> None:
    st = leaders.from_position(pos("Lc5", "Ld7,RId5", turn="N", market="AC,VI,AR"))
    st.play("end")
    st.play("+AC@c6")
    assert (st.winner, st.termination) == (1, "capture")


def test_recruitment_is_mandatory() -> None:
    st = leaders.from_position(pos("Ld1", "Ld7", market="AC,RI,BR", deck="IL"))
    st.play("end")
    assert "end" not in st.legal_moves()
    with pytest.raises(leaders.IllegalMoveError, match="must take a market card"):
        st.play("end")


def test_hermit_cub_needs_two_cells() -> None:
    st = leaders.from_position(pos("Ld1,ACa1,RIb1,BRc1", "Ld7,RGe1,ILf1", market="HE,VI,AR"))
    st.play("end")
    assert st.legal_moves() == ["+AR@g1", "+VI@g1"]


def test_recruitment_skipped_without_placement() -> None:
    st = leaders.from_position(pos("Ld1,ACa1,RIb1,BRc1", "Ld7,RGe1,ILf1", market="HE,-,-"))
    st.play("end")
    assert (st.turn, st.phase) == (1, "action")


def test_recruitment_skipped_at_five_cards() -> None:
    st = leaders.from_position(pos("Ld1,ACa1,RIb1,BRc1,RGg1", "Ld7", market="VI,AR,JA"))
    st.play("end")
    assert (st.turn, st.phase, st.turns) == (1, "action", 7)


def test_hermit_cub_is_one_card() -> None:
    st = leaders.from_position(pos("Ld1,ACa1,RIb1,HEc1,CUe1", "Ld7", market="VI,AR,JA"))
    st.play("end")
    assert st.phase == "recruit"


def test_no_self_harming_placement() -> None:
    st = leaders.from_position(pos("Ld1,ACd2,RIe1", "Ld7", market="VI,AR,JA"))
    st.play("end")
    assert {m[-2:] for m in st.legal_moves()} == {"a1", "b1", "f1", "g1"}
    assert len(st.legal_moves()) == 12
    with pytest.raises(leaders.IllegalMoveError, match="own Leader surrounded"):
        st.play("+VI@c1")


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("+NE@a1", "not in the market"),
        ("+VI@a4", "not one of your recruitment cells"),
        ("+VI@d1", "occupied"),
        ("+HE@a1", "two cells"),
        ("+CU@a1,b1", "with the Hermit"),
        ("d1-d2", "must take"),
    ],
)
def test_recruit_rejections(move: str, reason: str) -> None:
    st = leaders.from_position(pos("Ld1", "Ld7", market="VI,AR,JA"))
    st.play("end")
    with pytest.raises(leaders.IllegalMoveError, match=reason):
        st.play(move)


def test_empty_deck_leaves_slot_empty() -> None:
    st = leaders.from_position(pos("Ld1", "Ld7", market="VI,AR,JA"))
    st.play("end")
    st.play("+AR@a1")
    assert st.market == ["VI", None, "JA"]
    assert "market=VI,-,JA deck=-" in st.position()


# ------------------------------------------------------------------------- draws
FULL = ("Ld1,ACa1,RIb1,BRc1,RGg1", "Ld7,ILa4,CLb5,MAf5,WAg4")
CYCLE = ["d1-d2", "end", "d7-d6", "end", "d2-d1", "end", "d6-d7", "end"]


@pytest.mark.parametrize("draw_rule", [True, False])
def test_threefold_repetition(draw_rule: bool) -> None:
    st = leaders.from_position(pos(*FULL), draw_rule=draw_rule)
    for m in CYCLE:
        st.play(m)
    assert not st.is_over
    for m in CYCLE:
        st.play(m)
    assert st.is_over == draw_rule
    if draw_rule:
        assert (st.winner, st.termination, st.record()["result"]) == (None, "repetition", "draw")
        st.undo()
        assert not st.is_over


@pytest.mark.parametrize("draw_rule", [True, False])
def test_turn_limit(draw_rule: bool) -> None:
    st = leaders.from_position(pos(*FULL, turns=199), draw_rule=draw_rule)
    st.play("end")
    assert st.termination == ("turn-limit" if draw_rule else None)
    assert st.turns == 200


def test_game_over_rejects_moves() -> None:
    st = state("Ld1", "Ld7,ASd3", turn="N")
    st.play("d3-d2")
    assert st.legal_moves() == []
    with pytest.raises(leaders.IllegalMoveError, match="game over"):
        st.play("end")
