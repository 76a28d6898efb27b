"""Audit rows against the rule book (§4, §6): each row once failed on the engine.

Row: (card, setup, moves, expected, id). As in test_cards: the card is put into seat 0's hand and played; a
list in ``moves`` asserts the legal moves at that point; ``expected`` is checked with helpers.check.
"""

from __future__ import annotations

import pytest

from .helpers import check, run_card

LL, FF, PIG, E = "leery-lizard", "furious-frog", "pigmented-war-pig", "deceased-emperor"
EXE, SAL, GP = "unconfident-executioner", "hopeful-salamander", "groggy-preacher"
WW, BC, CC = "wrapped-warrior", "battle-connoisseur", "crow-carrier"

ROWS = [
    # §6 Bludgeoning Blowfish: "secretly look at any 1 face-down hero" is not a "you may" (§4: mandatory).
    ("bludgeoning-blowfish", {"parties": {1: f"~{FF}"}}, ["R+1", "look", ["1:down0"], "1:down0"],
     {"known0": {FF: "d1"}}, "blowfish-look-is-mandatory"),
    # §4 (ruling): a card resolved "as if played" cannot choose a card already in the resolution chain —
    # any choice, not only the choice of a card to copy.
    ("ghastly-granny", {"parties": {0: EXE, 1: LL}}, [f"0:{EXE}", [f"1:{LL}"], f"1:{LL}"],
     {"markers": (3, 3), "party0": f"{EXE} ghastly-granny", "graveyard": LL}, "granny-executioner"),
    ("insidious-impaler", {"tavern": f"{SAL} {LL} -"}, [f"tavern {SAL}", [f"tavern {LL}"], f"tavern {LL}"],
     {"markers": (5, 5), "party0": f"insidious-impaler {LL}", "graveyard": SAL, "tavern": "- - -"},
     "impaler-salamander-not-itself"),
    ("modest-monsterslayer", {"tavern": f"{GP} {LL} -", "parties": {0: PIG}},
     [f"tavern {GP}", "R+1", [f"tavern {LL}"], f"tavern {LL}", [f"0:{PIG}"], f"0:{PIG}"],
     {"markers": (5, 4), "party0": f"{LL} modest-monsterslayer ~{GP}", "tavern": f"- {PIG} -"},
     "monsterslayer-preacher-not-chain-cards"),
    ("modest-monsterslayer", {"tavern": f"{GP} {LL} -"}, [f"tavern {GP}", "R+1"],
     {"party0": f"modest-monsterslayer ~{GP}", "tavern": f"- {LL} -"}, "monsterslayer-preacher-no-hero"),
    ("sun-shy-skeleton", {"graveyard": f"{WW} {E}"}, ["R+1", [f"pick {E}"], f"pick {E}"],
     {"markers": (5, 4), "hand0": E, "graveyard": WW}, "sun-shy-wrapped-warrior-not-itself"),
    ("sun-shy-skeleton", {"graveyard": f"{CC} {LL}"}, [[f"pick {LL}"], f"pick {LL}"],
     {"markers": (3, 3), "party0": f"sun-shy-skeleton ~{LL}", "wilderness": CC, "graveyard": ""},
     "sun-shy-crow-carrier-not-itself"),
    ("sun-shy-skeleton", {"graveyard": CC}, [],
     {"party0": "sun-shy-skeleton", "wilderness": CC, "graveyard": ""}, "sun-shy-crow-carrier-alone"),
    ("modest-monsterslayer", {"tavern": f"{BC} {LL} -"}, [f"tavern {BC}", [f"pick {LL}"], f"pick {LL}"],
     {"markers": (4, 5), "party0": f"modest-monsterslayer ~{LL} ~{BC}", "wilderness": "", "tavern": "- - -"},
     "monsterslayer-connoisseur-not-itself"),
]


@pytest.mark.parametrize(("card", "setup", "moves", "expect"),
                         [pytest.param(*r[:4], id=f"{r[0]}-{r[4]}") for r in ROWS])
def test_audit_row(card: str, setup: dict, moves: list, expect: dict) -> None:
    st = run_card(card, setup, moves)
    assert st.phase != "resolve", f"resolution still pending: {st.legal_moves()}"
    check(st, expect)


def test_random_playout_keeps_the_no_loop_ruling() -> None:
    """The playout fast path answers decisions itself; a copied card's later steps keep the ruling."""
    import random

    from throne.games.hidden_leaders.playout import random_step

    st = run_card("modest-monsterslayer", {"tavern": f"{GP} {LL} -", "parties": {0: PIG}},
                  [f"tavern {GP}", "R+1", [f"tavern {LL}"]])
    random_step(st, random.Random(0))  # the only Tavern option
    assert st.phase == "resolve"
    assert st.legal_moves() == [f"0:{PIG}"]
