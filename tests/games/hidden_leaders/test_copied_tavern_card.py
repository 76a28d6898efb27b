"""Rule book §4 ("play", ruling): a Tavern card copied by Modest Monsterslayer or Insidious Impaler leaves the
Tavern when it is chosen. While it resolves its slot is empty, so it cannot count, discard or bury itself; it
then always goes face down into the Monsterslayer's party / is buried by the Impaler, and the emptied slot is
refilled at the end of the turn.

Row: (card, setup, moves, expected, id), as in test_cards (a list in ``moves`` asserts the legal moves).
"""

from __future__ import annotations

import pytest

from throne.games.hidden_leaders.cards import MODULE_CARDS
from throne.games.hidden_leaders.view import from_json, to_json

from .helpers import check, run_card

MS, IMP = "modest-monsterslayer", "insidious-impaler"
DST, RAM, BC = "double-shielded-turtle", "resurrected-ram", "battle-connoisseur"
LL, FF, PIG = "leery-lizard", "furious-frog", "pigmented-war-pig"
SSS, E = "short-sighted-soldier", "deceased-emperor"

ROWS = [
    # Double-Shielded Turtle: X counts the other Tavern cards of the named faction, never the Turtle itself.
    (MS, {"tavern": f"{DST} {LL} {PIG}"},
     [f"tavern {DST}", "faction water-folk", ["R-1", "G-1", "R-1 G-1"], "R-1 G-1"],
     {"markers": (3, 3), "party0": f"{MS} ~{DST}", "tavern": f"- - {PIG}", "wilderness": LL},
     "slayer-turtle-counts-the-others"),
    (MS, {"tavern": f"{DST} {PIG} -"}, [f"tavern {DST}", "faction water-folk"],
     {"markers": (4, 4), "party0": f"{MS} ~{DST}", "tavern": f"- {PIG} -", "wilderness": ""},
     "slayer-turtle-alone-x-is-0"),
    (IMP, {"tavern": f"{LL} {DST} {FF}"}, [f"tavern {DST}", "faction water-folk", "G-2"],
     {"markers": (4, 2), "party0": IMP, "graveyard": DST, "tavern": "- - -", "wilderness": {LL, FF}},
     "impaler-turtle-buried"),
    # Resurrected Ram: discards the other Tavern cards, refills the other slots from the Graveyard; its own
    # slot stays empty.
    (MS, {"tavern": f"{RAM} {LL} {PIG}", "graveyard": f"{FF} {E} {SSS}"}, [f"tavern {RAM}", "R+1"],
     {"markers": (5, 4), "party0": f"{MS} ~{RAM}", "tavern": f"- {FF} {E}", "graveyard": SSS,
      "wilderness": {LL, PIG}}, "slayer-ram-own-slot-stays-empty"),
    (MS, {"tavern": f"{LL} {RAM} -", "graveyard": FF}, [f"tavern {RAM}", "G+1"],
     {"markers": (4, 5), "party0": f"{MS} ~{RAM}", "tavern": f"{FF} - -", "graveyard": "",
      "wilderness": LL}, "slayer-ram-short-graveyard"),
    (IMP, {"tavern": f"{RAM} {LL} -", "graveyard": FF}, [f"tavern {RAM}", "R+1"],
     {"markers": (5, 4), "party0": IMP, "tavern": f"- {FF} -", "graveyard": RAM, "wilderness": LL},
     "impaler-ram-buried-on-the-emptied-graveyard"),
    # Battle Connoisseur: takes every other Tavern card; the copied card is not among them.
    (MS, {"tavern": f"{BC} {LL} {FF}"}, [f"tavern {BC}", [f"pick {LL}", f"pick {FF}"], f"pick {FF}"],
     {"markers": (4, 5), "party0": f"{MS} ~{FF} ~{BC}", "tavern": "- - -", "wilderness": LL},
     "slayer-connoisseur-keeps-one-and-itself"),
    (MS, {"tavern": f"{BC} - -"}, [f"tavern {BC}"],
     {"markers": (4, 5), "party0": f"{MS} ~{BC}", "tavern": "- - -", "wilderness": ""},
     "slayer-connoisseur-alone"),
    (IMP, {"tavern": f"{BC} {LL} -"}, [f"tavern {BC}", [f"pick {LL}"], f"pick {LL}"],
     {"markers": (4, 5), "party0": f"{IMP} ~{LL}", "tavern": "- - -", "graveyard": BC, "wilderness": ""},
     "impaler-connoisseur-buries-it"),
    (IMP, {"tavern": f"{LL} {BC} {FF}", "graveyard": E}, [f"tavern {BC}", f"pick {LL}"],
     {"party0": f"{IMP} ~{LL}", "tavern": "- - -", "graveyard": f"{BC} {E}", "wilderness": FF},
     "impaler-connoisseur-on-top-of-the-graveyard"),
]


@pytest.mark.parametrize(("card", "setup", "moves", "expect"),
                         [pytest.param(*r[:4], id=r[4]) for r in ROWS])
def test_copied_tavern_card(card: str, setup: dict, moves: list, expect: dict) -> None:
    st = run_card(card, setup, moves)
    assert st.phase != "resolve", f"resolution still pending: {st.legal_moves()}"
    check(st, expect)


def test_the_chosen_card_is_out_of_the_tavern_while_it_resolves() -> None:
    """Mid-resolution the slot is empty, the card is held by the resolution, and the state round-trips."""
    mods = ("core", "kickstarter", "queens")
    rest = [c for m in mods for c in MODULE_CARDS[m] if c not in (MS, DST, LL, PIG)]
    st = run_card(MS, {"tavern": f"{DST} {LL} {PIG}", "harbor": rest, "graveyard": E}, [f"tavern {DST}"])
    assert st.phase == "resolve" and st.tavern == [None, LL, PIG]
    back = from_json(to_json(st))
    assert back.tavern == [None, LL, PIG] and back.legal_moves() == st.legal_moves()
    back.play("faction water-folk")
    back.play("R-1")
    assert back.parties[0] == [(MS, True), (DST, False)]


HARBOR = f"{SSS} {FF} {E} keen-koi ace-fighter"


@pytest.mark.parametrize(("card", "tavern", "moves", "tavern_before", "tavern_after"), [
    (MS, f"{DST} {LL} {PIG}", [f"tavern {DST}", "faction water-folk", "R-1"], f"- - {PIG}",
     f"{E} keen-koi {PIG}"),
    (MS, f"{PIG} {DST} -", [f"tavern {DST}", "faction undead"], f"{PIG} - -", f"{PIG} {E} keen-koi"),
    (IMP, f"{BC} {LL} {PIG}", [f"tavern {BC}", f"pick {LL}"], "- - -", f"{E} keen-koi ace-fighter"),
])
def test_emptied_slot_refilled_at_end_of_turn(card: str, tavern: str, moves: list, tavern_before: str,
                                              tavern_after: str) -> None:
    """Seat 0 draws to 4 from the Harbor, discards down to 3; then each empty slot refills from the Harbor."""
    st = run_card(card, {"tavern": tavern, "hands": {0: "hairy-hermit depressed-druid"}, "harbor": HARBOR},
                  moves)
    check(st, {"tavern": tavern_before, "phase": "draw"})
    st.play("draw harbor")
    st.play("draw harbor")
    st.play("discard hairy-hermit")
    assert st.turn == 1
    check(st, {"tavern": tavern_after})
