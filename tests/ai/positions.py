"""Positions of both games reached by seeded random play, for the bot tests."""

from __future__ import annotations

import random
from typing import Any

from throne.ai.positions import random_positions
from throne.games import hidden_leaders as hl
from throne.games import leaders

HIDDEN_MODULES = (("core",), ("core", "kickstarter"), ("core", "kickstarter", "queens"), ("core", "legends"),
                  ("core", "kickstarter", "queens", "legends"))


def leaders_positions(count: int, seed: int = 0, max_moves: int = 80) -> list[Any]:
    """`count` unfinished Leaders positions after 0..max_moves random moves."""
    return random_positions(lambda deal: leaders.new_game(seed=deal), count, seed, max_moves=max_moves)


def hidden_positions(players: int, count: int, seed: int = 0, max_moves: int = 200) -> list[Any]:
    """`count` unfinished Hidden Leaders positions (modules rotated) after random moves."""

    def deal(s: int) -> Any:
        return hl.new_game(players=players, seed=s, modules=HIDDEN_MODULES[s % len(HIDDEN_MODULES)])

    return random_positions(deal, count, seed, max_moves=max_moves)


def winning_positions(count: int) -> list[tuple[Any, set[str]]]:
    """Leaders positions where the side to play wins with one action, with the set of winning moves."""
    out = []
    seed = 1000
    while len(out) < count:
        rng = random.Random(seed)
        state = leaders.new_game(seed=seed)
        while not state.is_over and len(out) < count:
            wins = set()
            for move in state.legal_moves():
                state.play(move)
                if state.is_over and state.winner is not None:
                    wins.add(move)
                state.undo()
            if wins and state.phase == "action":
                out.append((state.clone(), wins))
                break
            state.play(rng.choice(state.legal_moves()))
        seed += 1
    return out
