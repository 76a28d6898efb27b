"""The PettingZoo AEC environments pass PettingZoo's own checkers and pay rewards only at the end."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from throne.rl.codec import IllegalActionError
from throne.rl.pettingzoo import hidden_leaders_env, leaders_env

ENVS = [
    pytest.param(lambda: leaders_env(), id="leaders"),
    pytest.param(lambda: hidden_leaders_env(players=2), id="hidden-2p"),
    pytest.param(lambda: hidden_leaders_env(players=4), id="hidden-4p"),
    pytest.param(
        lambda: hidden_leaders_env(players=6, modules=("core", "kickstarter", "queens")), id="hidden-6p-all"
    ),
]


@pytest.mark.parametrize("make", ENVS)
def test_api_test(make) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations and all-zero masks of waiting agents warn
        api_test(make(), num_cycles=120)


@pytest.mark.parametrize("make", ENVS[:2])
def test_seed_test(make) -> None:
    seed_test(make, num_cycles=60)


def play_out(env, seed: int) -> dict[str, float]:
    """A random game to its end; the reward each agent saw when it was told the game ended."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        assert reward == 0.0  # nothing before the end
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        env.step(int(rng.choice(legal)))
    return final


@pytest.mark.parametrize(("game", "seed"), [("leaders", 1), ("leaders", 2), ("hidden", 3), ("hidden", 4)])
def test_rewards_at_the_end(game: str, seed: int) -> None:
    env = leaders_env() if game == "leaders" else hidden_leaders_env(players=4)
    final = play_out(env, seed)
    state = env.state_
    assert state is not None and state.is_over
    expected = {a: 0.0 for a in env.possible_agents}
    if state.winner is not None:
        expected = {a: (1.0 if i == state.winner else -1.0) for i, a in enumerate(env.possible_agents)}
    assert final == expected


def test_only_the_deciding_agent_has_a_mask() -> None:
    env = hidden_leaders_env(players=3)
    env.reset(seed=5)
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert (mask.sum() > 0) == (agent == env.agent_selection)


def test_illegal_action_is_refused() -> None:
    env = leaders_env()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)


def test_render_ansi_shows_the_board() -> None:
    env = leaders_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "L" in text and "l" in text and "a   b   c   d   e   f   g" in text
