"""The registry of games, bots and strength levels: the names `make_bot` and `choose_move` accept."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from throne import games
from throne.ai.base import AIError, Bot, Budget, UnknownBotError, UnknownGameError
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


_BOTS: dict[str, dict[str, BotEntry]] = {}

class _LevelTable(dict):
    """Sets up a game's bots when its levels are first looked up."""

    def __missing__(self, game: str) -> dict[str, str]:
        _bots(game)
        return dict.__getitem__(self, _spec(game).id)


LEVELS: dict[str, dict[str, str]] = _LevelTable()
"""`{game: {level: description}}` for every game whose bots were asked for; the levels are also accepted
wherever a bot name is."""


def register_game(spec: games.GameSpec) -> None:
    """Register a game in `throne.games` (the one registry of games); its bots are set up on first use."""
    games.register(spec)
    _BOTS.pop(spec.id, None)
    LEVELS.pop(spec.id, None)


def _bots(game: str) -> dict[str, BotEntry]:
    """The bots of `game`, set up on first use: `random`, the game's own bots, then every level of its
    spec that has no bot of its own falls back to random moves."""
    spec = _spec(game)
    bots = _BOTS.get(spec.id)
    if bots is None:
        from throne.ai.catalog import register_game_bots
        from throne.ai.random_bot import RandomBot

        bots = _BOTS[spec.id] = {}
        LEVELS[spec.id] = {}
        register_bot(spec.id, "random", RandomBot, "uniformly random legal moves")
        register_game_bots(spec)
        for level in spec.bot_levels:
            if level not in bots:
                register_level(spec.id, level, "random", Budget(), "random legal moves (no dedicated bot)")
    return bots


def _spec(game: str) -> games.GameSpec:
    try:
        return games.get(game)
    except games.UnknownGameError as exc:
        raise UnknownGameError(str(exc)) from None


def register_bot(
    game: str,
    name: str,
    factory: BotFactory,
    description: str,
    *,
    budget: Budget | None = None,
) -> BotEntry:
    """Register (or replace) a bot of `game` under `name`."""
    bots = _BOTS[game] if game in _BOTS else _bots(game)
    entry = BotEntry(name=name, description=description, factory=factory, budget=budget or Budget())
    bots[name] = entry
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
    return list(games.ids())


def game_adapter(game: str, options: dict[str, Any] | None = None) -> GameAdapter:
    """The adapter of a registered game; `options` (validated) apply to the games it deals."""
    spec = _spec(game)
    if options:
        try:
            spec.normalize_options(spec.seats_default, options)
        except games.OptionsError as exc:
            raise AIError(str(exc)) from None
    return GameAdapter(spec, dict(options or {}))


def bot_entry(game: str, name: str) -> BotEntry:
    bots = _bots(game)
    try:
        return bots[name]
    except KeyError:
        known = ", ".join(bots)
        raise UnknownBotError(f"unknown bot or level {name!r} for {game} (known: {known})") from None


def bot_names(game: str) -> list[str]:
    """Every bot and level name accepted for `game`: plain bots first, then the levels."""
    bots = _bots(game)
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
        entry = _bots(game)[name]
        rows.append((name, entry.budget.describe(), entry.description))
    return rows


def default_budget(bot: Any) -> Budget:
    """The budget a built bot uses when none is given."""
    return getattr(bot, "default_budget", Budget())
