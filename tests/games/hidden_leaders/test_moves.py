"""The move grammar (rule book §7.1): every legal move of real games parses into one form and formats back to
the same string; strings outside the grammar are refused; the grammar is served to clients."""

from __future__ import annotations

import random

import pytest

from throne import games
from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders import moves

EXAMPLES = [
    ("pass", "fixed"), ("draw harbor", "fixed"), ("play grave-robber", "card"), ("draw tavern x", "card"),
    ("faction undead", "faction"), ("fate doom", "fate"), ("seat 3", "seat"), ("2:grave-robber", "hero-up"),
    ("1:down0", "hero-down"), ("R+1", "marker"), ("R+2 G-1", "marker"), ("discard a b c", "discard"),
    ("keep a discard b", "keep"),
]


@pytest.mark.parametrize(("move", "form"), EXAMPLES)
def test_each_form_parses_and_formats_back(move: str, form: str) -> None:
    parsed = moves.parse(move)
    assert parsed.form == form and moves.format_move(parsed) == move


BAD = ["", "   ", "fly away", "seat x", "x:", "R+", "discard", "keep a b", "r+1", 5]


@pytest.mark.parametrize("move", BAD)
def test_strings_outside_the_grammar_are_refused(move: object) -> None:
    with pytest.raises(moves.MoveSyntaxError):
        moves.parse(move)  # type: ignore[arg-type]


ALL_MODULES = ("core", "kickstarter", "queens", "legends")


@pytest.mark.parametrize(("players", "modules"), [(2, ("core",)), (4, ALL_MODULES)])
def test_every_legal_move_of_random_games_is_in_the_grammar(players: int, modules: tuple[str, ...]) -> None:
    rng = random.Random(players)
    for seed in range(3):
        st = hl.new_game(players=players, seed=seed, modules=modules)
        while not st.is_over:
            legal = st.legal_moves()
            for move in legal:
                assert moves.format_move(moves.parse(move)) == move
            st.play(rng.choice(legal))


def test_the_grammar_is_served_with_the_game_facts() -> None:
    forms = [g["form"] for g in games.get("hidden-leaders").to_json()["move_grammar"]]
    assert {m.form for m in map(moves.parse, (e for e, _ in EXAMPLES))} <= set(forms)
