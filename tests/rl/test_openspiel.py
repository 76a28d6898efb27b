"""OpenSpiel: both games registered, OpenSpiel's MCTS and IS-MCTS bots play them to the end."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import throne.rl.openspiel  # noqa: F401 - registers the games
from throne.rl import hidden_obs, leaders_obs


class ZeroEvaluator(mcts.Evaluator):
    """No rollouts: keeps the search budget tiny (uniform priors, value 0)."""

    def evaluate(self, state):
        return np.zeros(state.num_players())

    def prior(self, state):
        actions = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(actions)) for a in actions]


def test_leaders_is_registered_with_explicit_chance() -> None:
    game = pyspiel.load_game("throne_leaders")
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    state = game.new_initial_state()
    for slot in range(3):  # the market is dealt by three chance nodes
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 16 - slot and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        state.apply_action(outcomes[0][0])
    assert state.current_player() == 0
    assert str(state).split()[5] == "market=" + ",".join(leaders_obs.CARD_CODES[:3])
    assert game.observation_tensor_shape() == list(leaders_obs.SHAPE)


def test_leaders_refill_is_a_chance_node() -> None:
    game = pyspiel.load_game("throne_leaders")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    refills = 0
    while not state.is_terminal() and refills < 3:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            card = leaders_obs.CARD_CODES[int(rng.choice(actions, p=probs))]
            before = set(str(state).split("market=")[1].split()[0].split(","))
            state.apply_action(leaders_obs.CARD_CODES.index(card))
            if not state.is_chance_node() and len(before) == 3:
                assert card in str(state).split("market=")[1].split()[0].split(",")
            refills += 1
        else:
            recruit = [a for a in state.legal_actions() if state.action_to_string(a).startswith("+")]
            state.apply_action(int(rng.choice(recruit or state.legal_actions())))
    assert refills == 3


def test_mcts_plays_leaders_to_the_end() -> None:
    game = pyspiel.load_game("throne_leaders")
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, 1.4, 6, ZeroEvaluator(), random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    returns = state.returns()
    assert returns in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def test_hidden_leaders_is_registered() -> None:
    game = pyspiel.load_game("throne_hidden_leaders", {"players": 3, "modules": "core,kickstarter"})
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_players() == 3
    assert game.information_state_tensor_shape() == list(hidden_obs.SHAPE)
    state = game.new_initial_state()
    assert state.current_player() == 0 and state.legal_actions()


def test_resample_keeps_the_information_state() -> None:
    game = pyspiel.load_game("throne_hidden_leaders", {"players": 4, "seed": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    for _ in range(40):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(3):
        world = state.resample_from_infostate(player, sampler)
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.legal_actions() == state.legal_actions()
        assert np.array_equal(world.observation_tensor(player), state.observation_tensor(player))


def test_ismcts_plays_hidden_leaders_to_the_end() -> None:
    game = pyspiel.load_game("throne_hidden_leaders", {"players": 3, "seed": 4})
    rng = np.random.RandomState(4)
    bot = ismcts.ISMCTSBot(game, ZeroEvaluator(), 1.5, max_simulations=3, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(int(action))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    returns = state.returns()
    assert sorted(returns) in ([-1.0, -1.0, 1.0], [0.0, 0.0, 0.0])


@pytest.mark.parametrize("name", ["throne_leaders", "throne_hidden_leaders"])
def test_clone_is_independent(name: str) -> None:
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(10):
        outcomes = state.chance_outcomes() if state.is_chance_node() else None
        state.apply_action(outcomes[0][0] if outcomes else int(rng.choice(state.legal_actions())))
    copy = state.clone()
    text = str(state)
    while not copy.is_terminal() and len(copy.history()) < len(state.history()) + 5:
        outcomes = copy.chance_outcomes() if copy.is_chance_node() else None
        copy.apply_action(outcomes[0][0] if outcomes else int(rng.choice(copy.legal_actions())))
    assert str(state) == text
