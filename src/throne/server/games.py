"""The server's view of a registered game (`throne.games`): no rule and no game id lives here. Every answer
comes from the engine (legal moves, views, outcomes) or from the game's spec (options, secrecy, rating
system); this module only names the calls and shapes the JSON."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from throne import games
from throne.games import GameSpec, OptionsError
from throne.games.randomness import LEGACY_RNG, RNG_VERSION, Seed
from throne.store.repo import DamagedRecord

if TYPE_CHECKING:
    from throne.store.repo import GameInfo

__all__ = [
    "GameKind",
    "OptionsError",
    "bot_names",
    "game_ids",
    "initial_state",
    "kind_of",
    "rebuild",
    "stored_kind",
    "stored_seed",
]


def _quote(move: str) -> str:
    return repr(move if len(move) <= 64 else move[:61] + "...")


@dataclass(frozen=True)
class GameKind:
    """One registered game as the server uses it."""

    spec: GameSpec

    @property
    def name(self) -> str:
        return self.spec.id

    @property
    def players(self) -> tuple[int, ...]:
        return self.spec.players

    def normalize_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        return self.spec.normalize_options(players, options)

    def new_state(self, seed: Seed, players: int, options: dict[str, Any], rng: int = RNG_VERSION) -> Any:
        return self.spec.new_state(seed, players, options, rng)

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return state.view(seat)

    def reveal(self, state: Any) -> dict[str, Any]:
        """Everything about `state`, secrets included (replays of finished games)."""
        return self.spec.reveal_state(state)

    def result(self, state: Any) -> dict[str, Any] | None:
        outcome = state.outcome
        return None if outcome is None else outcome.to_json()

    def public_move(self, state: Any) -> str | None:
        """What spectators are told of the last move played in `state`."""
        return self.spec.last_public_move(state)

    def illegal_message(self, state: Any, seat: int, move: str, exc: Exception) -> str:
        if self.spec.perfect_information:
            return f"illegal move {_quote(move)}: {exc}"  # nothing hidden for the reason to leak
        # The engine's reason may name cards this seat cannot see; only the decision kind is repeated.
        decision = state.view(seat).get("decision") or {}
        kind = decision.get("kind", "unknown") if isinstance(decision, dict) else "unknown"
        return f"illegal move {_quote(move)}: it is not one of the legal moves of this decision ({kind})"

    def public_record(self, state: Any) -> dict[str, Any] | None:
        """The move list of a live game when it is public (None when moves name secrets)."""
        if self.spec.secret_moves:
            return None
        record = state.record()
        return {"game": self.spec.id, "moves": list(record.get("moves", [])), "result": None}

    def illegal_errors(self) -> tuple[type[Exception], ...]:
        return self.spec.illegal_errors


def stored_seed(info: GameInfo) -> tuple[Seed, int]:
    """The engine seed and generator version of a stored game: its secret, or for a game started before
    secrets were stored, its integer seed with the legacy generator (so it replays exactly)."""
    if info.secret is not None:
        return info.secret, RNG_VERSION
    return info.seed or 0, LEGACY_RNG


def initial_state(kind: GameKind, info: GameInfo) -> Any:
    """The state of a stored game before its first move."""
    seed, rng = stored_seed(info)
    return kind.new_state(seed, info.players, info.options, rng)


def rebuild(kind: GameKind, info: GameInfo, moves: Iterable[tuple[int, str]]) -> Any:
    """The state after replaying a stored move log from the game's seed (crash recovery and replays); raises
    DamagedRecord when the log does not replay."""
    moves = list(moves)
    try:
        seed, rng = stored_seed(info)
        return kind.spec.replay(seed, info.players, info.options, moves, rng)
    except Exception as exc:
        raise DamagedRecord(info.id, f"its move log does not replay from its seed: {exc}") from exc


def rebuild_with_last(kind: GameKind, info: GameInfo, moves: list[tuple[int, str]]) -> tuple[Any, Any | None]:
    """`rebuild`, and the state before the last move (None: no move yet), so that a game resumed from its
    log can describe its last move to the connections' first states as a live one does. The last move is
    played on a copy, as the server plays every move."""
    if not moves:
        return rebuild(kind, info, moves), None
    before = rebuild(kind, info, moves[:-1])
    state = before.clone()
    seat, move = moves[-1]
    try:
        if state.to_play != seat:
            raise ValueError(f"it is by seat {seat} but seat {state.to_play} is to play")
        state.play(move)
    except Exception as exc:
        detail = f"its last stored move (ply {len(moves) - 1}) does not replay: {exc}"
        raise DamagedRecord(info.id, detail) from exc
    return state, before


def stored_kind(info: GameInfo) -> GameKind:
    """The kind of a stored game; DamagedRecord (`game_unavailable`) for a kind this server lacks."""
    try:
        return kind_of(info.game)
    except OptionsError as exc:
        raise DamagedRecord(info.id, str(exc)) from None


def game_ids() -> tuple[str, ...]:
    return games.ids()


def kind_of(game: str) -> GameKind:
    try:
        return GameKind(games.get(game))
    except games.UnknownGameError as exc:
        raise OptionsError(str(exc)) from None


def bot_names(game: str) -> list[str]:
    from throne import ai

    return list(ai.bot_names(game))
