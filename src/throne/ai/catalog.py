"""The game-specific bots and strength levels of `throne.ai`, registered when a game's bots are first used.

Every registered game gets `random` and one bot per level of its spec without further code; the games
below also get dedicated bots. Factories import the game-specific modules only when a bot is built, so
importing `throne.ai` stays cheap.
"""

from __future__ import annotations

from typing import Any

from throne.ai.base import Budget
from throne.ai.registry import register_bot, register_level
from throne.games import GameSpec


def _blind_to_the_deck(bot: Any, seed: int) -> Any:
    """A Leaders searcher that plays in a world with the unseen deck dealt again from its own generator."""
    from throne.ai.worlds import SampledWorldBot
    from throne.games.leaders.fast import redeal

    return SampledWorldBot(bot, redeal, seed)


def leaders_greedy(seed: int = 0, budget: Budget | None = None, name: str = "greedy") -> Any:
    from throne.ai.greedy import GreedyBot
    from throne.ai.leaders_eval import OPS

    return _blind_to_the_deck(GreedyBot(seed, budget, name, ops=OPS), seed)


def leaders_mcts(seed: int = 0, budget: Budget | None = None, name: str = "mcts") -> Any:
    from throne.ai.leaders_eval import OPS
    from throne.ai.mcts import MctsBot

    return _blind_to_the_deck(MctsBot(seed, budget, name, ops=OPS), seed)


def leaders_alphabeta(seed: int = 0, budget: Budget | None = None, name: str = "alphabeta") -> Any:
    from throne.ai.alphabeta import AlphaBetaBot
    from throne.ai.leaders_eval import OPS

    return _blind_to_the_deck(AlphaBetaBot(seed, budget, name, ops=OPS), seed)


def leaders_turns(seed: int = 0, budget: Budget | None = None, name: str = "turns") -> Any:
    from throne.ai.alphabeta import TurnSearchBot
    from throne.ai.leaders_eval import OPS

    return _blind_to_the_deck(TurnSearchBot(seed, budget, name, ops=OPS, diverse=True), seed)


def leaders_quickturns(seed: int = 0, budget: Budget | None = None, name: str = "quickturns") -> Any:
    from throne.ai.alphabeta import TurnSearchBot
    from throne.ai.leaders_eval import OPS

    return _blind_to_the_deck(TurnSearchBot(seed, budget, name, ops=OPS), seed)


def hidden_greedy(seed: int = 0, budget: Budget | None = None, name: str = "greedy") -> Any:
    from throne.ai.ismcts import DeterminizedGreedyBot

    return DeterminizedGreedyBot(seed, budget, name)


def hidden_ismcts(seed: int = 0, budget: Budget | None = None, name: str = "ismcts") -> Any:
    from throne.ai.ismcts import IsmctsBot

    return IsmctsBot(seed, budget, name)


def _register_leaders(game: str) -> None:
    register_bot(game, "greedy", leaders_greedy, "one action ahead with the Leaders heuristic")
    register_bot(
        game,
        "mcts",
        leaders_mcts,
        "UCT over single actions, heuristic leaves, transpositions",
        budget=Budget(iterations=2000),
    )
    register_bot(
        game,
        "alphabeta",
        leaders_alphabeta,
        "iterative-deepening alpha-beta over single actions",
        budget=Budget(iterations=20000),
    )
    register_bot(
        game,
        "turns",
        leaders_turns,
        "alpha-beta over whole turns; candidates: the best turn for every first action",
        budget=Budget(iterations=12000),
    )
    register_bot(
        game,
        "quickturns",
        leaders_quickturns,
        "alpha-beta over whole turns; candidates: the few best turns of one beam",
        budget=Budget(iterations=2000),
    )
    register_level(game, "easy", "greedy", Budget(), "greedy: one action ahead")
    register_level(
        game, "medium", "quickturns", Budget(iterations=2000), "narrow whole-turn search, 2,000 evaluations"
    )
    register_level(game, "hard", "turns", Budget(iterations=12000), "whole-turn search, 12,000 evaluations")


def _register_hidden_leaders(game: str) -> None:
    register_bot(
        game,
        "greedy",
        hidden_greedy,
        "one decision ahead, averaged over sampled worlds (iterations = worlds)",
        budget=Budget(iterations=8),
    )
    register_bot(
        game,
        "ismcts",
        hidden_ismcts,
        "single-observer information-set MCTS over determinized worlds",
        budget=Budget(iterations=300),
    )
    register_level(game, "easy", "greedy", Budget(iterations=4), "greedy over 4 sampled worlds")
    register_level(game, "medium", "ismcts", Budget(iterations=60), "ISMCTS, 60 iterations")
    register_level(game, "hard", "ismcts", Budget(iterations=300), "ISMCTS, 300 iterations")


_DEDICATED = {"leaders": _register_leaders, "hidden-leaders": _register_hidden_leaders}


def register_game_bots(spec: GameSpec) -> None:
    """Register the dedicated bots and levels of `spec`'s game, if it has any."""
    register = _DEDICATED.get(spec.id)
    if register is not None:
        register(spec.id)
