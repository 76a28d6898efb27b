"""PettingZoo AEC environments for both games, with action masks and end-of-game rewards.

```python
from throne.rl.pettingzoo import leaders_env, hidden_leaders_env
env = hidden_leaders_env(players=4)
env.reset(seed=1)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
    env.step(action)
```
Agents are `player_0`, `player_1`, … (seat order; Leaders: South, North). Each observation is
`{"observation": float32 array, "action_mask": int8 array}` computed from that agent's information only; the
mask is all zeros except for the agent that must decide. Rewards come at the end: +1 for the winner, −1 for
every other seat, 0 for all when nobody wins (a Leaders draw; a Hidden Leaders faction with no aligned
player).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from throne.rl.codec import Codec, HiddenLeadersCodec, IllegalActionError, LeadersCodec


class ThroneAECEnv(AECEnv):
    """The AEC environment of one game, driven by a `Codec`."""

    metadata = {"render_modes": ["ansi", "human"], "name": "throne", "is_parallelizable": False}

    def __init__(self, codec: Codec, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            raise ValueError(f"render_mode must be one of {modes}, got {render_mode!r}")
        self.codec = codec
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"throne_{codec.game.replace('-', '_')}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(codec.num_players)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, codec.obs_shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (codec.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(codec.num_actions) for a in self.possible_agents}
        self.state_: Any = None
        self._legal: dict[int, str] = {}
        self.np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.state_ = self.codec.new_state(int(self.np_random.integers(2**31 - 1)))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._refresh()

    def _refresh(self) -> None:
        self._legal = self.codec.legal_actions(self.state_)
        if not self.state_.is_over:
            self.agent_selection = self.possible_agents[self.state_.to_play]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        mask = np.zeros(self.codec.num_actions, dtype=np.int8)
        if not self.state_.is_over and self.state_.to_play == seat:
            mask = self.codec.mask(self._legal)
        return {"observation": self.codec.observe(self.state_, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self._legal.get(int(action)) if action is not None else None
        if move is None:
            raise IllegalActionError(f"action {action} is not legal for {agent}")
        self._cumulative_rewards[agent] = 0.0
        self.codec.apply(self.state_, int(action), move)
        self._refresh()
        if self.state_.is_over:
            for a, value in zip(self.possible_agents, self.codec.returns(self.state_), strict=True):
                self.rewards[a] = value
                self.terminations[a] = True
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.codec.render(self.state_)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.state_ = None


def leaders_env(render_mode: str | None = None, draw_rule: bool = True) -> ThroneAECEnv:
    """The Leaders AEC environment (agents `player_0` = South, `player_1` = North)."""
    return ThroneAECEnv(LeadersCodec(draw_rule=draw_rule), render_mode=render_mode)


def hidden_leaders_env(
    players: int = 4,
    modules: tuple[str, ...] = ("core",),
    variant: str = "full",
    render_mode: str | None = None,
) -> ThroneAECEnv:
    """The Hidden Leaders AEC environment for `players` seats."""
    return ThroneAECEnv(HiddenLeadersCodec(players, tuple(modules), variant), render_mode=render_mode)
