"""Test-only bots that misbehave on purpose (module-level, so worker processes can import them)."""

from __future__ import annotations

import time
from typing import Any

from throne.ai.base import Budget


class CrashingBot:
    def __init__(self, seed: int = 0, budget: Budget | None = None, name: str = "crash") -> None:
        self.name = name

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        raise RuntimeError("this bot always fails")


class SleepingBot:
    def __init__(self, seed: int = 0, budget: Budget | None = None, name: str = "sleep") -> None:
        self.name = name

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        time.sleep(60)
        return state.legal_moves()[0]


class IllegalBot:
    def __init__(self, seed: int = 0, budget: Budget | None = None, name: str = "illegal") -> None:
        self.name = name

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        return "not-a-move"


class ExitingBot:
    """Kills its own process, as a segfaulting extension would."""

    def __init__(self, seed: int = 0, budget: Budget | None = None, name: str = "exit") -> None:
        self.name = name

    def choose(self, state: Any, seat: int, budget: Budget | None = None) -> str:
        import os

        os._exit(3)
