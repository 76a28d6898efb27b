"""Scoring (§5): the winning faction, aligned players, every tie-break, the Emperor, Queens & Friend."""

from __future__ import annotations

import pytest

from throne.games.hidden_leaders.scoring import winning_faction

from .helpers import build

E = "deceased-emperor"


@pytest.mark.parametrize(("red", "green", "faction"), [
    (9, 9, "undead"), (12, 9, "undead"), (9, 12, "undead"), (10, 8, "imperial-army"), (8, 10, "hill-tribes"),
    (4, 4, "water-folk"), (5, 4, "water-folk"), (4, 5, "water-folk"), (8, 9, "water-folk"),
    (6, 4, "imperial-army"), (12, 1, "imperial-army"), (4, 6, "hill-tribes"), (1, 12, "hill-tribes"),
])
def test_winning_faction(red: int, green: int, faction: str) -> None:
    assert winning_faction(red, green) == faction


# leaders: lemron 1 (water, hill), cyra 2 (imperial, water), myrad 3 (undead, hill),
# xiadul 4 (imperial, undead),
# pavyr 5 (imperial, hill), enned 6 (undead, water)
ROWS = [
    # (leaders, markers, parties, winner, tiebreak, faction heroes per seat)
    ("lemron cyra", (4, 4), {0: "leery-lizard", 1: "keen-koi furious-frog"}, 1, "most-faction-heroes",
        [1, 2]),
    ("lemron cyra", (4, 4), {0: "leery-lizard ~keen-koi",
        1: "furious-frog ~apathetic-waterpriest ace-fighter"},
     0, "fewest-heroes", [2, 2]),
    ("lemron cyra", (4, 4), {0: "leery-lizard ace-fighter", 1: "furious-frog ~flailing-knight"},
     1, "higher-leader-number", [1, 1]),
    ("lemron xiadul pavyr", (9, 10), {0: "rotting-orangutan"}, 1, "only-aligned", [1, 0, 0]),
    ("myrad xiadul pavyr", (9, 10), {0: "rotting-orangutan"}, 0, "most-faction-heroes", [1, 0, 0]),
    ("lemron cyra", (10, 10), {0: "rotting-orangutan"}, None, None, [1, 0]),
    ("lemron cyra myrad xiadul", (7, 4), {1: "ace-fighter", 3: E},
     3, "higher-leader-number", [0, 1, 0, 1]),
    ("lemron pavyr", (2, 8), {0: f"~{E}", 1: "pigmented-war-pig blind-eye-collector"},
     1, "most-faction-heroes", [1, 2]),
    ("lemron pavyr myrad", (2, 8), {0: f"~{E} ~queen-of-the-wild",
        1: "pigmented-war-pig blind-eye-collector"},
     0, "most-faction-heroes", [3, 2, 0]),
    ("enned xiadul", (9, 9), {0: f"emperors-best-friend {E}",
        1: "rotting-orangutan ~arrowgant-skeleton ~crow-carrier"},
     0, "fewest-heroes", [3, 3]),
    ("enned cyra", (5, 5), {0: "well-funded-queen", 1: "leery-lizard"}, 0, "most-faction-heroes", [2, 1]),
    ("pavyr xiadul cyra lemron myrad enned", (8, 4), {1: "queen-of-the-streets", 0: "short-sighted-soldier"},
     1, "most-faction-heroes", [1, 2, 0, 0, 0, 0]),
    ("enned myrad xiadul cyra lemron", (11, 9), {0: "emperors-best-friend", 2: "rotting-orangutan"},
     0, "higher-leader-number", [1, 0, 1, 0, 0]),
]


@pytest.mark.parametrize(("leaders", "markers", "parties", "winner", "tiebreak", "counts"), ROWS)
def test_scores(leaders: str, markers: tuple[int, int], parties: dict, winner: int | None,
    tiebreak: str | None,
                counts: list[int]) -> None:
    names = leaders.split()
    st = build({"players": len(names), "leaders": names, "markers": markers, "parties": parties,
                "phase": "over"})
    rows = st.scores()
    assert st.winner == winner
    assert [r["faction_heroes"] for r in rows] == counts
    for r in rows:
        assert r["winner"] == (r["seat"] == winner)
        assert r["tiebreak"] == (tiebreak if r["aligned"] else None)
        assert r["total_heroes"] == len(st.parties[r["seat"]])
    rec = st.record()["result"]
    assert rec == {"faction": winning_faction(*markers), "winner": winner}


def test_best_friend_counts_exactly_two() -> None:
    st = build({"players": 2, "leaders": ["enned", "xiadul"], "markers": (9, 9), "phase": "over",
                "parties": {0: f"emperors-best-friend ~{E}", 1: "rotting-orangutan arrowgant-skeleton"}})
    r = st.scores()
    assert r[0]["faction_heroes"] == 3 and r[0]["bonus"] == 1  # 2 for the Friend (not 1 + 2) + the Emperor
    assert r[1]["faction_heroes"] == 2 and st.winner == 0 and r[0]["tiebreak"] == "most-faction-heroes"


def test_queen_only_in_listed_leaders_party() -> None:
    st = build({"players": 2, "leaders": ["pavyr", "cyra"], "markers": (8, 4), "phase": "over",
                "parties": {0: "queen-of-the-wild", 1: "short-sighted-soldier"}})
    assert [r["faction_heroes"] for r in st.scores()] == [1, 1]
    assert st.scores()[0]["bonus"] == 0


def test_scores_before_the_end_are_hypothetical() -> None:
    st = build({"players": 2, "leaders": ["lemron", "cyra"], "parties": {0: "leery-lizard"}})
    assert st.winner is None and st.winning_faction is None
    assert [r["winner"] for r in st.scores()] == [True, False]


@pytest.mark.parametrize(
    ("markers", "faction"),
    [
        ((9, 9), "undead"),
        ((12, 9), "undead"),
        ((8, 9), "water-folk"),
        ((4, 4), "water-folk"),
        ((6, 4), "imperial-army"),
        ((12, 8), "imperial-army"),
        ((1, 3), "hill-tribes"),
        ((9, 11), "undead"),
        ((7, 11), "hill-tribes"),
    ],
)
def test_every_view_says_which_faction_would_win_now(markers: tuple[int, int], faction: str) -> None:
    """§5.1 as a public function of the markers: every seat and a spectator see the same answer."""
    st = build({"markers": markers})
    want = {"faction": faction, "guardians_if_seated": False}
    assert [st.view(seat)["live_faction"] for seat in (None, 0, 1, 2)] == [want] * 4
