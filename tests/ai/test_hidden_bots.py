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
