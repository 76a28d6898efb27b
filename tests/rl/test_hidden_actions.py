"""The Hidden Leaders action encoding: every legal move of many random states maps to a unique id and back."""

from __future__ import annotations

import random

import pytest

from throne.games import hidden_leaders as hl
from throne.rl import hidden_actions as ha

GAMES = [
    pytest.param(players, modules, id=f"{players}p-{'+'.join(modules)}")
    for players, modules in [
        (2, ("core",)),
        (3, ("core", "kickstarter")),
        (4, ("core",)),
        (5, ("core", "kickstarter", "queens")),
        (6, ("core", "queens")),
        (2, ("core", "legends")),
        (4, ("core", "kickstarter", "queens", "legends")),
    ]
]


@pytest.mark.parametrize(("players", "modules"), GAMES)
def test_every_legal_move_round_trips(players: int, modules: tuple[str, ...]) -> None:
    decisions = 0
    for seed in range(6):
        state = hl.new_game(players=players, seed=seed, modules=modules)
        rng = random.Random(seed)
        while not state.is_over:
            seat = state.to_play
            view = state.view(seat)
            hand = view["hands"][seat]
            ids = {}
            for move in view["legal_moves"]:
                action = ha.encode(move, hand)
                assert 0 <= action < ha.NUM_ACTIONS
                assert action not in ids, f"{move!r} and {ids.get(action)!r} share id {action}"
                assert ha.decode(action, hand) == move
                ids[action] = move
            state.play(rng.choice(view["legal_moves"]))
            decisions += 1
    assert decisions > 500


FOUR = ("leery-lizard", "keen-koi", "ace-fighter", "ghastly-granny")


@pytest.mark.parametrize(
    ("move", "hand"),
    [
        ("pass", ()),
        ("skip", ()),
        ("draw harbor", ()),
        ("pile graveyard", ()),
        ("look", ()),
        ("play keen-koi", ()),
        ("draw tavern ace-fighter", ()),
        ("tavern ace-fighter", ()),
        ("pick deceased-emperor", ()),
        ("faction guardians", ()),
        ("fate guardian-2", ()),
        ("fate green-1", ()),
        ("play mother-of-guardians", ()),
        ("R-4 G-4", ()),
        ("hand leery-lizard", ()),
        ("faction undead", ()),
        ("seat 5", ()),
        ("2:canned-champion", ()),
        ("0:down23", ()),
        ("R+1", ()),
        ("G-6", ()),
        ("R+2 G+2", ()),
        ("R-3 G-1", ()),
        ("discard keen-koi", ("leery-lizard", "keen-koi")),
        ("discard ace-fighter keen-koi leery-lizard", FOUR),
        ("keep keen-koi discard leery-lizard", ("leery-lizard", "keen-koi", "ace-fighter")),
    ],
)
def test_rule_book_strings_round_trip(move: str, hand: tuple[str, ...]) -> None:
    assert ha.decode(ha.encode(move, hand), hand) == move


def test_discard_ids_follow_the_hand_not_the_spelling() -> None:
    hand = ["leery-lizard", "keen-koi", "ace-fighter"]
    assert ha.encode("discard keen-koi ace-fighter", hand) == ha.encode("discard ace-fighter keen-koi", hand)


@pytest.mark.parametrize(
    ("move", "hand"),
    [
        ("dance", ()),
        ("play no-such-card", ()),
        ("faction elves", ()),
        ("seat 9", ()),
        ("R+0", ()),
        ("R+9", ()),
        ("0:down99", ()),
        ("discard keen-koi", ("leery-lizard",)),
        ("discard keen-koi keen-koi", ("keen-koi",)),
        ("keep keen-koi discard keen-koi", ("keen-koi",)),
    ],
)
def test_bad_moves_are_refused(move: str, hand: tuple[str, ...]) -> None:
    with pytest.raises(ha.ActionEncodingError):
        ha.encode(move, hand)


@pytest.mark.parametrize(
    ("action", "hand"), [(-1, ()), (ha.NUM_ACTIONS, ()), (ha.DISCARD + 5, ("keen-koi",))]
)
def test_bad_ids_are_refused(action: int, hand: tuple[str, ...]) -> None:
    with pytest.raises(ha.ActionEncodingError):
        ha.decode(action, hand)
