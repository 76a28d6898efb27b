"""The rulings of legends §5.4 and the interaction table of legends §6, one table each.

Rows as in test_legends_cards: (card, setup, moves, expected, id) on a table with all four modules; the card
is played by seat 0; ``("fate", seat, kind)`` asserts a Fate of ``seat`` and chooses ``kind``.
"""

from __future__ import annotations

import pytest

from .helpers import build, check, run_card
from .test_legends_cards import (
    ALL,
    BEAC,
    CRAB,
    FF,
    HULK,
    KEEPER,
    LL,
    MOTHER,
    OGRE,
    PIG,
    RO,
    SHELL,
    SNAKE,
    SSS,
    E,
    fate,
)

FACTIONS5 = ["faction guardians", "faction hill-tribes", "faction imperial-army", "faction undead",
             "faction water-folk"]

RULINGS = [
    # R1: naming the Guardians matches every Guardian card and not the Emperor
    ("androgynous-assassin", {"parties": {1: f"~{HULK} ~{E}"}, "guardian": 6},
     ["R-1", FACTIONS5, "faction guardians", ["1:down0", "1:down1"], "1:down0", fate(0, "guardian-2")],
     {"graveyard": HULK, "markers": (3, 4, 4), "party1": f"~{E}"}, "R1-assassin-buries-a-guardian"),
    ("androgynous-assassin", {"parties": {1: f"~{HULK} ~{E}"}}, ["R-1", "faction guardians", "1:down1"],
     {"graveyard": "", "party1": f"~{HULK} {E}"}, "R1-emperor-is-not-a-guardian"),
    ("double-shielded-turtle", {"tavern": f"{HULK} {MOTHER} {LL}"},
     ["faction guardians", ["G-2", "R-2", "R-2 G-2"], "R-2"],
     {"tavern": f"- - {LL}", "wilderness": {HULK, MOTHER}, "markers": (2, 4, 1)}, "R1-turtle-guardians"),
    ("double-shielded-turtle", {"tavern": f"{HULK} {MOTHER} {SSS}"}, ["faction imperial-army", "G-2"],
     {"tavern": f"- {MOTHER} -", "markers": (4, 2, 1)}, "R1-turtle-imperial-guardian-hero"),
    ("underwater-artist", {"hands": {1: f"{LL} {SHELL} {E}"}},
     ["faction guardians", "seat 1", [f"hand {SHELL}"], f"hand {SHELL}"],
     {"hand0": SHELL, "hand1": f"{LL} {E}"}, "R1-artist-must-give-a-guardian"),
    # R2: one Fate per buried Guardian card, right after its bury, in bury order
    ("nightmarish-northman", {"parties": {0: HULK, 1: SHELL}, "guardian": 6},
     ["R+2", f"0:{HULK}", fate(0, "guardian-2"), f"1:{SHELL}", fate(0, "guardian-1")],
     {"markers": (6, 4, 3), "graveyard": f"{SHELL} {HULK}"}, "R2-northman-two-fates"),
    ("gambling-overseer", {"parties": {0: f"~{HULK}"}, "hands": {0: f"{LL} {FF}"}, "guardian": 6},
     ["0:down0", fate(0, "red-1"), f"hand {LL}", f"hand {FF}"],
     {"markers": (2, 3, 6), "party0": f"gambling-overseer ~{LL} ~{FF}"}, "R2-overseer-one-fate-only"),
    # R3: every bury of a Guardian card, whatever caused it
    ("gorgeous-gorgon", {"parties": {1: HULK}}, ["R+1", "seat 1", fate(0, "green-1")],
     {"markers": (5, 3, 1), "graveyard": HULK}, "R3-gorgon-random-bury"),
    ("mummy-mystic", {"graveyard": LL, "parties": {0: HULK}, "guardian": 6},
     [f"0:{HULK}", fate(0, "guardian-2")],
     {"markers": (5, 6, 4), "party0": f"{LL} mummy-mystic", "graveyard": HULK}, "R3-mummy-mystic"),
    ("kind-king-slayer", {"parties": {1: f"~{HULK}"}, "markers": (6, 4), "guardian": 6},
     ["1:down0", fate(0, "green-1")], {"markers": (4, 3, 6)}, "R3-king-slayer-face-down"),
    # R4: the burying seat chooses: the victim that chose, otherwise the acting seat
    ("overworked-amazon", {"parties": {1: HULK}}, ["R+1", "seat 1", f"1:{HULK}", fate(1, "guardian-2")],
     {"graveyard": HULK, "markers": (5, 4, 1)}, "R4-amazon-victim"),
    ("insidious-impaler", {"tavern": f"{SNAKE} - -", "guardian": 11},
     [f"tavern {SNAKE}", "R+1", fate(0, "guardian-2")],
     {"graveyard": SNAKE, "markers": (5, 4, 10), "tavern": "- - -"}, "R4-R17-impaler-plus-2-then-fate"),
    # R13: Keeper of Discord against Philantropic Phantom (in test_legends_cards); against Baneful Beacon
    (BEAC, {"parties": {1: f"{KEEPER} {HULK}"}}, ["R-1", f"1:{HULK}", "skip"],
     {"party1": f"{KEEPER} ~{HULK}", "graveyard": "", "markers": (3, 4, 3)}, "keeper-turns-a-guardian-down"),
    # R14: Well-Shaved Wizard counts the Guardians as a faction; the Emperor brings 3
    ("well-shaved-wizard", {"parties": {0: f"{E} {SHELL}"}}, [["G-4", "R+4"], "R+4"], {"markers": (8, 4, 1)},
     "R14-x-can-be-4"),
    ("well-shaved-wizard", {"parties": {0: f"{PIG} {SHELL}"}}, [["G-3", "R+3"], "G-3"],
     {"markers": (4, 1, 1)},
     "R14-guardian-hero-two-factions"),
    # R17: every resolution of a Guardian card as if played moves the Guardian marker +2
    ("modest-monsterslayer", {"tavern": f"{SNAKE} - -", "guardian": 11}, [f"tavern {SNAKE}", "G+1"],
     {"party0": f"modest-monsterslayer ~{SNAKE}", "markers": (4, 5, 12)}, "R17-monsterslayer"),
    ("ghastly-granny", {"parties": {0: f"{HULK} {PIG}"}}, [f"0:{HULK}", "R+4", f"0:{PIG}"],
     {"markers": (8, 4, 3), "graveyard": PIG}, "R17-granny"),
    ("sun-shy-skeleton", {"graveyard": f"{SNAKE} {E}"}, ["G-1"],
     {"markers": (4, 3, 3), "graveyard": f"{SNAKE} {E}"},
     "R17-sun-shy-skeleton"),
    ("saltwater-sage", {"parties": {0: f"~{SNAKE}"}}, ["0:down0", "R-2"],
     {"markers": (2, 4, 3), "party0": f"{SNAKE} saltwater-sage"},
     "R17-saltwater-sage"),
    ("sanguine-scholar", {"parties": {1: SNAKE}}, [f"1:{SNAKE}", "G+2"], {"markers": (4, 6, 3)},
     "R17-sanguine-scholar"),
]

INTERACTIONS = [
    # membership: a Guardian hero counts for its base faction, Mother for none
    ("tentacle-oracle", {"wilderness": BEAC}, [], {"markers": (4, 4, 1)}, "oracle-undead-guardian"),
    ("tentacle-oracle", {"wilderness": MOTHER}, [], {"markers": (1, 1, 1)}, "oracle-mother-is-not-undead"),
    ("bored-goblin", {"parties": {0: BEAC}}, [], {"markers": (2, 4, 1)}, "goblin-undead-guardian"),
    ("grumpy-guard", {"parties": {0: SHELL}}, [], {"markers": (4, 6, 1)}, "guard-water-guardian"),
    ("grumpy-guard", {"parties": {0: MOTHER}}, [], {"markers": (4, 4, 1)}, "guard-mother"),
    ("potato-privateer", {"parties": {1: f"{HULK} {MOTHER}"}}, ["seat 1"], {"markers": (4, 5, 1)},
     "privateer-imperial-guardian"),
    ("hangry-barbarian", {"tavern": f"{HULK} {BEAC} {MOTHER}"}, [],
     {"markers": (2, 4, 1), "tavern": f"- - {MOTHER}", "graveyard": ""}, "barbarian-discards-no-fate"),
    ("heart-bending-bard", {"tavern": f"{OGRE} {SHELL} {MOTHER}"}, [],
     {"markers": (4, 2, 1), "tavern": f"- - {MOTHER}"}, "bard"),
    ("shaky-sharpshooter", {"parties": {1: f"{HULK} {MOTHER}"}, "guardian": 5},
     ["R+1", [f"1:{HULK}"], f"1:{HULK}", fate(0, "guardian-1")], {"graveyard": HULK, "markers": (5, 4, 4)},
     "sharpshooter-imperial-guardian-fate"),
    ("half-eaten-bull", {"parties": {1: SHELL}}, [f"1:{SHELL}", fate(0, "red-1")],
     {"graveyard": SHELL, "markers": (5, 5, 1)}, "bull-water-guardian-fate"),
    ("doubtful-priest", {"hands": {0: f"{HULK} {MOTHER}"}},
     ["R+2", [f"play {MOTHER}", "skip"], f"play {MOTHER}", "R-2"], {"markers": (4, 4, 3), "hand0": HULK},
     "priest-extra-not-imperial-guardian-mother-resolves"),
    ("queer-quartermaster", {"parties": {0: f"{HULK} {SHELL}"}, "hands": {0: LL}},
     [[f"0:{SHELL}", "skip"], f"0:{SHELL}", f"hand {LL}"], {"party0": f"{HULK} {LL} queer-quartermaster",
                                                            "hand0": SHELL}, "quartermaster"),
    # discards are not buries
    ("vegetarian-sharkguard", {"parties": {1: SHELL}}, ["R+2", f"1:{SHELL}"],
     {"wilderness": SHELL, "graveyard": "", "markers": (6, 4, 1)}, "sharkguard-no-fate"),
    ("resurrected-ram", {"graveyard": f"{HULK} {SHELL}", "tavern": f"{LL} - -"}, ["R+1"],
     {"tavern": f"{HULK} {SHELL} -", "markers": (5, 4, 1)}, "ram-refill-no-effect"),
    ("crow-carrier", {"graveyard": f"{HULK} {SHELL}"}, [f"pick {HULK}"],
     {"party0": f"crow-carrier ~{HULK}", "wilderness": SHELL, "markers": (3, 3, 1)}, "crow-no-fate"),
    # entering a party face up or being turned over does not resolve
    ("hopeful-salamander", {"tavern": f"{SNAKE} - -"}, [f"tavern {SNAKE}"],
     {"party0": f"hopeful-salamander {SNAKE}", "markers": (5, 5, 1)}, "salamander-no-plus-2"),
    ("long-eared-loner", {"parties": {1: f"~{SNAKE}"}}, ["1:down0"], {"party1": SNAKE, "markers": (4, 5, 1)},
     "loner-no-plus-2"),
    ("half-sliced-ghoul", {"parties": {1: f"~{HULK}"}}, ["1:down0", ["G+2", "R+2", "R+2 G+2"], "R+2"],
     {"party1": HULK, "markers": (6, 4, 1)}, "ghoul-imperial-guardian"),
    ("groggy-preacher", {"tavern": f"{SNAKE} - -"}, ["R+1", f"tavern {SNAKE}", "0:groggy-preacher"],
     {"party0": SNAKE, "markers": (5, 4, 1)}, "preacher-no-plus-2"),
    # the leading marker is R or G only
    ("keen-koi", {"markers": (4, 4), "guardian": 10}, [], {"markers": (4, 4, 10)},
     "koi-ignores-the-guardian"),
    ("triple-sword-lizard", {"markers": (4, 6), "guardian": 10}, [["G-1", "G-3"], "G-3"],
     {"markers": (4, 3, 10)}, "lizard-leading-green"),
    # Crabby Knight turns a face-up Guardian down without any effect
    (CRAB, {"parties": {1: SHELL, 2: RO}}, [f"1:{SHELL}", f"2:{RO}"],
     {"party1": f"~{SHELL}", "party2": f"~{RO}", "markers": (5, 5, 3)}, "crabby-knight"),
]


@pytest.mark.parametrize(("card", "setup", "moves", "expect"),
                         [pytest.param(*r[:4], id=r[4]) for r in RULINGS + INTERACTIONS])
def test_legends_ruling(card: str, setup: dict, moves: list, expect: dict) -> None:
    st = run_card(card, {"modules": ALL, **setup}, moves)
    assert st.phase != "resolve", f"resolution still pending: {st.legal_moves()}"
    check(st, expect)


def test_without_legends_the_guardians_cannot_be_named() -> None:
    st = run_card("androgynous-assassin", {"parties": {1: f"~{LL}"}}, ["R-1"])
    assert "faction guardians" not in st.legal_moves() and len(st.legal_moves()) == 4


def test_the_next_player_is_adjacent_even_when_it_skips() -> None:
    """§6: Doubtful Priest's next player is the adjacent seat although a Poodle flagged it."""
    st = run_card("doubtful-priest", {"modules": ALL, "skips": [1]}, [])
    assert st.to_play == 1 and st.legal_moves() == ["R+2", "R-2"]


def test_a_skipped_turn_has_no_draw_and_no_refill() -> None:
    st = build({"modules": ALL, "skips": [1], "hands": {0: f"{LL} {PIG} {SSS} {RO}", 1: FF},
                "harbor": f"{HULK} {SHELL} {OGRE} {BEAC}", "tavern": "- - -"})
    st.play("pass")
    st.play(f"discard {LL}")  # seat 0 holds 4: no draw, discard down, refill
    check(st, {"turn": 2, "skips": [], "hand1": FF, "tavern": f"{HULK} {SHELL} {OGRE}", "harbor": BEAC,
               "phase": "action"})


def test_the_fate_is_public_and_the_other_card_forgotten() -> None:
    st = run_card(BEAC, {"modules": ALL, "parties": {1: HULK}}, ["R-1", f"1:{HULK}"])
    assert st.stack[-1]["then"] == "fate" and st.to_play == 0
    drawn = st.stack[-1]["hid"]
    assert st.view(0)["fate"] == {"seat": 0, "card": HULK, "cards": drawn}
    assert st.view(1)["fate"] == {"seat": 0, "card": HULK, "cards": {"count": 2}}
    assert st.view(None)["fate"]["cards"] == {"count": 2}
    move = st.legal_moves()[0]
    st.play(move)
    assert st.last == (0, move)
    assert all(st.view(p)["fate"] is None for p in (None, 0, 1, 2))
