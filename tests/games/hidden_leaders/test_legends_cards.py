"""Every card of the legends module (legends §4, §5.2): marker effect and ability, edge cases included.

Row: (card, setup, moves, expected, id), as in test_cards, on a table with all four modules. The Guardian
marker starts on 1 unless the setup says otherwise, and moves +2 once a Guardian card has resolved, so the
third marker in ``expected`` is usually 3. ``("fate", seat, kind)`` in the moves asserts a Fate of ``seat``
and chooses ``kind`` (helpers.force_fate).
"""

from __future__ import annotations

import pytest

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.cards import GUARDIAN_CARDS

from .helpers import check, run_card

ALL = ("core", "kickstarter", "queens", "legends")
SSS, PIG, LL, FF = "short-sighted-soldier", "pigmented-war-pig", "leery-lizard", "furious-frog"
RO, E, KEEPER, KOI = "rotting-orangutan", "deceased-emperor", "keeper-of-discord", "keen-koi"
OGRE, HOP, DUO, SAP = "obliging-ogre", "sleepy-hop-goblin", "gigantic-duo", "surprised-sapling"
TROLL, TWIG, PROT = "fungified-troll", "twiggy-tree-keeper", "patient-protector"
MECH = "misinformed-mechatron"
COL, HULK, VIND, GRIF = "mended-colossus", "huggable-hulk", "valuable-vindicator", "graceful-griffin"
SER, BEAC, DART, POOD = "severed-seraph", "baneful-beacon", "demonic-darter", "possessed-poodle"
PHAN, NIGHT, OCEAN = "philantropic-phantom", "obnoxious-nightmare", "oppressed-ocean"
TITAN = "hard-shelled-titan"
AUTO, CRAB, SNAKE, SHELL = "abysmal-automaton", "crabby-knight", "snappy-sea-snake", "shellfish-defender"
MOTHER = "mother-of-guardians"
SNAKE_ALL = ["G+1", "G+2", "G-1", "G-2", "R+1", "R+2", "R-1", "R-2"]


def fate(seat: int, kind: str) -> tuple[str, int, str]:
    return ("fate", seat, kind)


ROWS = [
    # ------------------------------------------------------------------ hill tribes
    (OGRE, {"parties": {0: f"{PIG} {LL}"}},
     [["G+4", "R-4"], "G+4", [f"0:{PIG}", f"0:{LL}", f"0:{OGRE}"], f"0:{PIG}", [f"0:{LL}", f"0:{OGRE}"],
      f"0:{OGRE}"],
     {"markers": (4, 8, 3), "party0": f"~{PIG} {LL} ~{OGRE}"}, "turns-two-itself-allowed"),
    (OGRE, {}, ["R-4", [f"0:{OGRE}"], f"0:{OGRE}"], {"markers": (1, 4, 3), "party0": f"~{OGRE}"},
     "only-one-face-up"),
    (OGRE, {"parties": {0: f"{PIG} {LL} {FF} {RO} {SSS} {KOI}"}}, ["G+4", f"0:{PIG}", f"0:{LL}"],
     {"phase": "action", "turn": 1}, "turning-down-prevents-the-end"),
    (HOP, {"parties": {1: f"~{LL} {PIG}", 2: f"~{FF}"}},
     [["G+1", "R-2"], "G+1", ["1:down0", "2:down0"], "1:down0"],
     {"markers": (4, 5, 3), "party0": f"{HOP} ~{LL}", "party1": PIG, "known1": {LL: "d0"}, "known2": {}},
     "takes-face-down"),
    (HOP, {"parties": {1: f"~{LL}"}, "known": {2: {LL: "d1"}}}, ["G+1", "1:down0"],
     {"known2": {LL: "d0"}}, "a-seat-that-knew-the-card-follows-it"),
    (HOP, {"parties": {0: f"~{LL}", 1: PIG}}, ["G+1"], {"party0": f"~{LL} {HOP}", "party1": PIG},
     "no-face-down-hero-of-another"),
    (DUO, {"parties": {1: f"{SSS} {LL}", 2: E}},
     [[f"1:{SSS}", f"2:{E}", "skip"], f"1:{SSS}", [f"1:{LL}", f"2:{E}", "skip"], f"2:{E}"],
     {"markers": (4, 3, 3), "graveyard": f"{E} {SSS}", "party1": LL}, "both-emperor-either"),
    (DUO, {"parties": {1: f"{SSS} {LL}"}}, ["skip", "skip"], {"graveyard": "", "party1": f"{SSS} {LL}"},
     "may-skip-both"),
    (DUO, {"parties": {1: SHELL}, "guardian": 6},
     [[f"1:{SHELL}", "skip"], f"1:{SHELL}", fate(0, "guardian-2")],
     {"markers": (4, 3, 6), "graveyard": SHELL}, "water-guardian-then-fate"),
    (DUO, {"parties": {1: f"{KEEPER} {SHELL}"}}, [f"1:{SHELL}"],
     {"party1": f"{KEEPER} ~{SHELL}", "graveyard": "", "markers": (4, 3, 3)}, "keeper-no-fate"),
    (SAP, {"hands": {1: f"{LL} {FF}"}},
     [["seat 1"], "seat 1", [f"pick {FF}", f"pick {LL}"], f"pick {LL}"],
     {"markers": (5, 4, 3), "party0": f"{SAP} ~{LL}", "hand1": FF, "known0": {FF: "h1"},
      "known1": {LL: "d0"}, "known2": {}}, "looks-at-hand-takes-one"),
    (SAP, {}, [], {"markers": (5, 4, 3), "party0": SAP}, "no-hand-to-look-at"),
    (TROLL, {"parties": {0: PIG, 1: f"{RO} {LL}", 2: SSS}},
     ["R-1", [f"1:{RO}", f"2:{SSS}"], f"1:{RO}", [f"0:{PIG}", f"0:{TROLL}"], f"0:{PIG}"],
     {"markers": (3, 4, 3), "party0": f"{RO} {TROLL}", "party1": f"{PIG} {LL}"}, "swap-undead"),
    (TROLL, {"parties": {1: E}}, ["G-1", [f"1:{E}"], f"1:{E}", [f"0:{TROLL}"], f"0:{TROLL}"],
     {"party0": E, "party1": TROLL, "markers": (4, 3, 3)}, "emperor-may-be-taken-itself-swaps"),
    (TROLL, {"parties": {1: f"{LL} ~{RO}"}}, ["R-1"], {"party0": TROLL, "party1": f"{LL} ~{RO}"},
     "no-eligible-hero"),
    (TWIG, {"parties": {0: f"~{PIG}", 1: f"~{LL} ~{FF}", 2: f"~{RO}"}},
     ["R+2", ["1:down0", "1:down1", "2:down0"], "1:down1", ["1:down0", "2:down0"], "2:down0",
      ["0:down0", "1:down0", "1:down1", "2:down0"], "1:down0"],
     {"markers": (6, 4, 3), "known0": {FF: "d1", RO: "d2"}, "party1": f"~{FF}", "graveyard": LL},
     "looks-at-two-then-buries"),
    (TWIG, {"parties": {0: f"~{PIG}", 1: f"~{LL}"}},
     ["G+2", ["1:down0"], "1:down0", ["0:down0", "1:down0"], "0:down0"],
     {"known0": {LL: "d1"}, "graveyard": PIG}, "only-one-to-look-at"),
    (TWIG, {"parties": {0: f"~{PIG}"}}, ["G+2", ["0:down0"], "0:down0"], {"graveyard": PIG},
     "none-to-look-at-still-buries-own"),
    (TWIG, {"parties": {1: PIG}}, ["G+2"], {"graveyard": "", "markers": (4, 6, 3)}, "no-face-down-hero"),
    (TWIG, {"parties": {1: f"~{OGRE}"}, "guardian": 6}, ["G+2", "1:down0", "1:down0", fate(0, "red-1")],
     {"markers": (3, 6, 8), "graveyard": OGRE}, "face-down-guardian-fate"),
    # ------------------------------------------------------------------ imperial army
    (PROT, {"tavern": f"{LL} {FF} {RO}", "parties": {0: f"{PIG} ~{SSS}"}},
     ["R+1", [f"tavern {LL}", f"tavern {FF}", f"tavern {RO}"], f"tavern {LL}", [f"0:{PIG}", f"0:{PROT}"],
      f"0:{PIG}", [f"tavern {FF}", f"tavern {RO}"], f"tavern {RO}", [f"0:{PROT}"], f"0:{PROT}"],
     {"markers": (5, 4, 3), "party0": f"{LL} ~{SSS} {RO}", "tavern": f"{PIG} {FF} {PROT}"},
     "two-pairs-only-original-cards"),
    (PROT, {"tavern": f"{LL} {FF} -"}, ["G-2", f"tavern {FF}", [f"0:{PROT}"], f"0:{PROT}"],
     {"party0": FF, "tavern": f"{LL} {PROT} -", "markers": (4, 2, 3)}, "one-face-up-hero-one-pair"),
    (PROT, {}, ["R+1"], {"party0": PROT, "markers": (5, 4, 3)}, "empty-tavern"),
    (MECH, {"hands": {0: f"{LL} {FF} {RO}"}},
     [[f"hand {FF}", f"hand {LL}", f"hand {RO}", "skip"], f"hand {LL}", [f"hand {FF}", f"hand {RO}", "skip"],
      f"hand {RO}"],
     {"markers": (4, 5, 3), "party0": f"{MECH} ~{LL} ~{RO}", "hand0": FF}, "two-cards"),
    (MECH, {"hands": {0: f"{LL} {FF}"}}, [f"hand {LL}", "skip"], {"party0": f"{MECH} ~{LL}", "hand0": FF},
     "stop-after-one"),
    (MECH, {"hands": {0: LL}}, ["skip"], {"party0": MECH, "hand0": LL}, "skip"),
    (MECH, {}, [], {"party0": MECH, "markers": (4, 5, 3)}, "empty-hand"),
    (COL, {"players": 4, "parties": {1: f"{LL} ~{FF}", 2: PIG, 3: f"{RO} {SSS}"}},
     [[f"1:{LL}"], f"1:{LL}", [f"3:{RO}", f"3:{SSS}"], f"3:{SSS}"],
     {"markers": (3, 4, 3), "graveyard": f"{SSS} {LL}", "party2": PIG}, "next-then-previous"),
    (COL, {"players": 4, "parties": {1: f"~{FF}", 3: RO}}, [[f"3:{RO}"], f"3:{RO}"],
     {"graveyard": RO, "party1": f"~{FF}"}, "next-has-no-face-up-hero"),
    (COL, {"players": 4, "parties": {1: TROLL}, "guardian": 6}, [f"1:{TROLL}", fate(0, "guardian-1")],
     {"markers": (3, 4, 7), "graveyard": TROLL}, "guardian-fate"),
    (HULK, {"parties": {0: f"{PIG} {SHELL} {KEEPER}"}},
     [["G-4", "R+4"], "R+4", [f"0:{PIG}", f"0:{KEEPER}"], f"0:{KEEPER}"],
     {"markers": (8, 4, 3), "graveyard": KEEPER, "party0": f"{PIG} {SHELL} {HULK}"},
     "not-a-guardian-keeper-may-go"),
    (HULK, {"parties": {0: f"{PIG} {KEEPER}"}}, ["G-4", f"0:{PIG}"],
     {"party0": f"~{PIG} {KEEPER} {HULK}", "graveyard": ""}, "keeper-protects"),
    (HULK, {"parties": {0: E}}, ["R+4", [f"0:{E}"], f"0:{E}"], {"graveyard": E}, "emperor"),
    (HULK, {"parties": {0: f"{SHELL} ~{PIG}"}}, ["R+4"],
     {"graveyard": "", "party0": f"{SHELL} ~{PIG} {HULK}"},
     "only-guardians-face-up"),
    (VIND, {"parties": {0: RO, 1: f"{LL} {SSS}", 2: PIG}},
     [["G+1", "R+1", "R+1 G+1"], "R+1 G+1", [f"1:{LL}", f"2:{PIG}"], f"2:{PIG}", [f"0:{RO}", f"0:{VIND}"],
      f"0:{VIND}"],
     {"markers": (5, 5, 3), "party0": f"{RO} {PIG}", "party2": VIND}, "swap-hill-tribes"),
    (VIND, {"parties": {1: f"{SHELL} {SSS}"}}, ["R+1", [f"1:{SHELL}"], f"1:{SHELL}", f"0:{VIND}"],
     {"party0": SHELL, "party1": f"{VIND} {SSS}", "markers": (5, 4, 3)}, "water-guardian-no-resolve"),
    (GRIF, {"parties": {0: f"~{LL} ~{FF}"}, "hands": {0: f"{PIG} {RO}"}},
     [["G-2", "R-2"], "R-2", ["0:down0", "0:down1", "skip"], "0:down0", [f"hand {PIG}", f"hand {RO}"],
      f"hand {PIG}", ["0:down1", "skip"], "0:down1", [f"hand {RO}"], f"hand {RO}"],
     {"markers": (2, 4, 3), "party0": f"~{PIG} ~{RO} {GRIF}", "hand0": f"{LL} {FF}"},
     "two-pairs-only-original-cards"),
    (GRIF, {"parties": {0: f"~{LL}"}, "hands": {0: PIG}}, ["R-2", "skip"],
     {"party0": f"~{LL} {GRIF}", "hand0": PIG}, "skip"),
    (GRIF, {"parties": {0: f"~{LL}"}}, ["R-2"], {"party0": f"~{LL} {GRIF}"}, "empty-hand"),
    # ------------------------------------------------------------------ undead
    (SER, {"parties": {0: f"{PIG} {SHELL}", 1: f"{HULK} {LL}", 2: E}},
     ["R+1", [f"1:{HULK}"], f"1:{HULK}", [f"0:{SER}", f"0:{SHELL}"], f"0:{SHELL}"],
     {"party0": f"{PIG} {HULK} {SER}", "party1": f"{SHELL} {LL}", "markers": (5, 4, 3)},
     "guardians-only-not-the-emperor"),
    (SER, {"parties": {1: MOTHER}}, ["G+1", f"1:{MOTHER}", [f"0:{SER}"], f"0:{SER}"],
     {"party0": MOTHER, "party1": SER}, "mother"),
    (SER, {"parties": {1: f"{E} ~{HULK}"}}, ["G+1"], {"party0": SER, "party1": f"{E} ~{HULK}"}, "none"),
    (BEAC, {"parties": {1: f"{HULK} {LL}", 2: MOTHER}, "guardian": 8},
     [["G-1", "R-1"], "R-1", [f"0:{BEAC}", f"1:{HULK}", f"2:{MOTHER}", "skip"], f"1:{HULK}",
      fate(0, "guardian-2"), [f"0:{BEAC}", f"2:{MOTHER}", "skip"], f"0:{BEAC}", fate(0, "green-1")],
     {"markers": (3, 3, 8), "graveyard": f"{BEAC} {HULK}", "party0": "", "party2": MOTHER},
     "two-buries-two-fates-itself"),
    (BEAC, {"parties": {1: f"{HULK} {E}"}}, ["R-1", [f"0:{BEAC}", f"1:{HULK}", "skip"], "skip"],
     {"graveyard": "", "markers": (3, 4, 3)}, "skip"),
    (DART, {"graveyard": f"{HULK} {LL} {MOTHER} {E} {OGRE} {SHELL}"},
     ["R+2", [f"pick {HULK}", f"pick {MOTHER}", f"pick {OGRE}", f"pick {SHELL}", "skip"], f"pick {MOTHER}",
      [f"pick {HULK}", f"pick {OGRE}", f"pick {SHELL}", "skip"], f"pick {HULK}",
      [f"pick {OGRE}", f"pick {SHELL}", "skip"], f"pick {SHELL}"],
     {"hand0": f"{MOTHER} {HULK} {SHELL}", "graveyard": f"{LL} {E} {OGRE}", "markers": (6, 4, 3),
      "known1": {MOTHER: "h0", HULK: "h0", SHELL: "h0"}}, "three-into-the-hand"),
    (DART, {"graveyard": f"{HULK} {LL}"}, ["G+2", "skip"], {"graveyard": f"{HULK} {LL}", "hand0": ""},
     "skip"),
    (DART, {"graveyard": f"{E} {LL}"}, ["G+2"], {"graveyard": f"{E} {LL}"}, "emperor-is-not-a-guardian"),
    (POOD, {}, [["seat 1", "seat 2"], "seat 1"], {"markers": (3, 3, 3), "turn": 2, "skips": []},
     "next-turn-skipped"),
    (POOD, {"skips": [1]}, ["seat 1"], {"turn": 2, "skips": []}, "at-most-once"),
    (POOD, {"skips": [2]}, ["seat 1"], {"turn": 0, "skips": []}, "two-skipped-seats"),
    (POOD, {"players": 4}, ["seat 2"], {"turn": 1, "skips": [2]}, "flag-waits-for-the-turn"),
    (PHAN, {"players": 4, "parties": {1: f"{LL} ~{FF}", 3: f"{KEEPER} {RO}"}},
     [[f"1:{LL}", "1:down0"], "1:down0", [f"3:{KEEPER}", f"3:{RO}"], f"3:{RO}"],
     {"markers": (5, 5, 3), "party1": LL, "party3": f"{KEEPER} ~{RO}", "graveyard": FF},
     "each-other-seat-buries-keeper-applies"),
    (PHAN, {"parties": {1: HULK, 2: PIG}, "guardian": 6}, [f"1:{HULK}", fate(1, "guardian-2"), f"2:{PIG}"],
     {"markers": (5, 5, 6), "graveyard": f"{PIG} {HULK}"}, "victim-chooses-the-fate"),
    (NIGHT, {"graveyard": f"{LL} {E}"}, [[f"pick {E}", f"pick {LL}"], f"pick {E}"],
     {"markers": (5, 5, 3), "party0": f"{NIGHT} ~{E}", "graveyard": LL, "known1": {E: "d0"}},
     "graveyard-card-face-down-known-to-all"),
    (NIGHT, {}, [], {"party0": NIGHT, "markers": (5, 5, 3)}, "empty-graveyard"),
    # ------------------------------------------------------------------ water folk
    (OCEAN, {"parties": {1: f"{HULK} {SHELL} ~{OGRE} {E} {MOTHER}"}},
     [["seat 0", "seat 1", "seat 2"], "seat 1", ["G-3", "R-3", "R-3 G-3"], "R-3 G-3"],
     {"markers": (1, 1, 3)}, "face-up-guardians-only"),
    (OCEAN, {"parties": {0: SHELL}, "markers": (8, 8)}, ["seat 0", ["G-2", "R-2", "R-2 G-2"], "R-2"],
     {"markers": (6, 8, 3)}, "itself-counts-in-own-party"),
    (OCEAN, {"parties": {1: f"{HULK} {SHELL} {OGRE} {MOTHER} {DART}"}, "markers": (9, 9)}, ["seat 1", "G-4"],
     {"markers": (9, 5, 3)}, "at-most-4"),
    (OCEAN, {"markers": (2, 9), "parties": {1: f"{HULK} {SHELL} {OGRE}"}}, ["seat 1", "R-3 G-3"],
     {"markers": (1, 6, 3)}, "each-move-clamped-to-its-own-marker"),
    (OCEAN, {"parties": {1: E}}, ["seat 1"], {"markers": (4, 4, 3)}, "x-zero"),
    (TITAN, {"players": 4, "hands": {1: f"{LL} {FF}", 3: RO}},
     ["R+1", [f"hand {FF}", f"hand {LL}"], f"hand {LL}", [f"hand {RO}"], f"hand {RO}",
      [f"pick {LL}", f"pick {RO}"], f"pick {RO}"],
     {"party0": f"{TITAN} ~{RO}", "wilderness": LL, "hand1": FF, "hand3": "", "known0": {LL: "w"},
      "known1": {}, "known3": {}, "markers": (5, 4, 3)}, "empty-hand-not-asked"),
    (TITAN, {"players": 4, "hands": {2: RO}}, ["G+1", f"hand {RO}", [f"pick {RO}"], f"pick {RO}"],
     {"party0": f"{TITAN} ~{RO}", "wilderness": ""}, "one-given-card-still-chosen"),
    (TITAN, {"players": 4}, ["G+1"], {"party0": TITAN}, "nobody-holds-a-card"),
    (AUTO, {"harbor": f"{LL} {FF} {RO} {PIG} {SSS} {KOI}"},
     ["R-1", [f"pick {FF}", f"pick {LL}", f"pick {PIG}", f"pick {RO}", f"pick {SSS}", "skip"], f"pick {LL}",
      [f"pick {FF}", f"pick {PIG}", f"pick {RO}", f"pick {SSS}", "skip"], f"pick {FF}",
      [f"pick {PIG}", f"pick {RO}", f"pick {SSS}", "skip"], f"pick {RO}"],
     {"hand0": f"{LL} {FF} {RO}", "wilderness": f"{SSS} {PIG}", "harbor": KOI,
      "known0": {PIG: "w", SSS: "w"}, "markers": (3, 4, 3)}, "three-then-discard"),
    (AUTO, {"harbor": f"{LL} {FF}"}, ["R-1", f"pick {FF}", "skip"],
     {"hand0": FF, "wilderness": LL, "harbor": ""}, "stop-early"),
    (AUTO, {"harbor": f"{LL} {FF}", "wilderness": f"{RO} {PIG}"}, ["R-1", "skip"],
     {"hand0": "", "wilderness": {LL, FF, RO, PIG}, "harbor": ""}, "pass-discards-all-reshuffle"),
    (AUTO, {}, ["R-1 G-1"], {"markers": (3, 3, 3), "party0": AUTO}, "nothing-to-draw"),
    (CRAB, {"players": 4, "parties": {1: f"{LL} ~{FF}", 3: f"~{RO}"}},
     [[f"1:{LL}", "1:down0"], "1:down0", ["3:down0"], "3:down0"],
     {"party1": f"{LL} {FF}", "party3": RO, "markers": (5, 5, 3)}, "one-per-other-seat"),
    (CRAB, {"parties": {2: f"{LL}"}}, [f"2:{LL}"], {"party2": f"~{LL}", "known1": {LL: "d2"}},
     "turn-down-is-public"),
    (SNAKE, {}, [SNAKE_ALL, "R-2"], {"markers": (2, 4, 3)}, "eight-options"),
    (SNAKE, {"markers": (12, 1)}, [["G+1", "G+2", "R-1", "R-2"], "R-1"], {"markers": (11, 1, 3)},
     "only-changing-options"),
    (SNAKE, {"markers": (11, 4)}, [SNAKE_ALL, "R+2"], {"markers": (12, 4, 3)}, "r+2-kept-near-the-end"),
    (SHELL, {"wilderness": f"{LL} {FF} {RO} {PIG} {SSS}"},
     ["R+1", [f"pick {FF}", f"pick {LL}", f"pick {PIG}", f"pick {RO}"], f"pick {FF}",
      [f"pick {LL}", f"pick {PIG}", f"pick {RO}"], f"pick {RO}"],
     {"party0": f"{SHELL} ~{FF}", "hand0": RO, "wilderness": f"{LL} {PIG} {SSS}",
      "known0": {LL: "w", PIG: "w"}, "markers": (5, 4, 3)}, "party-and-hand-rest-back-in-order"),
    (SHELL, {"wilderness": LL}, ["R+1", [f"pick {LL}"], f"pick {LL}"],
     {"party0": f"{SHELL} ~{LL}", "hand0": "", "wilderness": ""}, "one-card"),
    (SHELL, {}, ["G+1"], {"party0": SHELL, "markers": (4, 5, 3)}, "empty-wilderness"),
    # ------------------------------------------------------------------ Mother of Guardians
    (MOTHER, {}, [["G-2", "R-2", "R-2 G-2"], "R-2 G-2"], {"markers": (2, 2, 3)}, "markers"),
    (MOTHER, {"guardian": 11}, ["R-2"], {"markers": (2, 4, 12)}, "guardian-marker-clamped"),
]


@pytest.mark.parametrize(("card", "setup", "moves", "expect"),
                         [pytest.param(*r[:4], id=f"{r[0]}-{r[4]}") for r in ROWS])
def test_legends_card(card: str, setup: dict, moves: list, expect: dict) -> None:
    st = run_card(card, {"modules": ALL, **setup}, moves)
    assert st.phase != "resolve", f"resolution still pending: {st.legal_moves()}"
    check(st, expect)


def test_every_guardian_card_has_rows() -> None:
    assert {r[0] for r in ROWS} == set(GUARDIAN_CARDS)
    assert len(GUARDIAN_CARDS) == 25
    assert all(hl.CARDS[c].module == "legends" for c in GUARDIAN_CARDS)
