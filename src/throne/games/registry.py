"""The registry of games: the only place that lists them.

`get(id)` and `all()` load the built-in games on first use; `register(spec)` adds one more (a plug-in or a
test game) and `unregister(id)` removes it again.
"""

from __future__ import annotations

import importlib
import threading

from .api import GameSpec, UnknownGameError

BUILTIN = ("throne.games.leaders.spec", "throne.games.hidden_leaders.spec")
"""Modules whose `SPEC` is registered on first use, in this order."""

_SPECS: dict[str, GameSpec] = {}
_LOCK = threading.Lock()
_loaded = False


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    with _LOCK:
        if _loaded:
            return
        for name in BUILTIN:
            spec = importlib.import_module(name).SPEC
            _SPECS.setdefault(spec.id, spec)
        _loaded = True


def register(spec: GameSpec) -> GameSpec:
    """Add (or replace) a game."""
    _load_builtins()
    _SPECS[spec.id] = spec
    return spec


def unregister(game_id: str) -> None:
    _load_builtins()
    _SPECS.pop(game_id, None)


def get(game_id: str) -> GameSpec:
    """The spec of a game; raises UnknownGameError (a ValueError) for an unknown id."""
    _load_builtins()
    try:
        return _SPECS[game_id]
    except (KeyError, TypeError):
        shown = game_id if isinstance(game_id, str) and len(game_id) <= 40 else "?"
        raise UnknownGameError(f"unknown game {shown!r} (known: {', '.join(_SPECS)})") from None


def all() -> tuple[GameSpec, ...]:
    """Every registered game, built-in games first."""
    _load_builtins()
    return tuple(_SPECS.values())


def ids() -> tuple[str, ...]:
    return tuple(spec.id for spec in all())
