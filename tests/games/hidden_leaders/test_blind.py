"""`blind(seat)`: the state a bot of `seat` is handed is a function of what that seat knows, nothing more."""

from __future__ import annotations

import random

import pytest

from throne.games import hidden_leaders as hl

MODULE_SETS = [("core", "kickstarter", "queens"), ("core", "kickstarter", "queens", "legends")]


def _positions(players: int, count: int, seed: int, modules: tuple[str, ...] = MODULE_SETS[0]) -> list:
    out = []
    rng = random.Random(seed)
    st = hl.new_game(players=players, seed=seed, modules=modules)
    while len(out) < count:
        if st.is_over:
            st = hl.new_game(players=players, seed=rng.randrange(10**6), modules=modules)
            continue
        st.play(rng.choice(st.legal_moves()))
        if rng.random() < 0.15:
            out.append(st.clone())
    return out


@pytest.mark.parametrize("modules", MODULE_SETS, ids=["base", "legends"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_blind_is_the_same_in_every_world_the_seat_cannot_tell_apart(players: int, modules: tuple) -> None:
    resolving = 0
    for st in _positions(players, 40, seed=players, modules=modules):
        resolving += st.phase == "resolve"
        for seat in range(players):
            blind = st.blind(seat).to_json()
            for k in range(2):
                world = st.determinize(seat, random.Random(k))
                assert world.to_json() != st.to_json()
                assert world.blind(seat).to_json() == blind
    assert resolving >= 1


def test_blind_keeps_what_the_seat_knows_and_drops_the_secret() -> None:
    st = _positions(4, 1, seed=9)[0]
    for seat in range(4):
        b = st.blind(seat)
        view, bview = st.view(seat), b.view(seat)
        assert bview == {**view, "last_move": bview["last_move"]}
        assert b.seed == 0 and b.history == [] and b.leaders[seat] == st.leaders[seat]
        assert b.to_play == st.to_play
        if seat == st.to_play:
            assert b.legal_moves() == st.legal_moves()
        assert hl.from_json(b.to_json()).to_json() == b.to_json()
