"""Hidden Leaders bots: legal moves for every player count, and no peeking at secrets."""

from __future__ import annotations

import random

import pytest

from throne import ai
from throne.ai.base import Budget
from throne.ai.hidden_eval import evaluate, faction_odds

from .positions import hidden_positions

FACTIONS = ("hill-tribes", "imperial-army", "water-folk", "undead")

GAME = "hidden-leaders"
SMALL = Budget(iterations=6)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", ai.bot_names(GAME))
def test_every_bot_plays_legal_moves(name: str, players: int) -> None:
    for i, state in enumerate(hidden_positions(players, 4, seed=players * 100)):
        before = state.to_json()
        seat = state.to_play
        move = ai.make_bot(GAME, name, seed=i).choose(state, seat, SMALL)
        assert move in state.legal_moves()
        assert state.to_json() == before


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", ["greedy", "ismcts"])
def test_bots_cannot_see_secrets(name: str, players: int) -> None:
    # the same information set: the real game, and a world redealt from what the seat to play knows
    for i, state in enumerate(hidden_positions(players, 3, seed=players * 7 + 1)):
        seat = state.to_play
        other = state.determinize(seat, random.Random(1000 + i))
        assert other.view(seat) == state.view(seat)
        budget = Budget(iterations=12)
        mine = ai.make_bot(GAME, name, seed=i).choose(state, seat, budget)
        theirs = ai.make_bot(GAME, name, seed=i).choose(other, seat, budget)
        assert mine == theirs


@pytest.mark.parametrize(
    ("red", "green", "faction"),
    [(10, 11, "undead"), (5, 5, "water-folk"), (8, 3, "imperial-army"), (2, 6, "hill-tribes")],
)
def test_faction_odds_follow_the_winning_rules(red: int, green: int, faction: str) -> None:
    exact = dict(zip(FACTIONS, faction_odds(red, green, 0), strict=True))
    assert exact[faction] == 1.0
    blurred = dict(zip(FACTIONS, faction_odds(red, green, 20), strict=True))
    assert max(blurred, key=blurred.__getitem__) == faction
    assert sum(blurred.values()) == pytest.approx(1.0)


def test_evaluation_is_a_win_chance_per_seat() -> None:
    for state in hidden_positions(4, 5, seed=77):
        values = evaluate(state)
        assert len(values) == 4
        assert all(0.0 <= v <= 1.0 for v in values)
        assert sum(values) <= 1.0 + 1e-9


@pytest.mark.parametrize(
    ("red", "green", "guardian", "faction"),
    [(9, 9, 10, "guardians"), (11, 12, 12, "undead"), (4, 5, 6, "guardians"), (7, 3, 7, "imperial-army")],
)
def test_faction_odds_with_a_seated_guardian_leader(red: int, green: int, guardian: int,
                                                    faction: str) -> None:
    """legends §3.1: the Guardians first, strictly ahead of both markers."""
    names = (*FACTIONS, "guardians")
    exact = dict(zip(names, faction_odds(red, green, 0, guardian), strict=True))
    assert exact[faction] == 1.0
    blurred = faction_odds(red, green, 20, guardian, 30)
    assert len(blurred) == 5 and sum(blurred) == pytest.approx(1.0)
    assert faction_odds(4, 4, 20, 1, 80)[4] > faction_odds(4, 4, 20, 1, 0)[4]  # the drift raises the chance


def test_the_heuristic_knows_the_guardians() -> None:
    """A Guardian leader's seat is favoured when the Guardian marker leads near the end; without a seated
    Guardian leader the marker is ignored."""
    from throne.games import hidden_leaders as hl
    from throne.games.hidden_leaders.cards import MODULE_CARDS

    st = hl.new_game(players=3, seed=5, modules=("core", "legends"))
    st.phase, st.leaders = "action", ["tissa", "cyra", "lemron"]
    st.red, st.green, st.guardian = 6, 4, 12
    st.parties = [[(c, True) for c in MODULE_CARDS["core"][:6]], [], []]  # one play from the end
    ahead = evaluate(st)
    assert ahead[0] > 0.6 > ahead[1]
    st.guardian = 1  # the Imperials win instead: Tissa shares them with Cyra
    behind = evaluate(st)
    assert behind[0] < ahead[0] and behind[1] > ahead[1]
    st.leaders = ["pavyr", "cyra", "lemron"]
    low = evaluate(st)
    st.guardian = 12
    assert evaluate(st) == low


def test_arena_with_the_legends_module() -> None:
    from throne.scaleout import arena

    report = arena.run_arena(GAME, "random", "random", games=2, players=3, seed=1,
                             options={"modules": ["core", "legends"]})
    assert report["games"] == 2 and report["options"] == {"modules": ["core", "legends"]}
    assert "modules core,legends" in arena.format_report(report)
