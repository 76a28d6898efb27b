"""Many random games for every player count, module set and variant: they end, never crash, replay exactly."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.cards import NOT_2P, deck_cards

from .test_information import MODULE_IDS, MODULE_SETS


def all_cards(st: hl.State) -> Counter:
    d = st.to_json()
    cards = [c for h in d["hands"] for c in h] + [e["card"] for p in d["parties"] for e in p]
    cards += [c for c in d["tavern"] if c] + d["harbor"] + d["wilderness"] + d["graveyard"]
    return Counter(cards)


@pytest.mark.parametrize("variant", ["full", "basic"])
@pytest.mark.parametrize("modules", MODULE_SETS, ids=MODULE_IDS)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_end_with_a_result(players: int, modules: tuple[str, ...], variant: str) -> None:
    expected = Counter([hl.EMPEROR, *(c for c in hl.CARDS if hl.CARDS[c].module in modules and c != hl.EMPEROR
                                      and (players > 2 or c not in NOT_2P))])
    for g in range(3):
        seed = 1000 * players + 10 * g + len(modules)
        rng = random.Random(seed)
        st = hl.new_game(players=players, seed=seed, modules=modules, variant=variant)
        for _ in range(5000):
            if st.is_over:
                break
            st.play(rng.choice(st.legal_moves()))
        assert st.is_over
        assert all_cards(st) == expected
        ups = max(sum(u for _, u in p) for p in st.parties)
        assert ups >= hl.THRESHOLDS[variant][players]
        rec = st.record()
        assert rec["result"] == {"faction": st.winning_faction, "winner": st.winner}
        assert hl.record_to_state(rec).to_json() == st.to_json()
        scores = st.scores()
        assert sum(r["winner"] for r in scores) == (0 if st.winner is None else 1)


def _core(st: hl.State) -> dict:
    d = st.to_json()
    for key in ("known", "history", "last"):
        d.pop(key)
    return d


@pytest.mark.parametrize("players", [2, 4, 6])
def test_random_step_only_takes_legal_moves(players: int) -> None:
    from throne.games.hidden_leaders.playout import random_step

    st = hl.new_game(players=players, seed=players, modules=("core", "kickstarter", "queens", "legends"))
    rng = random.Random(players)
    steps = 0
    while not st.is_over and steps < 400:
        outcomes = []
        for m in st.legal_moves():
            c = st.clone()
            c.play(m)
            outcomes.append(_core(c))
        fast = st.clone()
        random_step(fast, rng)
        assert _core(fast) in outcomes
        st.play(rng.choice(st.legal_moves()))
        steps += 1


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_playout_ends_games(players: int) -> None:
    for seed in range(5):
        st = hl.new_game(players=players, seed=seed, modules=MODULE_SETS[seed % len(MODULE_SETS)]).clone(
            track=False)
        n = hl.random_playout(st, random.Random(seed))
        assert st.is_over and n > 0 and st.winning_faction is not None


OPTIONAL = ("kickstarter", "queens", "legends")
MIXES = [("core", *extra) for n in range(4) for extra in combinations(OPTIONAL, n)]


@pytest.mark.parametrize("modules", MIXES, ids=["+".join(m) for m in MIXES])
def test_every_module_mix_ends_and_replays(modules: tuple[str, ...]) -> None:
    """Every combination of the optional modules, 2–6 players: a random game ends, keeps every card and
    replays exactly from its record."""
    for players in range(2, 7):
        seed = 7 * players + len(modules)
        rng = random.Random(seed)
        st = hl.new_game(players=players, seed=seed, modules=modules)
        while not st.is_over:
            st.play(rng.choice(st.legal_moves()))
        assert sum(all_cards(st).values()) == 1 + len(deck_cards(modules, players))
        assert hl.record_to_state(st.record()).to_json() == st.to_json()
        assert ("guardian" in st.to_json()["markers"]) == ("legends" in modules)
