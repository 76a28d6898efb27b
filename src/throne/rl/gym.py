"""Gymnasium single-agent environments: the agent holds one seat, `throne.ai` bots play every other seat.

```python
import gymnasium, throne.rl  # importing throne.rl registers the ids
env = gymnasium.make("throne/Leaders-v0", opponent="medium")
env = gymnasium.make("throne/HiddenLeaders-v0", players=4, opponent="random")
obs, info = env.reset(seed=0)
action = env.action_space.sample(info["action_mask"])
```
The observation is the agent's own (the same arrays as the PettingZoo environments, without the mask); the
legal actions come in `info["action_mask"]` (int8) and from `env.unwrapped.action_masks()` (bool). The
reward is 0 until the end, then +1 / −1 / 0 as in the PettingZoo environments. An illegal action ends the
episode with reward −1 and `info["illegal_action"] = True` (`illegal="raise"` raises `IllegalActionError`
instead). The opponents are seeded from the reset seed, so a seeded episode is reproducible when the
opponent bot searches with an iteration budget (levels with a time budget depend on the machine's speed).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from throne.rl.codec import Codec, HiddenLeadersCodec, IllegalActionError, LeadersCodec

ILLEGAL_MODES = ("lose", "raise")


class ThroneEnv(gym.Env):
    """One seat of a game against bots."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        codec: Codec,
        opponent: str = "random",
        seat: int | None = 0,
        illegal: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        from throne import ai

        if seat is not None and not 0 <= seat < codec.num_players:
            raise ValueError(f"seat must be in 0..{codec.num_players - 1} or None (random), got {seat}")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal must be one of {ILLEGAL_MODES}, got {illegal!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            raise ValueError(f"render_mode must be one of {modes}, got {render_mode!r}")
        ai.bot_entry(codec.game, opponent)  # fails early on an unknown bot
        self.codec = codec
        self.opponent = opponent
        self.fixed_seat = seat
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, codec.obs_shape, dtype=np.float32)
        self.action_space = spaces.Discrete(codec.num_actions)
        self.seat = 0 if seat is None else seat
        self.state_: Any = None
        self._bots: dict[int, Any] = {}
        self._legal: dict[int, str] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        from throne import ai

        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31 - 1))
        if self.fixed_seat is None:
            self.seat = int(self.np_random.integers(self.codec.num_players))
        self.state_ = self.codec.new_state(game_seed)
        self._bots = {
            s: ai.make_bot(self.codec.game, self.opponent, seed=game_seed + s)
            for s in range(self.codec.num_players)
            if s != self.seat
        }
        self._advance()
        return self._observation(), self._info()

    def _advance(self) -> None:
        """Let the bots play until the agent must decide or the game is over."""
        state = self.state_
        while not state.is_over and state.to_play != self.seat:
            seat = state.to_play
            state.play(self._bots[seat].choose(state, seat))
        self._legal = self.codec.legal_actions(state)

    def _observation(self) -> np.ndarray:
        return self.codec.observe(self.state_, self.seat)

    def _info(self, **extra: Any) -> dict:
        return {"action_mask": self.codec.mask(self._legal), "seat": self.seat, **extra}

    def action_masks(self) -> np.ndarray:
        """Legal actions of the agent as booleans (the convention of maskable policy libraries)."""
        return self.codec.mask(self._legal).astype(bool)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.state_ is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.state_.is_over:
            raise gym.error.ResetNeeded("the episode is over: call reset()")
        move = self._legal.get(int(action))
        if move is None:
            if self.illegal == "raise":
                raise IllegalActionError(f"action {action} is not legal here")
            return self._observation(), -1.0, True, False, self._info(illegal_action=True)
        self.codec.apply(self.state_, int(action), move)
        self._advance()
        reward = self.codec.returns(self.state_)[self.seat] if self.state_.is_over else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), bool(self.state_.is_over), False, self._info()

    def render(self) -> str | None:
        if self.render_mode is None or self.state_ is None:
            return None
        text = self.codec.render(self.state_)
        if self.render_mode == "human":
            print(text)
            return None
        return text


class LeadersEnv(ThroneEnv):
    """`throne/Leaders-v0`: Leaders against a bot; `seat` 0 is South, 1 North, None a random side."""

    def __init__(self, opponent: str = "random", seat: int | None = 0, draw_rule: bool = True, **kwargs: Any):
        super().__init__(LeadersCodec(draw_rule=draw_rule), opponent=opponent, seat=seat, **kwargs)


class HiddenLeadersEnv(ThroneEnv):
    """`throne/HiddenLeaders-v0`: one seat of a Hidden Leaders game, bots in the others."""

    def __init__(
        self,
        opponent: str = "random",
        seat: int | None = 0,
        players: int = 4,
        modules: tuple[str, ...] = ("core",),
        variant: str = "full",
        **kwargs: Any,
    ):
        codec = HiddenLeadersCodec(players, tuple(modules), variant)
        super().__init__(codec, opponent=opponent, seat=seat, **kwargs)


def register() -> None:
    """Register `throne/Leaders-v0` and `throne/HiddenLeaders-v0` with Gymnasium (idempotent)."""
    for env_id, entry in (
        ("throne/Leaders-v0", "throne.rl.gym:LeadersEnv"),
        ("throne/HiddenLeaders-v0", "throne.rl.gym:HiddenLeadersEnv"),
    ):
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry)
