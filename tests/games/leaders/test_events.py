"""Move events: what each champion ability, recruitment, reaction and ending reports (one row per kind)."""

from __future__ import annotations

from typing import Any

import pytest

from throne.games import leaders
from throne.games.leaders.events import EVENT_TYPES, events, game_events

from .helpers import state


def mv(piece: str, side: int, path: str, ability: str | None) -> dict[str, Any]:
    return {"type": "move", "piece": piece, "side": side, "path": path.split("-"), "ability": ability}


def moved(piece: str, side: int, f: str, t: str, by: str, by_side: int, how: str) -> dict[str, Any]:
    return {"type": "displace", "piece": piece, "side": side, "from": f, "to": t, "by": by,
            "by_side": by_side, "how": how}


# (id, South, North, move, expected events)
ABILITIES = [
    ("leader-step", "Ld1", "Ld7", "d1-d2", [mv("L", 0, "d1-d2", None)]),
    ("vizier-double-step", "Ld1,VIg1", "Ld7", "d1-d2-d3", [mv("L", 0, "d1-d2-d3", "VI")]),
    ("champion-basic-step", "Ld1,RId4", "Ld7", "d4-d3", [mv("RI", 0, "d4-d3", None)]),
    ("rider", "Ld1,RId4,ARd5", "Ld7,BRf4", "d4-d2", [mv("RI", 0, "d4-d2", "RI")]),
    ("acrobat-double-jump", "Ld1,ACc3,VIc4,ARf3", "Ld7,BRd4", "c3-e4-g2", [mv("AC", 0, "c3-e4-g2", "AC")]),
    ("bruiser-push", "Ld1,BRc3,ARe3", "Ld7,ACd4", "c3:d4>d5",
     [mv("BR", 0, "c3-d4", "BR"), moved("AC", 1, "d4", "d5", "BR", 0, "push")]),
    ("royal-guard", "Ld1,RGa1", "Ld7", "a1-d2-d3", [mv("RG", 0, "a1-d2-d3", "RG")]),
    ("illusionist-swap", "Ld1,ILd3", "Ld7,ACd5", "d3:d5",
     [mv("IL", 0, "d3-d5", "IL"), moved("AC", 1, "d5", "d3", "IL", 0, "swap")]),
    ("claw-launcher-move", "Ld1,CLd3", "Ld7,ACd6", "d3-d5", [mv("CL", 0, "d3-d5", "CL")]),
    ("claw-launcher-pull", "Ld1,CLd3", "Ld7,ACd6", "d3:d6>d4", [moved("AC", 1, "d6", "d4", "CL", 0, "pull")]),
    ("manipulator", "Ld1,MAd3", "Ld7,ACd6", "d3:d6>c5", [moved("AC", 1, "d6", "c5", "MA", 0, "move")]),
    ("wanderer", "Ld1,WAa1", "Ld7", "a1-g4", [mv("WA", 0, "a1-g4", "WA")]),
    ("brewmaster-moves-an-ally", "Ld1,BMd3,ARd4", "Ld7", "d3:d4>e4",
     [moved("AR", 0, "d4", "e4", "BM", 0, "move")]),
    ("hermit-alone", "Ld1,HEc2,CUe2", "Ld7", "c2-b2", [mv("HE", 0, "c2-b2", "HE")]),
    ("hermit-and-cub", "Ld1,HEc2,CUe2", "Ld7", "c2-b1,e2-e3",
     [mv("HE", 0, "c2-b1", "HE"), mv("CU", 0, "e2-e3", "HE")]),
    ("end-with-nothing-to-recruit", "Ld1", "Ld7", "end", [{"type": "turn-end", "side": 0, "turn": 4}]),
]


@pytest.mark.parametrize(("south", "north", "move", "expected"), [r[1:] for r in ABILITIES],
                         ids=[r[0] for r in ABILITIES])
def test_ability_events(south: str, north: str, move: str, expected: list[dict[str, Any]]) -> None:
    before = state(south, north)
    after = before.clone()
    after.play(move)
    assert events(before, move, after) == expected


def test_nemesis_reaction() -> None:
    st = state("Ld1", "Ld7,NEa4")
    st.play("d1-d2")
    assert st.phase == "reaction"
    after = st.clone()
    after.play("a4-b4-c4")
    assert events(st, "a4-b4-c4", after) == [{"type": "reaction", "piece": "NE", "side": 1,
                                               "path": ["a4", "b4", "c4"]}]


def test_recruit_refills_the_market_and_ends_the_turn() -> None:
    st = state("Ld1", "Ld7", phase="recruit", market="AC,VI,AR", deck="IL", turns=4)
    after = st.clone()
    after.play("+VI@b1")
    assert events(st, "+VI@b1", after) == [
        {"type": "recruit", "card": "VI", "side": 0, "cells": ["b1"]},
        {"type": "refill", "slot": 1, "card": "IL"},
        {"type": "turn-end", "side": 0, "turn": 3},
    ]
    st2 = state("Ld1", "Ld7", phase="recruit", market="HE,VI,AR")
    after2 = st2.clone()
    after2.play("+HE@a1,b1")
    assert events(st2, "+HE@a1,b1", after2)[:2] == [
        {"type": "recruit", "card": "HE", "side": 0, "cells": ["a1", "b1"]},
        {"type": "refill", "slot": 0, "card": None},
    ]


def test_banishment() -> None:
    st = leaders.new_game(mode="strategist")
    after = st.clone()
    after.play("ban AS")
    assert events(st, "ban AS", after) == [{"type": "ban", "card": "AS", "side": 1}]


@pytest.mark.parametrize(
    ("south", "north", "move", "ending"),
    [
        ("Ld1,ASc5", "Ld4,ACg1", "c5-c4",
         {"reason": "capture", "winner": 0, "leader": "d4", "loser": 1,
          "pieces": [{"piece": "AS", "side": 0, "cell": "c4"}]}),
        ("Ld1,RIb3,ARd6", "Ld4,ACg1", "b3-c4",
         {"reason": "capture", "winner": 0, "leader": "d4", "loser": 1,
          "pieces": [{"piece": "RI", "side": 0, "cell": "c4"}, {"piece": "AR", "side": 0, "cell": "d6"}]}),
    ],
    ids=["assassin-alone", "rider-and-archer"],
)
def test_capture_names_the_pieces(south: str, north: str, move: str, ending: dict[str, Any]) -> None:
    before = state(south, north)
    after = before.clone()
    after.play(move)
    assert after.termination == "capture"
    assert events(before, move, after)[-1] == {"type": "game-end", **ending}


def test_every_event_type_is_documented_and_replays_agree() -> None:
    st = leaders.new_game(seed=3)
    import random

    rng = random.Random(3)
    seen: list[list[dict[str, Any]]] = []
    while not st.is_over:
        move = rng.choice(st.legal_moves())
        before = st.clone()
        st.play(move)
        seen.append(events(before, move, st))
    assert game_events(st) == seen
    assert {e["type"] for evs in seen for e in evs} <= set(EVENT_TYPES)
    assert seen[-1][-1]["type"] == "game-end"


def test_surround_lists_every_piece_around_the_leader() -> None:
    before = state("Ld1,HEd4,CUd5", "Ld7,ACc6,BMe6")
    after = before.clone()
    after.play("d5-d6")
    assert after.termination == "surround"
    assert events(before, "d5-d6", after)[-1] == {
        "type": "game-end", "reason": "surround", "winner": 0, "leader": "d7", "loser": 1,
        "pieces": [{"piece": "AC", "side": 1, "cell": "c6"}, {"piece": "CU", "side": 0, "cell": "d6"},
                   {"piece": "BM", "side": 1, "cell": "e6"}],
    }
