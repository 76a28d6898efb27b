"""Where a takeback or an undo goes back to: the engine says which moves revealed something.

A takeback by a seat removes its last move and every move after it; an undo removes the seat's own last
move while the turn is still its own. Neither goes back past a move that revealed hidden information or
drew randomness (the engine's `GameSpec.move_reveals`): the log would otherwise let a seat replay a draw it
has seen. Pure functions: the owner task runs them in a worker and stores the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from throne.server.games import GameKind, stored_seed
from throne.store.repo import GameInfo


class Refused(ValueError):
    """A takeback that cannot be made; `code` is the protocol error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code, self.message = code, message


def keep_point(moves: Sequence[tuple[int, str]], seat: int, undo: bool) -> int:
    """How many moves of the log remain after `seat`'s takeback (`undo`: of its own last move only)."""
    if undo:
        if not moves or moves[-1][0] != seat:
            raise Refused("nothing_to_undo", "the last move is not yours: there is nothing to undo")
        return len(moves) - 1
    for ply in range(len(moves) - 1, -1, -1):
        if moves[ply][0] == seat:
            return ply
    raise Refused("nothing_to_take_back", "you have not moved yet")


class Kept(NamedTuple):
    """The position a takeback goes back to, and how its last move was played (the state before it, its seat
    and move; None at the start): a connection's first state shows that move's events, as in a game played
    on from there."""

    state: Any
    last: tuple[Any, int, str] | None


def take_back(kind: GameKind, info: GameInfo, moves: Sequence[tuple[int, str]], keep: int) -> Kept:
    """The position after the first `keep` moves; Refused("revealed") if a later move revealed anything."""
    seed, rng = stored_seed(info)
    spec = kind.spec
    state = spec.new_state(seed, info.players, info.options, rng)
    kept: Kept | None = None
    before = None
    for ply, (_, move) in enumerate(moves):
        if ply == keep:
            last = None if before is None else (before, *moves[ply - 1])
            kept = Kept(state.clone(), last)
        before = state.clone()
        state.play(move)
        if ply >= keep and spec.move_reveals(before, move, state):
            raise Refused(
                "revealed", f"move {ply + 1} revealed hidden information or drew a card: no takeback past it"
            )
    if kept is None:
        raise Refused("nothing_to_take_back", "there is no move to take back")
    return kept
