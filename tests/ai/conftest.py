from __future__ import annotations

from collections.abc import Iterator

import pytest

from throne import ai
from throne.ai.base import Budget
from throne.ai.mcts import MctsBot
from throne.ai.random_bot import RandomBot

from .toy import NIM, TICTACTOE
from .toy_bots import CrashingBot, ExitingBot, IllegalBot, SleepingBot


@pytest.fixture(scope="session", autouse=True)
def toy_games() -> Iterator[None]:
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
