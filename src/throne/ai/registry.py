"""The registry of games, bots and strength levels: the names `make_bot` and `choose_move` accept."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from throne.ai.base import Bot, Budget, UnknownBotError, UnknownGameError
from throne.ai.games import GameAdapter

BotFactory = Callable[..., Bot]
"""Called as `factory(seed=..., budget=..., name=...)`; must be picklable (module-level, or a partial)."""


@dataclass(frozen=True)
class BotEntry:
    """A named way to build a bot for one game, with the budget it uses by default."""

    name: str
    description: str
    factory: BotFactory
    budget: Budget = field(default_factory=Budget)
    level: bool = False

    def build(self, seed: int = 0) -> Bot:
        return self.factory(seed=seed, budget=self.budget, name=self.name)


_GAMES: dict[str, GameAdapter] = {}
_BOTS: dict[str, dict[str, BotEntry]] = {}

LEVELS: dict[str, dict[str, str]] = {}
"""`{game: {level: description}}` for every game; the levels are also accepted wherever a bot name is."""


def register_game(adapter: GameAdapter) -> None:
    _GAMES[adapter.name] = adapter
    _BOTS.setdefault(adapter.name, {})
    LEVELS.setdefault(adapter.name, {})


def register_bot(
    game: str,
    name: str,
    factory: BotFactory,
    description: str,
    *,
    budget: Budget | None = None,
) -> BotEntry:
    """Register (or replace) a bot of `game` under `name`."""
    game_adapter(game)
    entry = BotEntry(name=name, description=description, factory=factory, budget=budget or Budget())
    _BOTS[game][name] = entry
    return entry


def register_level(game: str, level: str, bot: str, budget: Budget, description: str) -> BotEntry:
    """Register a strength level: the bot `bot` of `game` with a fixed budget."""
    base = bot_entry(game, bot)
    entry = BotEntry(name=level, description=description, factory=base.factory, budget=budget, level=True)
    _BOTS[game][level] = entry
    LEVELS[game][level] = description
    return entry


def unregister_bot(game: str, name: str) -> None:
    """Forget a bot or level (used by tests that register throwaway bots)."""
    bots = _BOTS.get(game, {})
    if bots.pop(name, None) is not None:
        LEVELS.get(game, {}).pop(name, None)


def game_names() -> list[str]:
    return list(_GAMES)


def game_adapter(game: str) -> GameAdapter:
    try:
        return _GAMES[game]
    except KeyError:
        raise UnknownGameError(f"unknown game {game!r} (known: {', '.join(_GAMES)})") from None


def bot_entry(game: str, name: str) -> BotEntry:
    bots = _BOTS[game_adapter(game).name]
    try:
        return bots[name]
    except KeyError:
        known = ", ".join(bots)
        raise UnknownBotError(f"unknown bot or level {name!r} for {game} (known: {known})") from None


def bot_names(game: str) -> list[str]:
    """Every bot and level name accepted for `game`: plain bots first, then the levels."""
    bots = _BOTS[game_adapter(game).name]
    return [n for n, e in bots.items() if not e.level] + [n for n, e in bots.items() if e.level]


def seat_state(game: str, state: Any, seat: int) -> Any:
    """What a bot of `seat` may search: the state rebuilt from only what that seat knows (no secrets)."""
    adapter = game_adapter(game)
    return adapter.load(adapter.payload_for(state, seat))


def make_bot(game: str, name_or_level: str, *, seed: int = 0) -> Bot:
    """A fresh bot; for a level it carries the level's budget as its default."""
    return bot_entry(game, name_or_level).build(seed)


def describe(game: str) -> list[tuple[str, str, str]]:
    """(name, budget, description) rows for listings."""
    rows = []
    for name in bot_names(game):
        entry = _BOTS[game][name]
        rows.append((name, entry.budget.describe(), entry.description))
    return rows


def default_budget(bot: Any) -> Budget:
    """The budget a built bot uses when none is given."""
    return getattr(bot, "default_budget", Budget())
