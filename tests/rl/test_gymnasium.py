"""The Gymnasium environments: registered on import, pass `check_env`, play the other seats with bots."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import throne.rl  # noqa: F401 - registers the ids
from throne.ai import UnknownBotError
from throne.rl.codec import IllegalActionError

IDS = [("throne/Leaders-v0", {}), ("throne/HiddenLeaders-v0", {"players": 3})]


@pytest.mark.parametrize(("env_id", "kwargs"), IDS)
def test_check_env(env_id: str, kwargs: dict) -> None:
    env = gym.make(env_id, opponent="random", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize(("env_id", "kwargs"), IDS)
def test_episode_ends_with_the_game_result(env_id: str, kwargs: dict) -> None:
    env = gym.make(env_id, opponent="random", **kwargs)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    total, steps, done = 0.0, 0, False
    while not done:
        assert obs in env.observation_space
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        total += reward
        steps += 1
        if not done:
            assert reward == 0.0
    state = env.unwrapped.state_
    seat = env.unwrapped.seat
    expected = 0.0 if state.winner is None else (1.0 if state.winner == seat else -1.0)
    assert state.is_over and total == expected


def test_illegal_action_loses_or_raises() -> None:
    env = gym.make("throne/Leaders-v0")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = gym.make("throne/Leaders-v0", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


def test_random_seat_and_mask_method() -> None:
    env = gym.make("throne/HiddenLeaders-v0", seat=None, players=4)
    seats = set()
    for seed in range(8):
        _, info = env.reset(seed=seed)
        seats.add(info["seat"])
        assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
    assert len(seats) > 1


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"opponent": "no-such-bot"}, UnknownBotError),
        ({"seat": 2}, ValueError),
        ({"illegal": "x"}, ValueError),
    ],
)
def test_bad_options(kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        gym.make("throne/Leaders-v0", **kwargs)
