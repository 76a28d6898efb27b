"""§2 pieces: the exact legal moves of each piece in hand-checked positions (one row per rule or ruling)."""

from __future__ import annotations

import pytest

from throne.games import leaders

from .helpers import moves_from, state

ALL = [f"{c}{r}" for c, h in zip("abcdefg", (4, 5, 6, 7, 6, 5, 4), strict=True) for r in range(1, h + 1)]

# (id, South pieces, North pieces, acting cell(s), exact legal moves of that piece)
PIECE_MOVES = [
    ("leader-basic", "Ld1", "Ld7", ("d1",), {"d1-c1", "d1-d2", "d1-e1"}),
    (
        "leader-vizier-two-steps",  # second step any direction, never back to d1; one string per end cell
        "Ld1,VIg1",
        "Ld7",
        ("d1",),
        {"d1-c1", "d1-d2", "d1-e1", "d1-d2-d3", "d1-d2-e2", "d1-d2-c2", "d1-e1-f1", "d1-c1-b1"},
    ),
    (
        "rider-two-empty-cells",  # d5 own piece blocks the way up, f4 occupied landing
        "Ld1,RId4,ARd5",
        "Ld7,BRf4",
        ("d4",),
        {"d4-e4", "d4-e3", "d4-d3", "d4-c3", "d4-c4", "d4-f2", "d4-d2", "d4-b2", "d4-b4"},
    ),
    (
        "rider-jailed-basic-only",
        "Ld1,RId4",
        "Ld7,JAe4",
        ("d4",),
        {"d4-d5", "d4-e3", "d4-d3", "d4-c3", "d4-c4"},
    ),
    (
        "acrobat-single-and-double-jumps",  # d4 to e4 then f3 to g2; c4 to c5; never back to c3
        "Ld1,ACc3,VIc4,ARf3",
        "Ld7,BRd4",
        ("c3",),
        {"c3-d3", "c3-c2", "c3-b2", "c3-b3", "c3-e4", "c3-e4-g2", "c3-c5"},
    ),
    (
        "bruiser-push-three-far-cells-one-blocked",
        "Ld1,BRc3,ARe3",
        "Ld7,ACd4",
        ("c3",),
        {"c3-c4", "c3-d3", "c3-c2", "c3-b2", "c3-b3", "c3:d4>d5", "c3:d4>e4"},
    ),
    (
        "jailer-does-not-interrupt-a-double-jump",  # Jailer f4 touches the landing e4 (and is jumped)
        "Ld1,ACc3,VIc4,ARf3",
        "Ld7,BRd4,JAf4",
        ("c3",),
        {"c3-d3", "c3-c2", "c3-b2", "c3-b3", "c3-e4", "c3-e4-g2", "c3-e4-g4", "c3-c5"},
    ),
    (
        "bruiser-cannot-push-the-protector-itself",
        "Ld1,BRc3",
        "Ld7,PRd4",
        ("c3",),
        {"c3-c4", "c3-d3", "c3-c2", "c3-b2", "c3-b3"},
    ),
    (
        "manipulator-blocked-by-protector",
        "Ld1,MAc2",
        "Ld7,ACc5,PRb5",
        ("c2",),
        {"c2-c3", "c2-d3", "c2-d2", "c2-c1", "c2-b1", "c2-b2"},
    ),
    (
        "bruiser-pushes-own-piece-never",  # d4 holds an ally: no push
        "Ld1,BRc3,ACd4",
        "Ld7",
        ("c3",),
        {"c3-c4", "c3-d3", "c3-c2", "c3-b2", "c3-b3"},
    ),
    (
        "bruiser-blocked-by-protector",  # the North Protector on e4 shields d4
        "Ld1,BRc3",
        "Ld7,ACd4,PRe4",
        ("c3",),
        {"c3-c4", "c3-d3", "c3-c2", "c3-b2", "c3-b3"},
    ),
    (
        "claw-move-and-pull",
        "Ld1,CLc2",
        "Ld7,ACc5",
        ("c2",),
        {"c2-c3", "c2-d3", "c2-d2", "c2-c1", "c2-b1", "c2-b2", "c2-c4", "c2:c5>c3"},
    ),
    (
        "claw-target-at-two-move-equals-step",  # moving next to c4 is the step c2-c3, listed once
        "Ld1,CLc2",
        "Ld7,ACc4",
        ("c2",),
        {"c2-c3", "c2-d3", "c2-d2", "c2-c1", "c2-b1", "c2-b2", "c2:c4>c3"},
    ),
    (
        "claw-protected-target-move-only",
        "Ld1,CLc2",
        "Ld7,ACc5,PRc6",
        ("c2",),
        {"c2-c3", "c2-d3", "c2-d2", "c2-c1", "c2-b1", "c2-b2", "c2-c4"},
    ),
    (
        "claw-pulls-ally",  # own pieces are never protected from own abilities
        "Ld1,CLc2,ACc5,PRc6",
        "Ld7",
        ("c2",),
        {"c2-c3", "c2-d3", "c2-d2", "c2-c1", "c2-b1", "c2-b2", "c2-c4", "c2:c5>c3"},
    ),
    (
        "royal-guard-from-afar",  # to d2/e1/c1 next to the Leader, then one optional step anywhere
        "Ld1,RGf3",
        "Ld7",
        ("f3",),
        {
            "f3-f4",
            "f3-g3",
            "f3-g2",
            "f3-f2",
            "f3-e3",
            "f3-e4",
            "f3-d2",
            "f3-e1",
            "f3-c1",
            "f3-d2-d3",
            "f3-d2-e2",
            "f3-d2-c2",
            "f3-e1-f1",
            "f3-c1-b1",
        },
    ),
    (
        "royal-guard-never-back-to-start",
        "Ld1,RGd2",
        "Ld7",
        ("d2",),
        {"d2-d3", "d2-e2", "d2-e1", "d2-c1", "d2-c2", "d2-e1-f1", "d2-c1-b1"},
    ),
    (
        "illusionist-swaps-visible-non-adjacent",  # c1 ally adjacent: no swap; a2 ally at 2: swap
        "Ld1,ILc2,VIc1,ARa2",
        "Ld7,ACc5,BRe3",
        ("c2",),
        {"c2-c3", "c2-d3", "c2-d2", "c2-b1", "c2-b2", "c2:c5", "c2:e3", "c2:a2"},
    ),
    (
        "illusionist-protected-enemy",
        "Ld1,ILc2",
        "Ld7,ACc5,PRc6",
        ("c2",),
        {"c2-c3", "c2-d3", "c2-d2", "c2-c1", "c2-b1", "c2-b2"},
    ),
    (
        "manipulator-any-empty-neighbour",
        "Ld1,MAc2",
        "Ld7,ACc5",
        ("c2",),
        {
            "c2-c3",
            "c2-d3",
            "c2-d2",
            "c2-c1",
            "c2-b1",
            "c2-b2",
            "c2:c5>c6",
            "c2:c5>d6",
            "c2:c5>d5",
            "c2:c5>c4",
            "c2:c5>b4",
            "c2:c5>b5",
        },
    ),
    (
        "manipulator-ignores-allies-and-adjacent",  # ally at c5, enemy adjacent on d3
        "Ld1,MAc2,ACc5",
        "Ld7,BRd3",
        ("c2",),
        {"c2-c3", "c2-d2", "c2-c1", "c2-b1", "c2-b2"},
    ),
    (
        "brewmaster-moves-leader-and-nemesis",
        "Ld1,BMd2,NEc1",
        "Ld7",
        ("d2",),
        {"d2-d3", "d2-e2", "d2-e1", "d2-c2", "d2:d1>e1", "d2:c1>c2", "d2:c1>b1"},
    ),
    (
        "nemesis-never-acts",
        "Ld1,NEc3",
        "Ld7",
        ("c3",),
        set(),
    ),
    (
        "passive-pieces-basic-move",
        "Ld1,ASc3",
        "Ld7,JAb3",
        ("c3",),
        {"c3-c4", "c3-d4", "c3-d3", "c3-c2", "c3-b2"},
    ),
    (
        "hermit-cub-one-activation",  # alone or both, either order; one string per resulting position
        "Ld7,HEa1,CUb1",
        "Ld4",
        ("a1", "b1"),
        {
            "a1-a2",
            "a1-b2",
            "b1-b2",
            "b1-c2",
            "b1-c1",
            "a1-a2,b1-b2",
            "a1-a2,b1-c2",
            "a1-a2,b1-c1",
            "a1-a2,b1-a1",
            "a1-b2,b1-c2",
            "a1-b2,b1-c1",
            "a1-b2,b1-a1",
            "b1-b2,a1-b1",
            "b1-c2,a1-b1",
            "b1-c1,a1-b1",
        },
    ),
]


@pytest.mark.parametrize(
    ("south", "north", "at", "expected"), [r[1:] for r in PIECE_MOVES], ids=[r[0] for r in PIECE_MOVES]
)
def test_piece_moves(south: str, north: str, at: tuple[str, ...], expected: set[str]) -> None:
    assert moves_from(state(south, north), *at) == expected


def test_wanderer_any_cell_away_from_enemies() -> None:
    st = state("Ld1,WAa1", "Ld7,ACd4")
    blocked = {"a1", "d1", "d7", "d4", "e6", "d6", "c6", "d5", "e4", "e3", "d3", "c3", "c4"}
    assert moves_from(st, "a1") == {f"a1-{c}" for c in ALL if c not in blocked}
    assert len(moves_from(st, "a1")) == 24


# (id, South, North, move, expected position after the move (pieces only))
OUTCOMES = [
    ("bruiser-push", "Ld1,BRc3", "Ld7,ACd4", "c3:d4>e4", "S=Ld1,BRd4 N=Ld7,ACe4"),
    ("claw-pull", "Ld1,CLc2", "Ld7,ACc5", "c2:c5>c3", "S=Ld1,CLc2 N=Ld7,ACc3"),
    ("claw-move", "Ld1,CLc2", "Ld7,ACc5", "c2-c4", "S=Ld1,CLc4 N=Ld7,ACc5"),
    ("illusionist-swap", "Ld1,ILc2", "Ld7,ACc5", "c2:c5", "S=Ld1,ILc5 N=Ld7,ACc2"),
    ("manipulator", "Ld1,MAc2", "Ld7,ACc5", "c2:c5>b4", "S=Ld1,MAc2 N=Ld7,ACb4"),
    ("brewmaster-leader", "Ld1,BMd2", "Ld7", "d2:d1>e1", "S=Le1,BMd2 N=Ld7"),
    ("acrobat-double", "Ld1,ACc3,VIc4,ARf3", "Ld7,BRd4", "c3-e4-g2", "S=Ld1,ACg2,ARf3,VIc4 N=Ld7,BRd4"),
    ("hermit-cub-into-vacated", "Ld7,HEa1,CUb1", "Ld4", "b1-c1,a1-b1", "S=Ld7,HEb1,CUc1 N=Ld4"),
]


@pytest.mark.parametrize(
    ("south", "north", "move", "after"), [r[1:] for r in OUTCOMES], ids=[r[0] for r in OUTCOMES]
)
def test_move_outcome(south: str, north: str, move: str, after: str) -> None:
    st = state(south, north)
    st.play(move)
    assert " ".join(st.position().split()[:2]) == after


def test_moved_piece_keeps_its_action() -> None:
    st = state("Ld1,BMd2", "Ld7")
    st.play("d2:d1>e1")
    assert st.acted == frozenset({"BM"})
    assert "e1-f1" in st.legal_moves()


def test_hermit_cub_activation_marks_both() -> None:
    st = state("Ld7,HEa1,CUb1", "Ld4")
    st.play("a1-a2")
    assert st.acted == frozenset({"HE", "CU"})
    assert moves_from(st, "a2", "b1") == set()


def test_equivalent_spellings_accepted() -> None:
    """§5.1: the Vizier path d1-c1-c2 reaches the same position as the listed d1-d2-c2."""
    st = state("Ld1,VIg1", "Ld7")
    assert "d1-c1-c2" not in st.legal_moves()
    twin = st.clone()
    st.play("d1-c1-c2")
    twin.play("d1-d2-c2")
    assert st.position() == twin.position()
    claw = state("Ld1,CLc2", "Ld7,ACc4")
    claw.play("c2-c3")
    assert claw.acted == frozenset({"CL"})


def test_jailer_does_not_stop_hermit_cub() -> None:
    st = state("Ld7,HEa1,CUb1", "Ld4,JAa2")
    assert "b1-c1" in st.legal_moves()


@pytest.mark.parametrize(
    ("south", "north", "move", "reason"),
    [
        ("Ld1,RId4", "Ld7,JAe4", "d4-d2", "jailed"),
        ("Ld1,BRc3", "Ld7,ACd4,PRe4", "c3:d4>d5", "protected"),
        ("Ld1,ILc2", "Ld7,ACc5,PRc6", "c2:c5", "protected"),
        ("Ld1,RId4", "Ld7", "e4-e5", "no piece on e4"),
        ("Ld1,RId4", "Ld7", "d7-d6", "not your piece"),
        ("Ld1,NEc3", "Ld7", "c3-c4", "never acts"),
        ("Ld1,RId4", "Ld7", "d4-d7", "occupied"),
        ("Ld1,RId4", "Ld7", "d4-a1", "not a legal move for the Rider"),
        ("Ld1,RId4", "Ld7", "+AC@a1", "play 'end' first"),
        ("Ld1,RId4", "Ld7", "z9-a1", "unknown cell"),
        ("Ld1,RId4", "Ld7", "d4~d5", "malformed"),
        ("Ld1,RId4", "Ld7", "d4-d5-d4", "revisit"),
    ],
)
def test_rejections_say_why(south: str, north: str, move: str, reason: str) -> None:
    st = state(south, north)
    before = st.position()
    with pytest.raises(leaders.IllegalMoveError, match=reason):
        st.play(move)
    assert st.position() == before


def test_already_acted_rejected() -> None:
    st = state("Ld1,RId4", "Ld7")
    st.play("d4-d5")
    with pytest.raises(leaders.IllegalMoveError, match="already acted"):
        st.play("d5-d6")
