"""How `throne.ai` creates, ships and rebuilds the states of a registered game (through its `GameSpec`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from throne.games import GameSpec


@dataclass(frozen=True)
class GameAdapter:
    """One registered game, with the options its new games use; picklable (the spec's functions are
    module-level), so a job can carry it into a worker process that never saw the registration.

    `dump` turns a state into plain data that crosses a process boundary and `load` rebuilds the state from
    it. `blind(state, seat)` is what a bot of `seat` is sent instead: only what that seat may know (Leaders:
    the record with the unseen deck in sorted order; Hidden Leaders: the seat's canonical world), so a bot
    worker never holds a secret. Games without hidden information leave it out (the full dump is sent).
    """

    spec: GameSpec
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.spec.id

    @property
    def players(self) -> tuple[int, ...]:
        return self.spec.players

    def payload_for(self, state: Any, seat: int) -> Any:
        """What a bot of `seat` receives: the spec's `blind(state, seat)`, or the full dump of a game
        without secrets."""
        return self.spec.blind_state(state, seat)

    @property
    def default_players(self) -> int:
        return self.spec.seats_default

    @property
    def warmup(self) -> tuple[str, ...]:
        return self.spec.warmup

    def new_game(self, seed: int, players: int, **options: Any) -> Any:
        """A deal with this adapter's options, updated by `options` (e.g. Hidden Leaders `modules`)."""
        return self.spec.new_state(seed, players, {**self.options, **options})

    def dump(self, state: Any) -> Any:
        return self.spec.dump_state(state)

    def load(self, data: Any) -> Any:
        return self.spec.load_state(data)

    def record(self, state: Any) -> dict:
        return state.record()
