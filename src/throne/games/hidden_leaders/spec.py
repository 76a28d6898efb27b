"""Hidden Leaders as a registered game (the contract of `throne.games.api`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import GameSpec, Option
from ..randomness import RNG_VERSION
from . import moves
from .cards import MODULES, THRESHOLDS
from .events import deciding as _deciding
from .events import events as _events
from .events import events_for as _events_for
from .events import reveals as _reveals
from .record import RecordError, record_to_state
from .rules import new_game
from .state import IllegalMoveError, State
from .view import StateError, from_json


def _new(seed: Any, players: int, options: Mapping[str, Any], rng: int | None = None) -> State:
    return new_game(
        players=players,
        seed=seed,
        variant=options.get("variant", "full"),
        modules=tuple(options.get("modules", ("core",))),
        rng=RNG_VERSION if rng is None else rng,
    )


def _check(players: int, options: dict[str, Any]) -> None:
    _new(0, players, options)  # the engine is the judge of which combinations exist


def _dump(state: State) -> dict[str, Any]:
    return state.to_json()


def _blind(state: State, seat: int) -> dict[str, Any]:
    return state.blind(seat).to_json()  # the seat's canonical world: nothing it cannot know


def _public_move(state: State) -> str | None:
    return state.last[1] if state.last else None  # the engine keeps only the public form of a move


SPEC = GameSpec(
    id="hidden-leaders",
    name="Hidden Leaders",
    renderer="hidden-table",
    tutorial="throne.games.hidden_leaders.tutorial",
    players=(2, 3, 4, 5, 6),
    default_players=4,
    new_game=_new,
    from_record=record_to_state,
    illegal_errors=(IllegalMoveError, RecordError, StateError, ValueError),
    options=(
        Option("variant", tuple(THRESHOLDS), "full", help="'basic' ends the game with fewer heroes"),
        Option("modules", MODULES, ("core",), multiple=True, required=("core",), help="card modules"),
    ),
    rating="openskill",
    secret_moves=True,
    perfect_information=False,
    dump=_dump,
    load=from_json,
    public_move=_public_move,
    blind=_blind,
    reveal=_dump,
    check_options=_check,
    events=_events,
    events_for=_events_for,
    reveals=_reveals,
    deciding=_deciding,
    fast_path="throne.games.hidden_leaders.fast",
    move_grammar=moves.grammar,
    warmup=("throne.games.hidden_leaders",),
    notation="docs/hidden-leaders.md §7.1; the forms are throne.games.hidden_leaders.moves (move_grammar)",
)
