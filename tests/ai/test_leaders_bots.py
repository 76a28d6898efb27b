"""Leaders bots: legal moves everywhere, immediate wins found, determinism, the state left untouched."""

from __future__ import annotations

import pytest

from throne import ai
from throne.ai.base import Budget

from .positions import leaders_positions, winning_positions

GAME = "leaders"
SMALL = Budget(iterations=40)


@pytest.mark.parametrize("name", ai.bot_names(GAME))
def test_every_bot_plays_legal_moves(name: str) -> None:
    for i, state in enumerate(leaders_positions(12, seed=10)):
        before = state.position()
        seat = state.to_play
        move = ai.make_bot(GAME, name, seed=i).choose(state, seat, SMALL)
        assert move in state.legal_moves()
        assert state.position() == before


@pytest.mark.parametrize(
    ("name", "budget"),
    [
        ("greedy", Budget()),
        ("mcts", Budget(iterations=300)),
        ("alphabeta", Budget(iterations=3000)),
        ("turns", Budget(iterations=3000)),
    ],
)
def test_bots_take_an_immediate_capture(name: str, budget: Budget) -> None:
    for state, wins in winning_positions(4):
        assert ai.make_bot(GAME, name, seed=3).choose(state, state.to_play, budget) in wins


@pytest.mark.parametrize("name", ["mcts", "alphabeta", "turns", "medium"])
def test_search_is_deterministic(name: str) -> None:
    state = leaders_positions(1, seed=42, max_moves=30)[0]
    budget = Budget(iterations=400)
    moves = {ai.make_bot(GAME, name, seed=8).choose(state, state.to_play, budget) for _ in range(2)}
    assert len(moves) == 1


def test_bot_refuses_the_wrong_seat() -> None:
    state = leaders_positions(1, seed=3)[0]
    with pytest.raises(ai.NotToPlayError):
        ai.make_bot(GAME, "greedy").choose(state, 1 - state.to_play)


def test_whole_turn_search_follows_its_plan() -> None:
    from throne.ai.alphabeta import TurnSearchBot

    for state in leaders_positions(6, seed=60, max_moves=40):
        bot = ai.make_bot(GAME, "turns", seed=2)
        assert isinstance(bot.inner, TurnSearchBot)  # searching worlds with the unseen deck redealt
        seat = state.to_play
        first = bot.choose(state, seat, Budget(iterations=6000))
        plan = [move for _, move in bot._plan]
        if not plan or state.phase != "action":
            continue
        state.play(first)
        searched = bot.last_iterations
        assert state.move_to_action(bot.choose(state, seat)) == plan[0]
        assert bot.last_iterations == searched  # no new search
        return
    raise AssertionError("no position with a plan of two or more actions")


@pytest.mark.parametrize("name", ai.bot_names(GAME))
def test_every_bot_plays_a_strategist_game(name: str) -> None:
    """Strategist mode: banishments (each its own turn for the whole-turn search) and open recruitment."""
    from throne.games import leaders

    state = leaders.new_game(mode="strategist")
    bots = [ai.make_bot(GAME, name, seed=1), ai.make_bot(GAME, "greedy", seed=2)]
    for _ in range(400):
        if state.is_over:
            break
        move = bots[state.to_play].choose(state, state.to_play, SMALL)
        assert move in state.legal_moves()
        state.play(move)
    assert state.is_over
    assert sum(1 for m in state.record()["moves"] if m.startswith("ban ")) >= 2
