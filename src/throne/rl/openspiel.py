"""OpenSpiel Python games `throne_leaders` and `throne_hidden_leaders`, registered on import.

```python
import pyspiel
import throne.rl.openspiel  # registers both games
game = pyspiel.load_game("throne_leaders")
game = pyspiel.load_game("throne_hidden_leaders", {"players": 4, "modules": "core", "seed": 7})
```

**Leaders** is a perfect-information game with explicit chance nodes (`EXPLICIT_STOCHASTIC`): a game
starts with three chance nodes that deal the market, and every refill of a market slot is a chance node whose
outcomes are the cards still in the deck, uniformly. Chance outcome `i` is the champion card
`leaders_obs.CARD_CODES[i]`. The engine state is rebuilt from its position string with the chosen card in
the slot; this drops its move history, which changes nothing: after a refill no earlier start-of-turn
position can recur (the market holds a card it never held before), so the repetition rule is unaffected.
Player actions are the engine's own ids (`leaders.NUM_ACTIONS`). Observation tensors are the planes of
`throne.rl.leaders_obs` for the given player.

**Hidden Leaders** is an imperfect-information game whose randomness is sampled inside the engine from its
seeded generator (`SAMPLED_STOCHASTIC`, no chance nodes): the game parameter `seed` seeds a generator that
draws the deal seed of each `new_initial_state()`. Information state and observation strings are the JSON of
`view(player)`; tensors are the vectors of `throne.rl.hidden_obs`; `resample_from_infostate` uses the engine's
`determinize(player, rng)`, so OpenSpiel's IS-MCTS searches worlds consistent with what the player knows.
Actions follow `throne.rl.hidden_actions`. Returns: +1 for the winner, −1 for the other seats, all 0 when
nobody wins (so the game is general-sum).
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from throne.rl import leaders_obs
from throne.rl.codec import HiddenLeadersCodec, LeadersCodec, public_view

_CARD_INDEX = {c: i for i, c in enumerate(leaders_obs.CARD_CODES)}


class _Engine:
    """Holds an engine state; OpenSpiel clones Python states with `deepcopy`, turned here into `clone()`."""

    __slots__ = ("legal", "state")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.legal: dict[int, str] | None = None

    def __deepcopy__(self, memo: dict) -> _Engine:
        return _Engine(self.state.clone())


def _tokens(position: str) -> dict[str, str]:
    return dict(token.split("=", 1) for token in position.split())


def _cards(text: str) -> list[str]:
    return [] if text == "-" else text.split(",")


# ---------------------------------------------------------------- Leaders

LEADERS_TYPE = pyspiel.GameType(
    short_name="throne_leaders",
    long_name="Throne: Leaders",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"draw_rule": True},
)


class LeadersGame(pyspiel.Game):
    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        self.codec = LeadersCodec(draw_rule=bool(params.get("draw_rule", True)))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions,
            max_chance_outcomes=len(leaders_obs.CARD_CODES),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=20_000,
        )
        super().__init__(LEADERS_TYPE, info, params)

    def new_initial_state(self) -> LeadersState:
        return LeadersState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> LeadersObserver:
        return LeadersObserver(iig_obs_type)


class LeadersState(pyspiel.State):
    def __init__(self, game: LeadersGame) -> None:
        super().__init__(game)
        self._codec = game.codec
        self._engine = _Engine(self._codec.new_state(0))
        self._slots: list[int] = [0, 1, 2]  # market slots waiting for a chance deal
        self._chosen: list[str] = []
        self._pool: list[str] = list(leaders_obs.CARD_CODES)  # cards the pending deals draw from

    # -- chance
    def _pending(self) -> bool:
        return len(self._chosen) < len(self._slots)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in self._pool if c not in self._chosen]
        return [(_CARD_INDEX[c], 1.0 / len(left)) for c in left]

    def _deal(self) -> None:
        tokens = _tokens(self._engine.state.position())
        market = _cards(tokens["market"])
        for slot, card in zip(self._slots, self._chosen, strict=True):
            market[slot] = card
        deck = [c for c in self._pool if c not in self._chosen]
        tokens["market"] = ",".join(c or "-" for c in market)
        tokens["deck"] = ",".join(deck) or "-"
        text = " ".join(f"{k}={v}" for k, v in tokens.items())
        from throne.games.leaders import fast as leaders

        self._engine = _Engine(leaders.from_position(text, draw_rule=self._codec.draw_rule))
        self._slots, self._chosen, self._pool = [], [], []

    # -- OpenSpiel API
    def current_player(self) -> int:
        if self._pending():
            return pyspiel.PlayerId.CHANCE
        if self._engine.state.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self._engine.state.to_play

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._engine.state.legal_actions())

    def _apply_action(self, action: int) -> None:
        if self._pending():
            self._chosen.append(leaders_obs.CARD_CODES[action])
            if not self._pending():
                self._deal()
            return
        state = self._engine.state
        before = state.market
        state.apply(action)
        if state.is_over:
            return
        after = state.market
        refilled = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b and b is not None]
        if refilled:
            deck = _cards(_tokens(state.position())["deck"])
            self._slots = refilled
            self._chosen = []
            self._pool = sorted({*deck, *(after[i] for i in refilled)}, key=_CARD_INDEX.__getitem__)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {leaders_obs.CARD_CODES[action]}"
        return self._engine.state.action_to_move(action)

    def is_terminal(self) -> bool:
        return not self._pending() and self._engine.state.is_over

    def returns(self) -> list[float]:
        return self._codec.returns(self._engine.state)

    def engine(self) -> Any:
        """The Throne engine state behind this OpenSpiel state (do not modify it)."""
        return self._engine.state

    def __str__(self) -> str:
        return self._engine.state.position()


class LeadersObserver:
    """Planes of `leaders_obs` for the tensor; the position (deck as a set) or the history for strings."""

    def __init__(self, iig_obs_type: Any) -> None:
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(int(np.prod(leaders_obs.SHAPE)), np.float32)
        self.dict = {"observation": self.tensor.reshape(leaders_obs.SHAPE)}

    def set_from(self, state: LeadersState, player: int) -> None:
        self.tensor[:] = leaders_obs.encode(public_view(state.engine()), player).ravel()

    def string_from(self, state: LeadersState, player: int) -> str:
        if self.perfect_recall:
            return " ".join(str(a) for a in state.history())
        tokens = _tokens(state.engine().position())
        tokens["deck"] = ",".join(sorted(_cards(tokens["deck"]), key=_CARD_INDEX.__getitem__)) or "-"
        return " ".join(f"{k}={v}" for k, v in tokens.items())


# ---------------------------------------------------------------- Hidden Leaders

HIDDEN_TYPE = pyspiel.GameType(
    short_name="throne_hidden_leaders",
    long_name="Throne: Hidden Leaders",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 4, "modules": "core", "variant": "full", "seed": 0},
)


class HiddenLeadersGame(pyspiel.Game):
    def __init__(self, params: dict | None = None) -> None:
        params = {**HIDDEN_TYPE.parameter_specification, **(params or {})}
        modules = tuple(m.strip() for m in str(params["modules"]).split(",") if m.strip())
        self.codec = HiddenLeadersCodec(int(params["players"]), modules, str(params["variant"]))
        self._seeds = random.Random(int(params["seed"]))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions,
            max_chance_outcomes=0,
            num_players=self.codec.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=20_000,
        )
        super().__init__(HIDDEN_TYPE, info, params)

    def new_initial_state(self) -> HiddenLeadersState:
        return HiddenLeadersState(self, self.codec.new_state(self._seeds.randrange(2**31)))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> HiddenLeadersObserver:
        return HiddenLeadersObserver(self.codec)


class HiddenLeadersState(pyspiel.State):
    def __init__(self, game: HiddenLeadersGame, engine_state: Any) -> None:
        super().__init__(game)
        self._codec = game.codec
        self._engine = _Engine(engine_state)

    def _legal(self) -> dict[int, str]:
        if self._engine.legal is None:
            self._engine.legal = self._codec.legal_actions(self._engine.state)
        return self._engine.legal

    def current_player(self) -> int:
        state = self._engine.state
        return pyspiel.PlayerId.TERMINAL if state.is_over else state.to_play

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._legal())

    def _apply_action(self, action: int) -> None:
        move = self._legal()[action]
        self._engine.state.play(move)
        self._engine.legal = None

    def _action_to_string(self, player: int, action: int) -> str:
        if self._engine.state.to_play == player and action in self._legal():
            return self._legal()[action]
        from throne.rl import hidden_actions

        try:
            return hidden_actions.decode(action, self._codec.hand(self._engine.state, player))
        except hidden_actions.ActionEncodingError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self._engine.state.is_over

    def returns(self) -> list[float]:
        return self._codec.returns(self._engine.state)

    def engine(self) -> Any:
        """The Throne engine state behind this OpenSpiel state (do not modify it)."""
        return self._engine.state

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> HiddenLeadersState:
        """A state drawn from those `player_id` cannot tell apart from this one (`determinize`)."""
        rng = random.Random(int(probability_sampler() * 2**31))
        game = self.get_game()
        world = HiddenLeadersState.__new__(HiddenLeadersState)
        pyspiel.State.__init__(world, game)
        world._codec = self._codec
        world._engine = _Engine(self._engine.state.determinize(player_id, rng))
        return world

    def __str__(self) -> str:
        return json.dumps(self._engine.state.view(None), sort_keys=True)


class HiddenLeadersObserver:
    """`hidden_obs` vectors and the JSON of `view(player)` (without its list of legal moves)."""

    def __init__(self, codec: HiddenLeadersCodec) -> None:
        self.codec = codec
        self.tensor = np.zeros(int(np.prod(codec.obs_shape)), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: HiddenLeadersState, player: int) -> None:
        self.tensor[:] = self.codec.observe(state.engine(), player)

    def string_from(self, state: HiddenLeadersState, player: int) -> str:
        view = dict(state.engine().view(player))
        view.pop("legal_moves", None)
        return json.dumps(view, sort_keys=True)


pyspiel.register_game(LEADERS_TYPE, LeadersGame)
pyspiel.register_game(HIDDEN_TYPE, HiddenLeadersGame)
