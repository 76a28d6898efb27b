"""A plain text front end for any registered game: it shows the seat's view as JSON and numbers the legal
moves; nothing in it knows a rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from throne import terminal
from throne.games import GameSpec
from throne.games.randomness import new_secret

InputFn = Callable[[str], str]
OutputFn = Callable[[str], None]


def _ask(spec: GameSpec, state: Any, seat: int, input_fn: InputFn, out: OutputFn) -> str:
    moves = state.legal_moves()
    out(json.dumps(state.view(seat), sort_keys=True))
    out("  ".join(f"{i}) {m}" for i, m in enumerate(moves, 1)))
    while True:
        text = input_fn(f"seat {seat}> ").strip()
        if text.isdigit() and 1 <= int(text) <= len(moves):
            return moves[int(text) - 1]
        if text in moves:
            return text
        out(f"{text!r} is not one of the options; type a number from 1 to {len(moves)} or a move.")


def play(
    spec: GameSpec,
    *,
    opponent: str,
    seat: int,
    players: int,
    options: dict[str, Any],
    seed: int | None,
    input_fn: InputFn = input,
    out: OutputFn = print,
) -> None:
    """One human in `seat` (every seat with opponent 'human') against bots."""
    from throne import ai

    if not 0 <= seat < players:
        raise SystemExit(f"error: the seat must be in 0..{players - 1}, not {seat}")
    seed = new_secret() if seed is None else seed
    state = spec.new_game(seed, players, options)
    humans = set(range(players)) if opponent == "human" else {seat}
    rng = terminal.bot_rng()
    try:
        bots = {s: ai.make_bot(spec.id, opponent, seed=rng.getrandbits(63)) for s in range(players)
                if s not in humans}
    except ai.AIError as exc:
        raise SystemExit(f"error: {exc}") from exc
    out(f"{spec.name}, {players} players. You are seat {seat}.")
    try:
        while not state.is_over:
            who = state.to_play
            move = _ask(spec, state, who, input_fn, out) if who in humans else bots[who].choose(state, who)
            state.play(move)
            if who not in humans:
                out(f"seat {who}: {spec.last_public_move(state)}")
    except (KeyboardInterrupt, EOFError):
        out("\nGame abandoned.")
        return
    out(json.dumps(state.view(seat), sort_keys=True))
    out(f"game over: {json.dumps(state.outcome.to_json(), sort_keys=True)}")
    out(f"Seed of this game (replays it with its moves): {seed}")


def replay(spec: GameSpec, record: dict[str, Any], *, out: OutputFn = print) -> None:
    """Check a record by replaying it and print its moves and its outcome."""
    try:
        state = spec.from_record(record)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from exc
    for n, move in enumerate(record.get("moves") or [], 1):
        out(f"#{n} {move}")
    outcome = state.outcome
    out("unfinished" if outcome is None else f"game over: {json.dumps(outcome.to_json(), sort_keys=True)}")
