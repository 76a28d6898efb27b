"""The generic searchers on the toy games: they find wins, avoid losses and leave the state untouched."""

from __future__ import annotations

from functools import partial

import pytest

from throne.ai.alphabeta import AlphaBetaBot
from throne.ai.base import Budget
from throne.ai.greedy import GreedyBot
from throne.ai.mcts import MctsBot
from throne.ai.random_bot import RandomBot

from .toy import Nim, TicTacToe

SEARCHERS = {
    "mcts": partial(MctsBot, budget=Budget(iterations=600)),
    "mcts-rollout": partial(MctsBot, budget=Budget(iterations=2000), rollout=12, transpositions=False),
    "alphabeta": partial(AlphaBetaBot, budget=Budget(iterations=8000)),
}


def ttt(*moves: str) -> TicTacToe:
    state = TicTacToe()
    for move in moves:
        state.play(move)
    return state


@pytest.mark.parametrize("bot", sorted(SEARCHERS))
@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        (("a1", "a2", "b1", "b2"), "c1"),  # X completes the bottom row
        (("a1", "b2", "c3", "a3", "b1"), "c1"),  # O must block the bottom row... and wins nothing else
        (("a1", "a2", "b2"), "c3"),  # O blocks the diagonal
    ],
)
def test_tictactoe_tactics(bot: str, moves: tuple[str, ...], expected: str) -> None:
    state = ttt(*moves)
    before = state.to_json()
    assert SEARCHERS[bot](seed=1).choose(state, state.to_play) == expected
    assert state.to_json() == before


@pytest.mark.parametrize("bot", sorted(SEARCHERS))
@pytest.mark.parametrize(
    ("heaps", "winning"),
    [([1, 4], {"0:1", "1:3"}), ([2, 5, 4], {"0:1", "1:3", "2:1"}), ([3], {"0:3"}), ([6, 1], {"0:1"})],
)
def test_nim_takes_a_winning_move(bot: str, heaps: list[int], winning: set[str]) -> None:
    # two-seat Nim taking 1-3: the seat to play loses exactly when the heap sizes modulo 4 xor to zero
    assert SEARCHERS[bot](seed=2).choose(Nim(heaps), 0) in winning


@pytest.mark.parametrize("bot", sorted(SEARCHERS))
def test_searchers_never_lose_tictactoe_to_random(bot: str) -> None:
    for game in range(2):
        state = TicTacToe()
        me = game % 2
        players = {me: SEARCHERS[bot](seed=game), 1 - me: RandomBot(seed=game)}
        while not state.is_over:
            state.play(players[state.to_play].choose(state, state.to_play))
        assert state.winner in (me, None)


def test_search_is_deterministic_for_a_seed() -> None:
    state = Nim([3, 5, 6], players=3)
    for bot in SEARCHERS.values():
        assert len({bot(seed=7).choose(state, 0) for _ in range(2)}) == 1


def test_greedy_without_heuristic_takes_an_immediate_win() -> None:
    assert GreedyBot(seed=0).choose(ttt("a1", "a2", "b1", "b2"), 0) == "c1"
