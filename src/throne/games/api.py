"""The game contract: what every game offers the rest of Throne.

A game is a `GameSpec` (its facts: id, names, player counts, options, rating system, secrecy of its move
log, bot levels, and the functions that make and rebuild its states) plus a `State` class that implements
the `State` protocol below. Bots, the server, the RL adapters and the command line use only this contract
and the registry (`throne.games.get(id)`, `throne.games.all()`), so a game is added in one place.

Modelled on OpenSpiel's Game/State and scalachess's `Variant`: the spec is immutable data, the state is
the only thing that changes, and a game is its seed, its options and its move list.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

RATING_SYSTEMS = ("glicko2", "openskill")
"""`glicko2`: two-player games with draws; `openskill`: one winner among any number of seats."""


class GameError(ValueError):
    """Base class of the contract's errors."""


class UnknownGameError(GameError):
    """No registered game has this id."""


class OptionsError(GameError):
    """Game options (player count, variant, modules, mode) the game does not accept."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    `winners` are the winning seats (empty for a draw or when nobody won), `reason` a short machine word
    (e.g. "capture", "repetition", or the winning faction), `scores` one number per seat (1 for a win,
    0 for a loss, 1/n each for a draw), `detail` game-specific plain data.
    """

    winners: tuple[int, ...]
    reason: str | None
    scores: tuple[float, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def winner(self) -> int | None:
        """The single winning seat, or None for a draw or a shared win."""
        return self.winners[0] if len(self.winners) == 1 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "winners": list(self.winners),
            "winner": self.winner,
            "reason": self.reason,
            "scores": list(self.scores),
            **dict(self.detail),
        }

    @staticmethod
    def single(winner: int | None, players: int, reason: str | None, **detail: Any) -> Outcome:
        """The outcome of a game with at most one winner (`None`: a draw, shared by every seat)."""
        if winner is None:
            return Outcome((), reason, tuple([1.0 / players] * players), detail)
        scores = tuple(1.0 if seat == winner else 0.0 for seat in range(players))
        return Outcome((winner,), reason, scores, detail)


@runtime_checkable
class State(Protocol):
    """The surface every engine's state offers (both engines and the test games implement it).

    `to_play` is the seat that must decide now (None once the game is over). `play` raises the game's
    illegal-move error (a ValueError) and changes nothing when a move is not legal. `view(None)` is the
    spectators' view, `view(seat)` what that seat may know; both are JSON-safe and never show a secret the
    seat cannot see. `record()` is plain JSON data that `GameSpec.from_record` replays into an equal state.
    """

    @property
    def players(self) -> int: ...

    @property
    def to_play(self) -> int | None: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def winner(self) -> int | None: ...

    def legal_moves(self) -> list[str]: ...

    def play(self, move: str) -> None: ...

    def view(self, seat: int | None = None) -> dict[str, Any]: ...

    def record(self) -> dict[str, Any]: ...

    def clone(self) -> Any: ...


@dataclass(frozen=True)
class Option:
    """One game option: a single choice (`multiple=False`) or a list of distinct choices (e.g. modules).

    `required` are choices a list must contain (and that the lobby shows as fixed).
    """

    name: str
    choices: tuple[str, ...]
    default: str | tuple[str, ...]
    multiple: bool = False
    required: tuple[str, ...] = ()
    help: str = ""

    def normalize(self, value: Any, game: str = "") -> str | list[str]:
        """The canonical form of `value` (lists in the order of `choices`); raises OptionsError."""
        if value is None:
            value = self.default
        if not self.multiple:
            if not isinstance(value, str) or value not in self.choices:
                shown = value if isinstance(value, str) and len(value) <= 32 else "?"
                where = f"{game} " if game else ""
                raise OptionsError(
                    f"unknown {where}{self.name} {shown!r} (choose one of: {', '.join(self.choices)})"
                )
            return value
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise OptionsError(f"option {self.name!r} must be a list of {list(self.choices)}, got {value!r}")
        bad = [v for v in value if not isinstance(v, str) or v not in self.choices]
        if bad:
            shown = [b if isinstance(b, str) and len(b) <= 32 else "?" for b in bad]
            raise OptionsError(f"option {self.name!r}: unknown {shown} (choose among {list(self.choices)})")
        if len(set(value)) != len(value):
            raise OptionsError(f"option {self.name!r} lists a choice twice: {list(value)}")
        missing = [r for r in self.required if r not in value]
        if missing:
            raise OptionsError(f"option {self.name!r} must include {missing}")
        return [c for c in self.choices if c in value]

    def to_json(self) -> dict[str, Any]:
        default = list(self.default) if self.multiple else self.default
        return {
            "name": self.name,
            "choices": list(self.choices),
            "default": default,
            "multiple": self.multiple,
            "required": list(self.required),
            "help": self.help,
        }


RENDERERS = ("generic", "leaders-table", "hidden-table")
"""The table renderers of the web client (static/js: generic-table.js, leaders-table.js, hidden-table.js)."""


Event = dict[str, Any]
"""One JSON-safe event of a move (see `GameSpec.events`)."""


def _no_check(players: int, options: dict[str, Any]) -> None:
    return None


@dataclass(frozen=True)
class GameSpec:
    """The facts of one game and the functions that make its states; every function is module-level.

    - `new_game(seed, players, options, rng)` deals a game (options already normalized); `rng` is the
      generator version (`throne.games.randomness`; None: the newest), which a game with a single
      generator may ignore.
    - `from_record(record)` replays `State.record()` (raises a ValueError naming the bad move).
    - `dump(state)` / `load(data)` carry a full state across a process boundary (secrets included: a bot
      still looks only through `view(seat)` and the engine's determinisation); by default the record.
    - `public_move(state)` is what spectators are told of the last move played in `state` (None for
      nothing); by default the move itself, which is only right when `secret_moves` is False.
    - `blind(state, seat)` is what a bot of `seat` is sent instead of `dump(state)`: only what that seat
      may know, still loadable by `load` (games without secrets leave it out: the full dump is sent).
    - `reveal(state)` is everything about a state, secrets included, for replays of finished games; by
      default the spectators' view (right when the game has no secret).
    - `check_options(players, options)` lets the engine refuse combinations of valid options.
    - `move_grammar()` describes the forms of the move strings to clients (`/api/meta`), when the engine
      has a grammar module.
    - `events(before, move, after, seat, reveal)` describes what `move` (played on `before`, giving `after`)
      did, as JSON-safe events that `seat` may see (None: a spectator; `reveal`: every secret, for replays
      of finished games); see each engine's `events` module. Without it a game has no events.
    - `events_for(before, move, after, seats, reveal)` is `events` for each of `seats` at once, for a game
      whose events are cheaper worked out once per move and then shown to each seat (a server describes
      every move to every seat). Without it, `events` is asked seat by seat.
    - `reveals(before, move, after)` tells whether `move` made hidden information known to a seat that did
      not know it or drew randomness (a card from a deck): a takeback never goes back past such a move.
      Without it, a game with perfect information reveals nothing and any other game reveals with every
      move.
    - `deciding(state)` tells whether a decision inside another seat's turn is pending (a resolution
      waiting for a seat): no takeback is asked then. Without it, never.
    - `shared_view`: `view(seat)` and `events(..., seat, ...)` are the same for every seat and for
      spectators (nothing is hidden from one seat that another sees), so the server computes each once per
      move and gives every connection the same. False (the default) asks for them seat by seat.
    - `fast_path` names the engine module bots and RL adapters may use for speed (documented there).
    - `tutorial` names the module whose `TUTORIAL` (`throne.games.tutorial`: scripted `Lessons` or a first
      `Turn`) is the game's guided tutorial; None: the game has none (the server offers none).
    - `renderer` names the web client's table renderer (one of `RENDERERS`; the pages pass it to the
      scripts, which never branch on the game id): "generic" shows the seat's view as data, the legal
      moves as buttons and the move list, which any game can use.
    """

    id: str
    name: str
    players: tuple[int, ...]
    new_game: Callable[[Any, int, Mapping[str, Any], int | None], Any]
    from_record: Callable[[dict[str, Any]], Any]
    illegal_errors: tuple[type[Exception], ...] = (ValueError,)
    default_players: int | None = None
    options: tuple[Option, ...] = ()
    rating: str = "openskill"
    secret_moves: bool = False
    bot_levels: tuple[str, ...] = ("easy", "medium", "hard")
    perfect_information: bool = True
    shared_view: bool = False
    dump: Callable[[Any], Any] | None = None
    load: Callable[[Any], Any] | None = None
    public_move: Callable[[Any], str | None] | None = None
    reveal: Callable[[Any], dict[str, Any]] | None = None
    blind: Callable[[Any, int], Any] | None = None
    check_options: Callable[[int, dict[str, Any]], None] = _no_check
    events: Callable[[Any, str, Any, int | None, bool], list[Event]] | None = None
    events_for: Callable[[Any, str, Any, Sequence[int | None], bool], list[list[Event]]] | None = None
    reveals: Callable[[Any, str, Any], bool] | None = None
    deciding: Callable[[Any], bool] | None = None
    fast_path: str | None = None
    warmup: tuple[str, ...] = ()
    names: Mapping[str, str] = field(default_factory=dict)
    notation: str = ""
    move_grammar: Callable[[], list[dict[str, str]]] | None = None
    renderer: str = "generic"
    tutorial: str | None = None
    # Names of the engine seats a player may choose at table creation (seat 0 first); empty: numbered seats.
    seat_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.players:
            raise GameError(f"{self.id}: a game needs at least one player count")
        if self.renderer not in RENDERERS:
            raise GameError(f"{self.id}: unknown web renderer {self.renderer!r} (choose {RENDERERS})")
        if self.default_players is not None and self.default_players not in self.players:
            raise GameError(f"{self.id}: default_players {self.default_players} is not in {self.players}")
        if self.rating not in RATING_SYSTEMS:
            raise GameError(f"{self.id}: unknown rating system {self.rating!r} (choose {RATING_SYSTEMS})")
        if self.seat_names and len(self.seat_names) != max(self.players):
            raise GameError(f"{self.id}: {len(self.seat_names)} seat_names for {max(self.players)} seats")

    # ----------------------------------------------------------------- options
    @property
    def seats_default(self) -> int:
        """The player count used when none is given: `default_players`, else 4 if allowed, else the first."""
        if self.default_players is not None:
            return self.default_players
        return 4 if 4 in self.players else self.players[0]

    def default_options(self) -> dict[str, Any]:
        return {o.name: (list(o.default) if o.multiple else o.default) for o in self.options}

    def normalize_options(self, players: int | None, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every option in canonical form, defaults filled in; raises OptionsError for anything else."""
        players = self.seats_default if players is None else players
        if not isinstance(players, int) or isinstance(players, bool) or players not in self.players:
            counts = ", ".join(map(str, self.players))
            raise OptionsError(f"{self.name} is played by {counts} players, not {players!r}")
        options = dict(options or {})
        known = {o.name for o in self.options}
        unknown = sorted(str(k)[:32] for k in options if k not in known)
        if unknown:
            if not known:
                raise OptionsError(f"{self.name} takes no options, got {unknown}")
            raise OptionsError(f"unknown {self.name} options: {unknown} (known: {sorted(known)})")
        out = {o.name: o.normalize(options.get(o.name), self.name) for o in self.options}
        try:
            self.check_options(players, out)
        except OptionsError:
            raise
        except ValueError as exc:
            raise OptionsError(f"{self.name} refuses these options: {exc}") from exc
        return out

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        raise OptionsError(f"{self.name} has no option {name!r}")

    # ----------------------------------------------------------------- states
    def new_state(
        self,
        seed: Any,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        rng: int | None = None,
    ) -> Any:
        """A new game dealt by `seed` (options validated and completed first)."""
        players = self.seats_default if players is None else players
        return self.new_game(seed, players, self.normalize_options(players, options), rng)

    def replay(
        self,
        seed: Any,
        players: int | None,
        options: Mapping[str, Any] | None,
        moves: Sequence[tuple[int, str]],
        rng: int | None = None,
    ) -> Any:
        """The state after replaying a stored move log of `(seat, move)` pairs from the seed."""
        state = self.new_state(seed, players, options, rng)
        for seat, move in moves:
            if state.to_play != seat:
                raise GameError(f"stored move {move!r} is by seat {seat} but seat {state.to_play} is to play")
            state.play(move)
        return state

    def dump_state(self, state: Any) -> Any:
        return (self.dump or _record_of)(state)

    def load_state(self, data: Any) -> Any:
        return (self.load or self.from_record)(data)

    def blind_state(self, state: Any, seat: int) -> Any:
        return self.dump_state(state) if self.blind is None else self.blind(state, seat)

    def reveal_state(self, state: Any) -> dict[str, Any]:
        return self.reveal(state) if self.reveal is not None else state.view(None)

    def last_public_move(self, state: Any) -> str | None:
        if self.public_move is not None:
            return self.public_move(state)
        if self.secret_moves:
            return None
        history = state.record().get("moves") or []
        last = history[-1] if history else None
        return last[-1] if isinstance(last, list) else last

    def move_events(
        self, before: Any, move: str, after: Any, seat: int | None, reveal: bool = False
    ) -> list[dict[str, Any]]:
        """The events of one move as `seat` may see them ([] for a game without events)."""
        return [] if self.events is None else self.events(before, move, after, seat, reveal)

    def move_events_for(
        self, before: Any, move: str, after: Any, seats: Sequence[int | None], reveal: bool = False
    ) -> list[list[Event]]:
        """`move_events` for each of `seats`, in their order (see `events_for`)."""
        if self.events_for is not None:
            return self.events_for(before, move, after, seats, reveal)
        return [self.move_events(before, move, after, seat, reveal) for seat in seats]

    def move_reveals(self, before: Any, move: str, after: Any) -> bool:
        """Whether `move` revealed hidden information or drew randomness (see `reveals`)."""
        if self.reveals is None:
            return not self.perfect_information
        return bool(self.reveals(before, move, after))

    def decision_pending(self, state: Any) -> bool:
        """Whether a decision inside another seat's turn is pending (see `deciding`)."""
        return False if self.deciding is None else bool(self.deciding(state))

    def load_tutorial(self) -> Any:
        """The game's guided tutorial (`throne.games.tutorial.Lessons` or `Turn`), or None."""
        if self.tutorial is None:
            return None
        return importlib.import_module(self.tutorial).TUTORIAL

    def display_name(self, lang: str = "en") -> str:
        return self.names.get(lang, self.name)

    def to_json(self) -> dict[str, Any]:
        """The facts a client needs (the lobby reads them from /api/meta)."""
        return {
            "id": self.id,
            "name": self.name,
            "names": dict(self.names),
            "players": list(self.players),
            "default_players": self.seats_default,
            "options": [o.to_json() for o in self.options],
            "rating": self.rating,
            "secret_moves": self.secret_moves,
            "bot_levels": list(self.bot_levels),
            "perfect_information": self.perfect_information,
            "shared_view": self.shared_view,
            "notation": self.notation,
            "move_grammar": self.move_grammar() if self.move_grammar is not None else None,
            "renderer": self.renderer,
            "seat_names": list(self.seat_names),
        }


def _record_of(state: Any) -> Any:
    return state.record()


__all__ = [
    "RATING_SYSTEMS",
    "RENDERERS",
    "GameError",
    "GameSpec",
    "Option",
    "OptionsError",
    "Outcome",
    "State",
    "UnknownGameError",
]
