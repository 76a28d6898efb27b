"""legends §1–§3 and §5.3: setup, the leader pool, the Fate deck, winning, scoring, state JSON and
determinisation."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.cards import (
    BASE_LEADERS,
    GUARDIAN_CARDS,
    GUARDIAN_LEADERS,
    LEADER_POOL,
    NOT_2P,
    is_of,
)
from throne.games.hidden_leaders.fate import FATE_DECK, draw_fates
from throne.games.hidden_leaders.scoring import public_faction, winning_faction

from .helpers import build
from .test_legends_cards import BEAC, CRAB, HULK, LL, MOTHER, SHELL, SSS

E, EBF, QW = "deceased-emperor", "emperors-best-friend", "queen-of-the-wild"
ALL = ("core", "kickstarter", "queens", "legends")

# ------------------------------------------------------------------ §1, §2: setup


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup(players: int) -> None:
    st = hl.new_game(players=players, seed=players, modules=ALL)
    assert st.markers == (4, 4, 1) and st.skips == [] and st.graveyard == [E]
    cards = [c for h in st.hands for c in h] + list(st.tavern) + st.harbor
    legends = {c for c in cards if c in GUARDIAN_CARDS}
    assert legends == (set(GUARDIAN_CARDS) - NOT_2P if players == 2 else set(GUARDIAN_CARDS))
    assert len(cards) == 72 + 12 + 5 + (21 if players == 2 else 25)
    assert hl.MODULES == ("core", "kickstarter", "queens", "legends")


def test_without_legends_nothing_changes() -> None:
    st = hl.new_game(players=4, seed=3, modules=("core",))
    assert st.markers == (4, 4) and st.guardian is None and "guardian" not in st.to_json()["markers"]
    assert "skips" not in st.to_json() and "fate" not in st.view(0)
    assert all(x in BASE_LEADERS for x in st.leaders)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_leader_pool(players: int) -> None:
    a, b = LEADER_POOL[players]
    assert a + b == {2: 6, 3: 4, 4: 6, 5: 7, 6: 9}[players]
    guards = Counter()
    for seed in range(150):
        leaders = hl.new_game(players=players, seed=seed, modules=("core", "legends")).leaders
        g = sum(1 for x in leaders if x in GUARDIAN_LEADERS)
        assert len(set(leaders)) == players and g <= b and players - g <= a
        guards[g] += 1
    # dealing `players` leaders from a pool of a base and b Guardian leaders: the hypergeometric law
    assert set(guards) == set(range(max(0, players - a), min(b, players) + 1))


def test_membership() -> None:
    assert is_of(HULK, "imperial-army") and is_of(HULK, "guardians") and not is_of(HULK, "undead")
    assert is_of(MOTHER, "guardians") and not any(is_of(MOTHER, f) for f in hl.FACTIONS)
    assert all(is_of(E, f) for f in hl.FACTIONS) and not is_of(E, "guardians")
    assert not is_of("keeper-of-discord", "guardians") and not is_of(SSS, "guardians")
    assert [hl.LEADERS[x].number for x in GUARDIAN_LEADERS] == [7, 8, 9, 10]


def test_fate_draws() -> None:
    rng = random.Random(5)
    pairs = Counter(tuple(sorted(draw_fates(rng))) for _ in range(3000))
    both_g2 = pairs[("guardian-2", "guardian-2")] / 3000
    assert 0.17 < both_g2 < 0.23  # 3/6 * 2/5 = 0.2
    assert ("red-1", "red-1") not in pairs and Counter(FATE_DECK)["guardian-2"] == 3


# ------------------------------------------------------------------ §3: winning and scoring


@pytest.mark.parametrize(("red", "green", "guardian", "seated", "faction"), [
    (11, 12, 12, "yes", "undead"),            # tied with G: not the Guardians
    (9, 9, 10, "yes", "guardians"),           # beats the Undead
    (9, 9, 10, "no", "undead"),               # no Guardian leader: the marker is ignored
    (4, 5, 6, "yes", "guardians"),
    (4, 6, 6, "yes", "hill-tribes"),
    (7, 3, 8, "yes", "guardians"),
    (7, 3, 7, "yes", "imperial-army"),
])
def test_winning_faction(red: int, green: int, guardian: int, seated: str, faction: str) -> None:
    assert winning_faction(red, green, guardian, seated == "yes") == faction


# (leaders, markers, parties, winner, tiebreak, faction heroes per seat, bonus per seat)
SCORES = [
    ("tissa xiadul lemron", (11, 12, 12), {0: HULK, 1: "rotting-orangutan"}, 1, "only-aligned", [0, 1, 0],
     [0, 0, 0]),
    ("tissa ulc cyra", (4, 4, 5), {0: f"{HULK} ~{CRAB}", 1: SHELL}, 0, "most-faction-heroes", [2, 1, 0],
     [0, 0, 0]),
    ("tissa cyra lemron", (8, 4, 1), {0: f"{MOTHER} ~{CRAB} {HULK}", 1: f"{SSS} flailing-knight"}, 1,
     "fewest-heroes", [2, 2, 0], [1, 0, 0]),
    ("tissa cyra lemron", (4, 4, 6), {0: f"{MOTHER} ~{CRAB} {HULK}"}, 0, "only-aligned", [4, 0, 0],
     [1, 0, 0]),
    ("tissa ulc cyra", (4, 4, 6), {0: f"{EBF} {E}", 1: f"{SHELL} ~{BEAC} {LL}"}, 0, "fewest-heroes",
     [2, 2, 0], [2, 0, 0]),
    ("tissa vyma cyra lemron", (4, 4, 6), {0: SHELL, 1: HULK}, 1, "higher-leader-number", [1, 1, 0, 0],
     [0, 0, 0, 0]),
    ("tissa cyra lemron", (8, 4, 1), {0: f"{QW} {SSS}"}, 0, "most-faction-heroes", [2, 0, 0], [0, 0, 0]),
    ("tissa vyma cyra lemron", (4, 4, 6), {0: f"{MOTHER} {E}", 1: f"{HULK} ~{SHELL} {LL}"}, 1,
     "most-faction-heroes", [1, 2, 0, 0], [0, 0, 0, 0]),
]


@pytest.mark.parametrize(("leaders", "markers", "parties", "winner", "tiebreak", "counts", "bonus"),
                         [pytest.param(*r, id=f"row{i}") for i, r in enumerate(SCORES)])
def test_scores(leaders: str, markers: tuple[int, int, int], parties: dict, winner: int | None,
                tiebreak: str | None, counts: list[int], bonus: list[int]) -> None:
    names = leaders.split()
    st = build({"players": len(names), "leaders": names, "markers": markers[:2], "guardian": markers[2],
                "parties": parties, "modules": ALL, "phase": "over"})
    rows = st.scores()
    assert [r["faction_heroes"] for r in rows] == counts
    assert [r["bonus"] for r in rows] == bonus
    assert st.winner == winner
    if winner is not None:
        assert rows[winner]["tiebreak"] == (tiebreak or "only-aligned")
    assert st.winning_faction == winning_faction(*markers, any(x in GUARDIAN_LEADERS for x in names))


def test_live_faction_does_not_depend_on_the_seated_leaders() -> None:
    """R23: a view may only say "the Guardians if a Guardian leader is in play, otherwise X"."""
    with_g = build({"leaders": ["tissa", "cyra", "lemron"], "markers": (9, 9), "guardian": 10,
                    "modules": ALL})
    without = build({"leaders": ["pavyr", "cyra", "lemron"], "markers": (9, 9), "guardian": 10,
                     "modules": ALL})
    want = {"faction": "undead", "guardians_if_seated": True}
    assert public_faction(with_g) == public_faction(without) == want
    assert with_g.view(1)["live_faction"] == without.view(1)["live_faction"] == want


# ------------------------------------------------------------------ §5.3: state JSON and determinisation


def _legends_state(players: int, seed: int, steps: int) -> hl.State:
    rng = random.Random(seed)
    st = hl.new_game(players=players, seed=seed, modules=ALL)
    for _ in range(steps):
        if st.is_over:
            break
        st.play(rng.choice(st.legal_moves()))
    return st


def test_json_has_the_guardian_marker_and_skips() -> None:
    st = _legends_state(4, 1, 30)
    d = st.to_json()
    assert d["modules"][-1] == "legends" and set(d["markers"]) == {"red", "green", "guardian"}
    assert d["skips"] == st.skips
    assert hl.from_json(d).to_json() == d


@pytest.mark.parametrize(("players", "change", "why"), [
    (2, lambda d: d["harbor"].append("gigantic-duo"), "not-2p card with 2 players"),
    (2, lambda d: d["markers"].update(guardian=13), "guardian marker off the track"),
    (3, lambda d: d.update(leaders=["tissa", "ulc", "cyra"]), "more Guardian leaders than the pool holds"),
    (3, lambda d: d.update(leaders=["tissa", "ulc", "irafel"]), "a pool of 1 Guardian leader"),
    (2, lambda d: d.update(modules=["core", "kickstarter", "legends", "queens"]), "modules out of order"),
    (2, lambda d: d.update(skips=[5]), "bad skip seat"),
])
def test_from_json_rejects(players: int, change, why: str) -> None:
    st = _legends_state(players, 4, 5)
    d = st.to_json()
    change(d)
    with pytest.raises(hl.StateError):
        hl.from_json(d)


def test_from_json_rejects_legends_parts_without_the_module() -> None:
    d = hl.new_game(players=3, seed=1).to_json()
    d["leaders"][0] = "tissa" if "tissa" not in d["leaders"] else "ulc"
    with pytest.raises(hl.StateError, match="leaders"):
        hl.from_json(d)
    d = hl.new_game(players=3, seed=1).to_json()
    d["markers"]["guardian"] = 1
    with pytest.raises(hl.StateError, match="legends"):
        hl.from_json(d)


@pytest.mark.parametrize(("players", "own_guardian"),
                         [(3, True), (3, False), (2, True), (4, False), (6, True)])
def test_determinize_draws_the_leaders_from_the_exact_posterior(players: int, own_guardian: bool) -> None:
    """§2.2: a fresh pool containing the seat's own leader, the other seats dealt from the rest."""
    a, b = LEADER_POOL[players]
    st = _legends_state(players, 2, 3)
    st.leaders[0] = "tissa" if own_guardian else "lemron"
    rest = [x for x in (*BASE_LEADERS[1:], *GUARDIAN_LEADERS[1:]) if x != st.leaders[0]]
    st.leaders[1:] = rest[:players - 1]
    n = 600
    others = Counter()
    for i in range(n):
        d = st.determinize(0, random.Random(i))
        assert d.leaders[0] == st.leaders[0] and len(set(d.leaders)) == players
        others[sum(1 for x in d.leaders[1:] if x in GUARDIAN_LEADERS)] += 1
    # expected number of Guardian leaders among the other seats: (players-1) * (b - own) / (a + b - 1)
    mean = sum(k * c for k, c in others.items()) / n
    want = (players - 1) * (b - (1 if own_guardian else 0)) / (a + b - 1)
    assert abs(mean - want) < 0.12, (dict(others), want)
    if players == 3 and own_guardian:
        assert others == {0: n}  # the legends example: both other players hold base leaders


def test_determinize_redeals_another_seats_fate_and_keeps_ones_own() -> None:
    from .helpers import run_card

    st = run_card(BEAC, {"modules": ALL, "parties": {1: HULK}}, ["R-1", f"1:{HULK}"])
    st.known = [{}, {}, {}]
    drawn = st.stack[-1]["hid"]
    assert all(st.determinize(0, random.Random(i)).stack[-1]["hid"] == drawn for i in range(5))
    seen = {tuple(st.determinize(1, random.Random(i)).stack[-1]["hid"]) for i in range(40)}
    assert len(seen) > 1 and all(k in FATE_DECK for pair in seen for k in pair)
