"""The takeback boundary each engine reports (`GameSpec.reveals`, `deciding`): a move that made hidden
information known or drew randomness is never taken back."""

from __future__ import annotations

import random

import pytest

from throne import games

# (game, seed, players, the first legal move each time: does it reveal?)
FIRST_MOVES = [
    # Leaders: piece moves and the end of the actions reveal nothing; recruiting from the market refills it
    ("leaders", 1, 2, [False, False, True, False, False, True, True, False, False]),
    # Hidden Leaders: keeping a hero face down and discarding face down reveal nothing; drawing does
    ("hidden-leaders", 0, 3, [False, False, False, False, True, True, False, False]),
]


@pytest.mark.parametrize(("game", "seed", "players", "want"), FIRST_MOVES)
def test_first_moves(game: str, seed: int, players: int, want: list[bool]) -> None:
    spec = games.get(game)
    state = spec.new_state(seed, players, None)
    got = []
    for _ in want:
        before, move = state.clone(), state.legal_moves()[0]
        state.play(move)
        got.append(spec.move_reveals(before, move, state))
    assert got == want


REVEALING = {"play", "look", "fate"}
DRAWS = {"draw", "reshuffle"}  # a "refill" of the Tavern from a public place reveals nothing


@pytest.mark.parametrize("seed", range(3))
def test_hidden_leaders_every_revealing_event_is_a_boundary(seed: int) -> None:
    """Whatever the per-seat events show as learnt or drawn, `reveals` says so too."""
    spec = games.get("hidden-leaders")
    state, rng = spec.new_state(seed, 4, None), random.Random(seed)
    while not state.is_over:
        before, move = state.clone(), rng.choice(state.legal_moves())
        state.play(move)
        shown = [e for seat in range(4) for e in spec.move_events(before, move, state, seat)]
        learnt = any(
            e["type"] in REVEALING
            or (e["type"] == "cards" and (e["verb"] in DRAWS or e["from"]["zone"] == "harbor"))
            for e in shown
        )
        if learnt:
            assert spec.move_reveals(before, move, state), move
        if spec.decision_pending(state):
            assert state.phase == "resolve"


def test_a_card_played_face_up_reveals_it() -> None:
    spec = games.get("hidden-leaders")
    state = spec.new_state(0, 3, None)
    while not any(m.startswith("play") for m in state.legal_moves()):
        state.play(state.legal_moves()[0])
    before, move = state.clone(), next(m for m in state.legal_moves() if m.startswith("play"))
    state.play(move)
    assert spec.move_reveals(before, move, state)


def test_a_game_without_the_hook_reveals_only_without_perfect_information() -> None:
    leaders = games.get("leaders")
    assert leaders.reveals is not None and leaders.deciding is None
    state = leaders.new_state(1, 2, None)
    assert not leaders.decision_pending(state)


MODULE_SETS = [("core",), ("core", "kickstarter", "queens"), ("core", "legends")]


def _took_hidden(before: object, after: object) -> bool:
    """A seat's party gained a card that was in another seat's hand or face down in another seat's party
    (Curious Cat Lover's take, Hop Goblin, the Cartographer's swap): the seat now sees it."""
    for s in range(after.players):
        had = {card for card, _ in before.parties[s]}
        for card, _ in after.parties[s]:
            if card not in had and any(
                p != s and (card in before.hands[p] or (card, False) in before.parties[p])
                for p in range(before.players)
            ):
                return True
    return False


@pytest.mark.parametrize("seed", range(40))
def test_hidden_leaders_a_random_pick_or_a_hidden_card_taken_is_a_boundary(seed: int) -> None:
    """A move that drew randomness (the engine's draw counter grew: Gorgeous Gorgon's random bury, Curious
    Cat Lover's random take) or put another seat's hidden card into the mover's party is never taken back:
    undone, it would let the mover pick again knowing the outcome."""
    spec = games.get("hidden-leaders")
    rng = random.Random(seed)
    options = {"modules": list(MODULE_SETS[seed % len(MODULE_SETS)])}
    state = spec.new_state(f"{seed:032x}", rng.choice([3, 4, 5]), options)
    while not state.is_over:
        before, move = state.clone(), rng.choice(state.legal_moves())
        state.play(move)
        if state.draws > before.draws or _took_hidden(before, state):
            assert spec.move_reveals(before, move, state), move
