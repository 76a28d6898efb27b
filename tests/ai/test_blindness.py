"""Bots cannot cheat: permuting only what the seat to play cannot see never changes the chosen move.

Every bot and level of both games, at a fixed seed and iteration budget, through the worker's path (what the
server uses: only `GameAdapter.payload_for(state, seat)` crosses into the worker) and directly. Levels search
with their real budgets; the other bots are capped at `BOT_CAP` iterations to keep the test fast.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from throne import ai
from throne.ai.base import Budget
from throne.ai.registry import bot_entry
from throne.ai.worker import _prepare, run_job
from throne.games import hidden_leaders as hl
from throne.games import leaders
from throne.games.leaders import notation

from .positions import hidden_positions, leaders_positions

SEED = 5
WORLDS = 2
BOT_CAP = 2000


def _deck_permuted(state: leaders.State, rng: random.Random) -> leaders.State:
    """The same game (position, history, market) with the unseen deck in another order."""
    rec = state.record()
    start = leaders.from_position(rec["start"])
    rest = start.deck[state.deck_pos :]
    rng.shuffle(rest)
    start.deck = start.deck[: state.deck_pos] + rest
    rec["start"] = notation.format_position(start)
    return leaders.record_to_state(rec)


def _leaders_cases() -> list[tuple[Any, list[Any]]]:
    cases = []
    for state in leaders_positions(12, seed=31, max_moves=30):
        if state.deck_size >= 3 and len(state.legal_moves()) >= 3 and len(cases) < 2:
            rng = random.Random(len(cases))
            worlds = [_deck_permuted(state, rng) for _ in range(WORLDS)]
            assert len({tuple(w.deck[w.deck_pos :]) for w in [state, *worlds]}) > 1
            assert all(w.position().split(" deck=")[0] == state.position().split(" deck=")[0] for w in worlds)
            cases.append((state, worlds))
    assert len(cases) == 2
    return cases


def _hidden_cases() -> list[tuple[Any, list[Any]]]:
    cases = []
    for players in (2, 4, 6):
        for state in hidden_positions(players, 8, seed=40 + players, max_moves=120):
            if len(state.legal_moves()) >= 3 and state.phase != "setup":
                seat = state.to_play
                worlds = [state.determinize(seat, random.Random(k)) for k in range(WORLDS)]
                for w in worlds:  # other seats' leaders, hands, face-down cards, Harbor order, seed differ
                    assert w.view(seat) == {**state.view(seat), "last_move": w.view(seat)["last_move"]}
                assert len({str(w.to_json()) for w in [state, *worlds]}) == WORLDS + 1
                cases.append((state, worlds))
                break
    legends = hl.new_game(players=4, seed=7, modules=("core", "legends"))
    rng = random.Random(7)
    while len(cases) < 4:  # a Forgotten Legends game: the leader pool and the Fate deck are hidden too
        legends.play(rng.choice(legends.legal_moves()))
        if legends.phase == "action" and len(legends.history) > 40:
            seat = legends.to_play
            worlds = [legends.determinize(seat, random.Random(k)) for k in range(WORLDS)]
            assert len({str(w.leaders) for w in [legends, *worlds]}) > 1
            cases.append((legends, worlds))
    return cases


CASES = {"leaders": _leaders_cases(), "hidden-leaders": _hidden_cases()}
BOTS = [(game, name) for game in CASES for name in ai.bot_names(game)]


@pytest.mark.parametrize(("game", "bot"), BOTS, ids=[f"{g}-{b}" for g, b in BOTS])
def test_worker_move_ignores_hidden_information(game: str, bot: str) -> None:
    for state, worlds in CASES[game]:
        seat = state.to_play
        moves = set()
        entry = bot_entry(game, bot)
        for world in [state, *worlds]:
            job, _ = _prepare(game, world, seat, bot, SEED, timeout=3600.0)
            if not entry.level and (entry.budget.iterations or 0) > BOT_CAP:
                job = dataclasses.replace(job, budget=Budget(iterations=BOT_CAP))
            moves.add(run_job(job))
        assert len(moves) == 1 and moves <= set(state.legal_moves()), (bot, moves)


@pytest.mark.parametrize(("game", "bot"), BOTS, ids=[f"{g}-{b}" for g, b in BOTS])
def test_direct_move_ignores_hidden_information(game: str, bot: str) -> None:
    budget = Budget(iterations=min(200, (bot_entry(game, bot).budget.iterations or 200)))
    for state, worlds in CASES[game][:2]:
        seat = state.to_play
        moves = {ai.make_bot(game, bot, seed=SEED).choose(w, seat, budget) for w in [state, *worlds]}
        assert len(moves) == 1, (bot, moves)


def test_the_worker_payload_holds_no_secret() -> None:
    state, worlds = CASES["leaders"][0]
    seat = state.to_play
    payloads = [_prepare("leaders", w, seat, "hard", SEED, 60.0)[0].payload for w in [state, *worlds]]
    assert all(p == payloads[0] for p in payloads)
    state, worlds = CASES["hidden-leaders"][1]
    seat = state.to_play
    payloads = [_prepare("hidden-leaders", w, seat, "hard", SEED, 60.0)[0].payload for w in [state, *worlds]]
    assert all(p == payloads[0] for p in payloads)
    assert payloads[0]["seed"] != state.seed and payloads[0]["history"] == []
