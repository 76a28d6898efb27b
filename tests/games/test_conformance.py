"""The game contract, checked on every registered game and on the toy third game (like OpenSpiel's
random_sim_test): random games to the end through the contract only, records that round-trip and replay,
views that keep secrets, independent clones, bad moves refused without a change."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from throne import games
from throne.games import GameSpec, OptionsError, Outcome

from . import toy_game

SPECS = [*games.all(), toy_game.SPEC]
BAD_MOVES = ("", "definitely not a move", "play", "9" * 80)


def _player_counts(spec: GameSpec) -> list[int]:
    return sorted({min(spec.players), spec.seats_default})


CASES = [(spec, players, seed) for spec in SPECS for players in _player_counts(spec) for seed in (1, 7)]


def _ids(case: tuple[GameSpec, int, int]) -> str:
    spec, players, seed = case
    return f"{spec.id}-{players}p-seed{seed}"


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _check_bad_moves(spec: GameSpec, state: Any) -> None:
    before, legal = json.dumps(state.view(None), sort_keys=True), state.legal_moves()
    for bad in BAD_MOVES:
        if bad in legal:
            continue
        with pytest.raises(spec.illegal_errors):
            state.play(bad)
        assert json.dumps(state.view(None), sort_keys=True) == before and state.legal_moves() == legal


def _check_clone(state: Any, rng: random.Random) -> None:
    before = json.dumps(state.view(None), sort_keys=True)
    copy = state.clone()
    copy.play(rng.choice(copy.legal_moves()))
    assert json.dumps(state.view(None), sort_keys=True) == before


def _check_secrecy(spec: GameSpec, state: Any, rng: random.Random) -> None:
    """What a seat sees is the same in every world it cannot tell apart, and what a bot of that seat is
    sent rebuilds a state with the same view."""
    for seat in range(state.players):
        mine = state.view(seat)
        json.dumps(mine)  # JSON-safe
        if hasattr(state, "determinize"):
            world = state.determinize(seat, rng)
            assert _same_json(world.view(seat), mine)
        sent = spec.load_state(json.loads(json.dumps(spec.blind_state(state, seat))))
        assert _same_json(sent.view(seat), mine)


def _check_events(spec: GameSpec, before: Any, move: str, after: Any) -> None:
    """A move's events for every viewer at once are each viewer's own; a game that declares `shared_view`
    shows every seat what spectators see: the view and the events."""
    viewers = (None, *range(after.players))
    for reveal in (False, True):
        one_by_one = [spec.move_events(before, move, after, viewer, reveal) for viewer in viewers]
        assert _same_json(spec.move_events_for(before, move, after, viewers, reveal), one_by_one)
    if spec.shared_view:
        public, events = after.view(None), spec.move_events(before, move, after, None)
        for seat in range(after.players):
            assert _same_json(after.view(seat), public)
            assert _same_json(spec.move_events(before, move, after, seat), events)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_random_game_through_the_contract(case: tuple[GameSpec, int, int]) -> None:
    spec, players, seed = case
    rng = random.Random(seed)
    state = spec.new_state(seed, players)
    assert isinstance(state, games.State)
    assert state.players == players and not state.is_over and state.outcome is None
    moves: list[tuple[int, str]] = []
    checks = {0, 3, 17}
    while not state.is_over:
        seat = state.to_play
        legal = state.legal_moves()
        assert isinstance(seat, int) and 0 <= seat < players
        assert legal and all(isinstance(m, str) for m in legal)
        if len(moves) in checks:
            _check_bad_moves(spec, state)
            _check_clone(state, rng)
            _check_secrecy(spec, state, rng)
        move = rng.choice(legal)
        before = state.clone()
        state.play(move)
        moves.append((seat, move))
        _check_events(spec, before, move, state)
        assert len(moves) < 20000
    outcome = state.outcome
    assert isinstance(outcome, Outcome) and len(outcome.scores) == players
    assert all(0 <= w < players for w in outcome.winners) and state.winner == outcome.winner
    json.dumps(outcome.to_json())
    assert state.legal_moves() == []
    # the record round-trips through JSON and replays to the same end
    record = json.loads(json.dumps(state.record()))
    again = spec.from_record(record)
    assert again.outcome == outcome and _same_json(again.view(None), state.view(None))
    assert _same_json(again.record(), record)
    # the move log replays from the seed, and the dump crosses a process boundary
    replayed = spec.replay(seed, players, None, moves)
    assert replayed.outcome == outcome and _same_json(replayed.view(None), state.view(None))
    loaded = spec.load_state(json.loads(json.dumps(spec.dump_state(state))))
    assert loaded.outcome == outcome
    with pytest.raises(spec.illegal_errors):
        state.play(moves[-1][1])  # no move after the end


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_spec_facts_and_options(spec: GameSpec) -> None:
    facts = json.loads(json.dumps(spec.to_json()))
    assert facts["id"] == spec.id and facts["players"] == list(spec.players)
    assert spec.seats_default in spec.players
    defaults = spec.normalize_options(None, None)
    assert defaults == spec.default_options()
    assert spec.normalize_options(spec.seats_default, defaults) == defaults  # canonical forms are stable
    with pytest.raises(OptionsError):
        spec.normalize_options(None, {"no-such-option": 1})
    with pytest.raises(OptionsError):
        spec.normalize_options(max(spec.players) + 1, None)
    for option in spec.options:
        with pytest.raises(OptionsError):
            spec.normalize_options(None, {option.name: "no-such-choice"})


def test_the_registry_lists_each_game_once_and_refuses_unknown_ids() -> None:
    ids = games.ids()
    assert len(ids) == len(set(ids)) and {"leaders", "hidden-leaders"} <= set(ids)
    with pytest.raises(games.UnknownGameError):
        games.get("no-such-game")
    games.register(toy_game.SPEC)
    try:
        assert games.get(toy_game.GAME) is toy_game.SPEC and games.ids()[-1] == toy_game.GAME
    finally:
        games.unregister(toy_game.GAME)
    assert toy_game.GAME not in games.ids()
