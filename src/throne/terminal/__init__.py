"""Terminal front ends: play and replay in a text console.

Games with a dedicated front end are listed in `FRONT_ENDS`; every other registered game is played through
`throne.terminal.generic`, which needs nothing but the game contract.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from typing import Any

from throne.games import GameSpec


def bot_rng() -> random.Random:
    """The generator of the bots' own seeds: fresh entropy, unrelated to the game's secret."""
    return random.Random(secrets.randbits(128))


def _leaders_play(spec: GameSpec, **kw: Any) -> None:
    from throne.terminal import leaders

    leaders.play(opponent=kw["opponent"], side=kw["side"], seed=kw["seed"], mode=kw["options"]["mode"])


def _leaders_replay(spec: GameSpec, record: dict[str, Any]) -> None:
    from throne.terminal import leaders

    leaders.replay(record)


def _hidden_play(spec: GameSpec, **kw: Any) -> None:
    from throne.terminal import hidden_leaders

    options = kw["options"]
    hidden_leaders.play(
        players=kw["players"],
        seat=kw["seat"],
        opponent=kw["opponent"],
        modules=tuple(options["modules"]),
        variant=options["variant"],
        seed=kw["seed"],
    )


def _hidden_replay(spec: GameSpec, record: dict[str, Any]) -> None:
    from throne.terminal import hidden_leaders

    hidden_leaders.replay(record)


FRONT_ENDS: dict[str, tuple[Callable[..., None], Callable[[GameSpec, dict[str, Any]], None]]] = {
    "leaders": (_leaders_play, _leaders_replay),
    "hidden-leaders": (_hidden_play, _hidden_replay),
}
"""`{game id: (play, replay)}` for the games with a front end of their own."""


def play(
    spec: GameSpec,
    *,
    opponent: str,
    seat: int,
    players: int,
    options: dict[str, Any],
    seed: int | None,
    side: str = "S",
) -> None:
    """Play `spec`'s game in the terminal (options already normalized)."""
    dedicated = FRONT_ENDS.get(spec.id)
    kw = {"opponent": opponent, "seat": seat, "players": players, "options": options, "seed": seed}
    if dedicated is not None:
        dedicated[0](spec, side=side, **kw)
        return
    from throne.terminal import generic

    generic.play(spec, **kw)


def replay(spec: GameSpec, record: dict[str, Any]) -> None:
    dedicated = FRONT_ENDS.get(spec.id)
    if dedicated is not None:
        dedicated[1](spec, record)
        return
    from throne.terminal import generic

    generic.replay(spec, record)
