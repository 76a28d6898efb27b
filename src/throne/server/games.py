"""A thin adapter from the engines to what the protocol needs. No rule lives here: every answer comes from
the engine (legal moves, views, results); this module only names the calls and shapes the JSON."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from throne.games.randomness import LEGACY_RNG, RNG_VERSION, Seed

if TYPE_CHECKING:
    from throne.store.repo import GameInfo

GAMES = ("leaders", "hidden-leaders")


class OptionsError(ValueError):
    """Game options (player count, variant, modules) the engine does not accept."""


class GameKind(Protocol):
    name: str
    players: tuple[int, ...]

    def normalize_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]: ...
    def new_state(self, seed: Seed, players: int, options: dict[str, Any], rng: int = RNG_VERSION) -> Any: ...
    def view(self, state: Any, seat: int | None) -> dict[str, Any]: ...
    def reveal(self, state: Any) -> dict[str, Any]: ...
    def result(self, state: Any) -> dict[str, Any] | None: ...
    def illegal_message(self, state: Any, seat: int, move: str, exc: Exception) -> str: ...
    def public_record(self, state: Any) -> dict[str, Any] | None: ...
    def illegal_errors(self) -> tuple[type[Exception], ...]: ...


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
    """The state after replaying a stored move log from the game's seed (crash recovery and replays)."""
    state = initial_state(kind, info)
    for seat, move in moves:
        if state.to_play != seat:
            raise ValueError(f"stored move {move!r} is by seat {seat} but seat {state.to_play} is to play")
        state.play(move)
    return state


def _quote(move: str) -> str:
    return repr(move if len(move) <= 64 else move[:61] + "...")


@dataclass(frozen=True)
class Leaders:
    name: str = "leaders"
    players: tuple[int, ...] = (2,)

    def normalize_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        if players != 2:
            raise OptionsError("Leaders is a 2-player game")
        if options:
            raise OptionsError(f"Leaders takes no options, got {sorted(options)}")
        return {}

    def new_state(self, seed: Seed, players: int, options: dict[str, Any], rng: int = RNG_VERSION) -> Any:
        from throne.games import leaders

        return leaders.new_game(seed=seed, rng=rng)

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return state.view()  # Leaders has no secret besides the deck order, which view() leaves out

    def reveal(self, state: Any) -> dict[str, Any]:
        return state.view()

    def result(self, state: Any) -> dict[str, Any] | None:
        if not state.is_over:
            return None
        return {"winner": state.winner, "termination": state.termination}

    def illegal_message(self, state: Any, seat: int, move: str, exc: Exception) -> str:
        return f"illegal move {_quote(move)}: {exc}"  # Leaders has no hidden information to leak

    def public_record(self, state: Any) -> dict[str, Any] | None:
        record = state.record()
        return {"game": "leaders", "moves": list(record.get("moves", [])), "result": None}

    def illegal_errors(self) -> tuple[type[Exception], ...]:
        from throne.games import leaders

        return (leaders.IllegalMoveError, ValueError)


@dataclass(frozen=True)
class HiddenLeaders:
    name: str = "hidden-leaders"
    players: tuple[int, ...] = (2, 3, 4, 5, 6)

    def normalize_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        from throne.games import hidden_leaders as hl

        if players not in self.players:
            raise OptionsError(f"Hidden Leaders is played by 2 to 6 players, not {players}")
        unknown = set(options) - {"variant", "modules"}
        if unknown:
            raise OptionsError(f"unknown Hidden Leaders options: {sorted(unknown)}")
        variant = options.get("variant", "full")
        modules = options.get("modules", ["core"])
        if (
            not isinstance(variant, str)
            or not isinstance(modules, list)
            or not modules
            or not all(isinstance(m, str) and len(m) <= 32 for m in modules)
        ):
            raise OptionsError("variant must be a string and modules a non-empty list of module names")
        modules = list(dict.fromkeys(modules))
        try:  # the engine is the judge of which combinations exist
            hl.new_game(players=players, seed=0, variant=variant, modules=tuple(modules))
        except ValueError as exc:
            raise OptionsError(f"the engine refuses these options: {exc}") from exc
        return {"variant": variant, "modules": modules}

    def new_state(self, seed: Seed, players: int, options: dict[str, Any], rng: int = RNG_VERSION) -> Any:
        from throne.games import hidden_leaders as hl

        return hl.new_game(
            players=players,
            seed=seed,
            rng=rng,
            variant=options.get("variant", "full"),
            modules=tuple(options.get("modules", ["core"])),
        )

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return state.view(seat)

    def reveal(self, state: Any) -> dict[str, Any]:
        return state.to_json()

    def result(self, state: Any) -> dict[str, Any] | None:
        if not state.is_over:
            return None
        return {"winner": state.winner, "faction": state.winning_faction}

    def illegal_message(self, state: Any, seat: int, move: str, exc: Exception) -> str:
        # The engine's reason may name cards this seat cannot see; only the decision kind is repeated.
        decision = state.view(seat).get("decision") or {}
        kind = decision.get("kind", "unknown") if isinstance(decision, dict) else "unknown"
        return f"illegal move {_quote(move)}: it is not one of the legal moves of this decision ({kind})"

    def public_record(self, state: Any) -> dict[str, Any] | None:
        return None  # move strings of a live game name secret cards

    def illegal_errors(self) -> tuple[type[Exception], ...]:
        from throne.games import hidden_leaders as hl

        return (hl.IllegalMoveError, ValueError)


KINDS: dict[str, GameKind] = {"leaders": Leaders(), "hidden-leaders": HiddenLeaders()}


def kind_of(game: str) -> GameKind:
    try:
        return KINDS[game]
    except KeyError:
        raise OptionsError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}") from None


def bot_names(game: str) -> list[str]:
    from throne import ai

    return list(ai.bot_names(game))
