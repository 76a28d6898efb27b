"""Observations: documented shapes and cell mapping, and nothing an agent may not know."""

from __future__ import annotations

import random

import numpy as np
import pytest

from throne.games import hidden_leaders as hl
from throne.games import leaders
from throne.rl import hidden_obs, leaders_obs
from throne.rl.codec import HiddenLeadersCodec, LeadersCodec


@pytest.mark.parametrize(
    ("cell", "observer", "index"),
    [
        ("d1", 0, (6, 3)),  # South's start corner at the bottom centre
        ("d7", 0, (0, 3)),
        ("d7", 1, (6, 3)),  # North sees the board turned: its own corner at the bottom
        ("d1", 1, (0, 3)),
        ("d4", 0, (3, 3)),
        ("d4", 1, (3, 3)),
        ("a1", 0, (6, 0)),
        ("a4", 0, (3, 0)),
        ("g1", 0, (3, 6)),
        ("g4", 0, (0, 6)),
        ("g4", 1, (6, 0)),
    ],
)
def test_cell_to_array_mapping(cell: str, observer: int, index: tuple[int, int]) -> None:
    assert leaders_obs.cell_index(cell, observer) == index


def test_board_mask_and_shapes() -> None:
    assert len(leaders_obs.ALL_CELLS) == 37
    planes = LeadersCodec().observe(leaders.new_game(seed=0), 0)
    assert planes.shape == leaders_obs.SHAPE and planes.dtype == np.float32
    assert planes[leaders_obs.ON_BOARD].sum() == 37
    assert planes[leaders_obs.MINE + 0, 6, 3] == 1.0  # own Leader on d1
    assert planes[leaders_obs.THEIRS + 0, 0, 3] == 1.0  # enemy Leader on d7
    assert planes[leaders_obs.MY_RECRUIT].sum() == 7 and planes[leaders_obs.MY_RECRUIT, 6, 3] == 1.0
    assert planes[leaders_obs.MARKET : leaders_obs.MARKET + 16, 0, 0].sum() == 3
    vector = HiddenLeadersCodec(4).observe(hl.new_game(players=4, seed=0), 0)
    assert vector.shape == hidden_obs.SHAPE and vector.dtype == np.float32
    assert vector.min() >= 0.0 and vector.max() <= 1.0
    assert hidden_obs.blocks(vector)["markers"].sum() == 2.0  # one space per marker


def random_leaders(seed: int, plies: int) -> leaders.State:
    state = leaders.new_game(seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_over:
            break
        state.play(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize("seed", range(6))
def test_leaders_deck_order_never_shows(seed: int) -> None:
    """Two positions that differ only in the face-down deck order give identical observations."""
    state = random_leaders(seed, 30)
    tokens = dict(t.split("=", 1) for t in state.position().split())
    deck = tokens["deck"].split(",")
    if len(deck) < 2:
        deck = deck * 2
    tokens["deck"] = ",".join(reversed(deck)) if tokens["deck"] != "-" else "-"
    other = leaders.from_position(" ".join(f"{k}={v}" for k, v in tokens.items()))
    assert other.position() != state.position() or tokens["deck"] == "-" or len(set(deck)) == 1
    codec = LeadersCodec()
    for seat in (0, 1):
        assert np.array_equal(codec.observe(state, seat), codec.observe(other, seat))


def random_hidden(players: int, seed: int, decisions: int,
                  modules: tuple[str, ...] = ("core", "kickstarter")) -> hl.State:
    state = hl.new_game(players=players, seed=seed, modules=modules)
    rng = random.Random(seed)
    for _ in range(decisions):
        if state.is_over:
            break
        state.play(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize(("players", "seed", "modules"), [
    (2, 1, ("core", "kickstarter")), (3, 2, ("core", "kickstarter")), (4, 3, ("core", "kickstarter")),
    (5, 4, ("core", "kickstarter")), (6, 5, ("core", "kickstarter")), (3, 6, ("core", "legends")),
    (5, 7, ("core", "kickstarter", "queens", "legends")),
])
def test_hidden_leaders_secrets_never_show(players: int, seed: int, modules: tuple[str, ...]) -> None:
    """A state and a redeal of all one seat cannot see give that seat identical observations, all game
    (with legends: the leader pool and other seats' Fate cards too)."""
    codec = HiddenLeadersCodec(players, modules)
    rng = random.Random(seed)
    changed = 0
    for decisions in range(0, 240, 12):
        state = random_hidden(players, seed, decisions, modules)
        if state.is_over:
            break
        for seat in range(players):
            world = state.determinize(seat, rng)
            mine = codec.observe(state, seat)
            assert np.array_equal(mine, codec.observe(world, seat))
            if seat == state.to_play:
                assert codec.legal_actions(world) == codec.legal_actions(state)
            others = [s for s in range(players) if s != seat]
            changed += any(
                not np.array_equal(codec.observe(state, s), codec.observe(world, s)) for s in others
            )
    assert changed > 0  # the redeal really changed what other seats see


def test_observation_shows_own_hand_but_only_counts_of_others() -> None:
    state = random_hidden(4, 9, 20)
    codec = HiddenLeadersCodec(4, ("core", "kickstarter"))
    for seat in range(4):
        blocks = hidden_obs.blocks(codec.observe(state, seat))
        hand = state.view(seat)["hands"][seat]
        assert blocks["zones"][hidden_obs.ZONE_HAND].sum() == len(hand)
        assert blocks["counts"][0, 0] == pytest.approx(len(hand) / 10)
        assert blocks["leaders"].sum() == 1.0  # only its own leader


def test_looked_at_cards_are_placed_with_their_seat() -> None:
    codec = HiddenLeadersCodec(4, ("core", "kickstarter"))
    checked = 0
    for seed in range(40):
        state = hl.new_game(players=4, seed=seed, modules=("core", "kickstarter"))
        rng = random.Random(seed)
        while not state.is_over and checked < 20:
            for seat in range(4):
                for item in state.view(seat)["known"]:
                    where = item["where"].split()
                    if len(where) != 2 or int(where[1]) == seat:
                        continue
                    zones = hidden_obs.blocks(codec.observe(state, seat))["zones"]
                    k = (int(where[1]) - seat) % 4
                    card = hidden_obs.CARD_INDEX[item["card"]]
                    assert zones[hidden_obs.ZONE_KNOWN_SEAT + k - 1, card] == 1.0
                    assert zones[hidden_obs.ZONE_KNOWN, card] == 1.0
                    checked += 1
            state.play(rng.choice(state.legal_moves()))
        if checked >= 20:
            break
    assert checked >= 20


def test_legends_blocks_guardian_marker_skips_and_fate() -> None:
    from tests.games.hidden_leaders.helpers import run_card

    state = run_card("baneful-beacon", {"modules": ("core", "legends"), "parties": {1: "huggable-hulk"},
                                        "guardian": 6, "skips": [2]}, ["R-1", "1:huggable-hulk"])
    state.stack[-1] = {**state.stack[-1], "hid": ["guardian-2", "guardian-2"]}
    mine = hidden_obs.blocks(hidden_obs.encode(state.view(0), 0))
    theirs = hidden_obs.blocks(hidden_obs.encode(state.view(1), 1))
    assert mine["markers"][2].argmax() == 5 and mine["markers"][2].sum() == 1.0
    assert list(mine["fate"]) == [0.0, 0.0, 1.0, 0.0] and theirs["fate"].sum() == 0.0
    assert mine["skips"][2] == 1.0 and theirs["skips"][1] == 1.0  # relative seats
    assert list(mine["modules"]) == [1.0, 0.0, 0.0, 1.0]
    assert mine["decision"][hidden_obs.DECISIONS.index("fate")] == 1.0
    core = hidden_obs.blocks(hidden_obs.encode(hl.new_game(players=3, seed=1).view(0), 0))
    assert core["markers"][2].sum() == 0.0
