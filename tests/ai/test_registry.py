"""Names, levels and budgets."""

from __future__ import annotations

import pytest

from throne import ai
from throne.ai.base import Budget, BudgetError

from .toy import TicTacToe


@pytest.mark.parametrize("game", ["leaders", "hidden-leaders"])
def test_every_game_has_the_three_levels(game: str) -> None:
    assert list(ai.LEVELS[game]) == ["easy", "medium", "hard"]
    names = ai.bot_names(game)
    assert "random" in names
    assert names[-3:] == ["easy", "medium", "hard"]
    for name in names:
        assert ai.make_bot(game, name, seed=1).name == name


@pytest.mark.parametrize(
    ("game", "name", "error"),
    [("go", "random", ai.UnknownGameError), ("leaders", "stockfish", ai.UnknownBotError)],
)
def test_unknown_names(game: str, name: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        ai.make_bot(game, name)


@pytest.mark.parametrize(
    ("kwargs", "ok"),
    [
        ({"iterations": 1}, True),
        ({"seconds": 0.1}, True),
        ({"iterations": 0}, False),
        ({"seconds": -1}, False),
    ],
)
def test_budget_limits_are_checked(kwargs: dict, ok: bool) -> None:
    if ok:
        assert not Budget(**kwargs).unlimited
    else:
        with pytest.raises(BudgetError):
            Budget(**kwargs)


def test_budget_clock_counts_iterations_and_caps_time() -> None:
    clock = Budget(iterations=3).clock()
    assert [clock.tick() for _ in range(5)] == [True, True, True, False, False]
    assert Budget(iterations=5).capped(2.0) == Budget(iterations=5, seconds=2.0)
    assert Budget(seconds=1.0).capped(2.0) == Budget(seconds=1.0)


def test_random_bot_is_deterministic_and_legal() -> None:
    state = TicTacToe()
    a = [ai.make_bot("tictactoe", "random", seed=4).choose(state, 0) for _ in range(3)]
    assert len(set(a)) == 1 and a[0] in state.legal_moves()
    with pytest.raises(ai.NotToPlayError):
        ai.make_bot("tictactoe", "random").choose(state, 1)
