"""Leaders as a registered game (the contract of `throne.games.api`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import GameSpec, Option
from ..randomness import RNG_VERSION
from . import events as _ev
from .errors import IllegalMoveError, LeadersError
from .hidden import blind_record
from .record import record_to_state
from .state import MODES, State, new_game


def _new(seed: Any, players: int, options: Mapping[str, Any], rng: int | None = None) -> State:
    mode = options.get("mode", "discovery")
    return new_game(seed=seed, mode=mode, rng=RNG_VERSION if rng is None else rng)


def _blind(state: State, seat: int) -> dict[str, Any]:
    return blind_record(state)  # the deck order is the only secret, and no seat knows it


def _events(
    before: State, move: str, after: State, seat: int | None, reveal: bool = False
) -> list[dict[str, Any]]:
    return _ev.events(before, move, after)  # nothing of a move is secret: every seat sees the same


def _public_move(state: State) -> str | None:
    return state.last_move  # Leaders hides only the deck order, never a move


SPEC = GameSpec(
    id="leaders",
    name="Leaders",
    renderer="leaders-table",
    tutorial="throne.games.leaders.tutorial",
    players=(2,),
    new_game=_new,
    from_record=record_to_state,
    illegal_errors=(IllegalMoveError, LeadersError, ValueError),
    options=(
        Option("mode", MODES, "discovery", help="'discovery': the 3-card market; 'strategist': banishments"),
    ),
    rating="glicko2",
    seat_names=("south", "north"),
    secret_moves=False,
    perfect_information=True,
    shared_view=True,  # State.view ignores the seat and every seat gets the same events
    public_move=_public_move,
    blind=_blind,
    events=_events,
    reveals=_ev.reveals,
    fast_path="throne.games.leaders.fast",
    warmup=("throne.games.leaders",),
    notation="docs/leaders.md: moves like 'd1-d2', 'c3:c4>c5', '+RI@a1', 'end', 'ban NE'",
)
