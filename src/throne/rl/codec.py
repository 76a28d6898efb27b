"""One object per game that turns engine states into arrays and action ids, shared by every adapter
(PettingZoo, Gymnasium, OpenSpiel, self-play) so that all of them see the same encodings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from throne import games
from throne.rl import leaders_obs


class IllegalActionError(ValueError):
    """An action id that is not legal for the deciding seat in the current state."""


class Codec(ABC):
    """Encodings of one game; each subclass makes the engine calls of its game."""

    game: str
    num_players: int
    num_actions: int
    obs_shape: tuple[int, ...]

    def __deepcopy__(self, memo: dict) -> Codec:
        return self  # configuration only: shared by copies of environments and OpenSpiel states

    @abstractmethod
    def new_state(self, seed: int) -> Any:
        """A new game dealt by `seed`."""

    @abstractmethod
    def observe(self, state: Any, seat: int) -> np.ndarray:
        """What `seat` sees of `state`, as an array of shape `obs_shape`."""

    @abstractmethod
    def legal_actions(self, state: Any) -> dict[int, str]:
        """`{action id: move string}` for the seat to play, ids ascending."""

    @abstractmethod
    def render(self, state: Any) -> str:
        """A plain-text picture of the public state."""

    def apply(self, state: Any, action: int, move: str) -> None:
        """Play a legal action (`move` is its string from `legal_actions`)."""
        state.play(move)

    @abstractmethod
    def action_of(self, state: Any, move: str) -> int:
        """The id of a legal move in any accepted spelling."""

    def mask(self, legal: dict[int, str]) -> np.ndarray:
        out = np.zeros(self.num_actions, dtype=np.int8)
        out[list(legal)] = 1
        return out

    def returns(self, state: Any) -> list[float]:
        """+1 for the winner and −1 for every other seat; all 0 when the game is not over or nobody won."""
        if not state.is_over or state.winner is None:
            return [0.0] * self.num_players
        return [1.0 if seat == state.winner else -1.0 for seat in range(self.num_players)]


class LeadersCodec(Codec):
    """Leaders: the engine's own fixed action ids (`leaders.NUM_ACTIONS`) and the planes of `leaders_obs`."""

    game = "leaders"
    num_players = 2
    obs_shape = leaders_obs.SHAPE

    def __init__(self, draw_rule: bool = True) -> None:
        from throne.games import leaders

        self._leaders = leaders
        self.draw_rule = draw_rule
        self.num_actions = leaders.NUM_ACTIONS

    def new_state(self, seed: int) -> Any:
        return self._leaders.new_game(seed=seed, draw_rule=self.draw_rule)

    def observe(self, state: Any, seat: int) -> np.ndarray:
        return leaders_obs.encode(public_view(state), seat)

    def apply(self, state: Any, action: int, move: str) -> None:
        state.apply(action)  # already checked against legal_actions()

    def action_of(self, state: Any, move: str) -> int:
        return state.move_to_action(move)

    def legal_actions(self, state: Any) -> dict[int, str]:
        if state.is_over:
            return {}
        return {a: state.action_to_move(a) for a in sorted(state.legal_actions())}

    def render(self, state: Any) -> str:
        view = public_view(state)
        view.update(winner=state.winner, termination=state.termination)
        return leaders_obs.render(view)


def public_view(state: Any) -> dict[str, Any]:
    """The fields of `State.view()` the Leaders planes need, without computing the legal moves."""
    if not hasattr(state, "recruits") or not hasattr(state, "turns"):
        return state.view()
    return {
        "pieces": [{"side": s, "code": k, "cell": c} for s, k, c in state.pieces()],
        "turn": state.turn,
        "to_play": state.to_play,
        "phase": state.phase,
        "acted": list(state.acted),
        "market": state.market,
        "deck_size": state.deck_size,
        "recruits": state.recruits,
        "turns": state.turns,
        "is_over": state.is_over,
    }


class HiddenLeadersCodec(Codec):
    """Hidden Leaders: the action encoding of `hidden_actions` and the features of `hidden_obs`."""

    game = "hidden-leaders"

    def __init__(self, players: int = 4, modules: tuple[str, ...] = ("core",), variant: str = "full") -> None:
        from throne.games import hidden_leaders
        from throne.rl import hidden_actions, hidden_obs

        if not 2 <= players <= 6:
            raise ValueError(f"Hidden Leaders has 2 to 6 players, got {players}")
        self._hl = hidden_leaders
        self._actions = hidden_actions
        self._obs = hidden_obs
        self.obs_shape = hidden_obs.SHAPE
        self.num_players = players
        self.modules = tuple(modules)
        self.variant = variant
        self.num_actions = hidden_actions.NUM_ACTIONS

    def new_state(self, seed: int) -> Any:
        return self._hl.new_game(
            players=self.num_players, seed=seed, variant=self.variant, modules=self.modules
        )

    def observe(self, state: Any, seat: int) -> np.ndarray:
        return self._obs.encode(state.view(seat), seat)

    def hand(self, state: Any, seat: int) -> list[str]:
        """`seat`'s own hand, as its view shows it."""
        return list(state.view(seat)["hands"][seat])

    def legal_actions(self, state: Any) -> dict[int, str]:
        if state.is_over:
            return {}
        seat = state.to_play
        view = state.view(seat)  # one call gives the hand and the legal moves of the deciding seat
        hand = view["hands"][seat]
        legal = {self._actions.encode(move, hand): move for move in view["legal_moves"]}
        return dict(sorted(legal.items()))

    def action_of(self, state: Any, move: str) -> int:
        return self._actions.encode(move, self.hand(state, state.to_play))

    def render(self, state: Any) -> str:
        view = state.view(None)
        markers = view["markers"]
        lines = [f"turn {view['turn']}  to play {view.get('to_play')}"]
        lines.append(f"markers: red {markers['red']}  green {markers['green']}")
        for seat, party in enumerate(view["parties"]):
            shown = " ".join(h["card"] if h.get("up") else "[down]" for h in party)
            lines.append(f"seat {seat}: {shown or '-'}")
        lines.append("tavern: " + " ".join(c or "-" for c in view.get("tavern") or ()))
        if state.is_over:
            lines.append(f"over: {state.winning_faction} wins, winner seat {state.winner}")
        return "\n".join(lines)


def _leaders_codec(players: int, options: dict[str, Any], **kwargs: Any) -> Codec:
    return LeadersCodec(**kwargs)


def _hidden_codec(players: int, options: dict[str, Any], **kwargs: Any) -> Codec:
    return HiddenLeadersCodec(players, tuple(options["modules"]), options["variant"], **kwargs)


CODECS: dict[str, Callable[..., Codec]] = {"leaders": _leaders_codec, "hidden-leaders": _hidden_codec}
"""`{game id: factory(players, options, **kwargs)}`: the games with an RL encoding."""


def make_codec(
    game: str, *, players: int | None = None, options: dict[str, Any] | None = None, **kwargs: Any
) -> Codec:
    """The codec of a registered game for `players` seats and its (validated) `options`."""
    spec = games.get(game)
    factory = CODECS.get(spec.id)
    if factory is None:
        raise ValueError(f"{spec.name} has no RL encoding (encodings exist for: {', '.join(CODECS)})")
    players = spec.seats_default if players is None else players
    return factory(players, spec.normalize_options(players, options), **kwargs)
