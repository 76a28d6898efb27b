"""The built-in games, bots and strength levels of `throne.ai`."""

from __future__ import annotations

from throne.ai.base import Budget
from throne.ai.games import HIDDEN_LEADERS, LEADERS
from throne.ai.random_bot import RandomBot
from throne.ai.registry import register_bot, register_game, register_level


def register_builtins() -> None:
    for adapter in (LEADERS, HIDDEN_LEADERS):
        register_game(adapter)
        register_bot(adapter.name, "random", RandomBot, "uniformly random legal moves")
    for game in (LEADERS.name, HIDDEN_LEADERS.name):
        register_level(game, "easy", "random", Budget(), "random legal moves")
        register_level(game, "medium", "random", Budget(), "random legal moves")
        register_level(game, "hard", "random", Budget(), "random legal moves")
