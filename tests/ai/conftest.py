from __future__ import annotations

from collections.abc import Iterator

import pytest

from throne import ai, games
from throne.ai.base import Budget
from throne.ai.mcts import MctsBot
from throne.ai.random_bot import RandomBot

from .toy import NIM, TICTACTOE
from .toy_bots import CrashingBot, ExitingBot, IllegalBot, SleepingBot


@pytest.fixture(scope="package", autouse=True)
def toy_games() -> Iterator[None]:
    """The toy games of these tests, registered while they run: the tests of other packages see only the real
    games (`throne serve` checks its take-over bot against every registered game)."""
    for spec in (TICTACTOE, NIM):
        ai.register_game(spec)
        ai.register_bot(spec.id, "random", RandomBot, "uniformly random legal moves")
        ai.register_bot(spec.id, "mcts-test", MctsBot, "small MCTS", budget=Budget(iterations=50))
        for name, factory in (
            ("crash", CrashingBot),
            ("sleep", SleepingBot),
            ("illegal", IllegalBot),
            ("exit", ExitingBot),
        ):
            ai.register_bot(spec.id, name, factory, f"test bot: {name}")
    yield
    ai.shutdown()
    for spec in (TICTACTOE, NIM):
        games.unregister(spec.id)
