"""How `throne.ai` creates, ships and rebuilds the states of each game (engines imported only when used)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GameAdapter:
    """What the framework needs to know about one game; the functions must be module-level (picklable).

    `dump` turns a state into plain data that crosses a process boundary and `load` rebuilds the state from
    it. `blind(state, seat)` is what a bot of `seat` is sent instead: only what that seat may know (Leaders:
    the record with the unseen deck in sorted order; Hidden Leaders: the seat's canonical world), so a bot
    worker never holds a secret. Games without hidden information leave it out (the full dump is sent).
    """

    name: str
    players: tuple[int, ...]
    new_game: Callable[..., Any]
    """``new_game(seed, players, **options)``: a deal; ``options`` are the game's own (e.g. ``modules``)."""
    dump: Callable[[Any], Any]
    load: Callable[[Any], Any]
    record: Callable[[Any], dict]
    warmup: tuple[str, ...] = ()
    blind: Callable[[Any, int], Any] | None = None

    def payload_for(self, state: Any, seat: int) -> Any:
        """What a bot of `seat` receives: `blind(state, seat)`, or the full dump of a game without secrets."""
        return self.dump(state) if self.blind is None else self.blind(state, seat)

    @property
    def default_players(self) -> int:
        return 4 if 4 in self.players else self.players[0]


def _leaders_new(seed: int, players: int) -> Any:
    from throne.games import leaders

    return leaders.new_game(seed=seed)


def _leaders_dump(state: Any) -> dict:
    # The record (start position + moves) keeps the history the repetition rule needs.
    return state.record()


def _leaders_load(record: dict) -> Any:
    from throne.games import leaders

    return leaders.record_to_state(record)


def _leaders_blind(state: Any, seat: int) -> dict:
    from throne.games import leaders

    return leaders.blind_record(state)


def _record(state: Any) -> dict:
    return state.record()


def _hidden_new(seed: int, players: int, **options: Any) -> Any:
    from throne.games import hidden_leaders

    return hidden_leaders.new_game(players=players, seed=seed, **options)


def _hidden_dump(state: Any) -> dict:
    return state.to_json()


def _hidden_blind(state: Any, seat: int) -> dict:
    return state.blind(seat).to_json()


def _hidden_load(data: dict) -> Any:
    from throne.games import hidden_leaders

    return hidden_leaders.from_json(data)


LEADERS = GameAdapter(
    name="leaders",
    players=(2,),
    new_game=_leaders_new,
    dump=_leaders_dump,
    load=_leaders_load,
    record=_record,
    warmup=("throne.games.leaders",),
    blind=_leaders_blind,
)

HIDDEN_LEADERS = GameAdapter(
    name="hidden-leaders",
    players=(2, 3, 4, 5, 6),
    new_game=_hidden_new,
    dump=_hidden_dump,
    load=_hidden_load,
    record=_record,
    warmup=("throne.games.hidden_leaders",),
    blind=_hidden_blind,
)
