"""Game records (rule book §7.3): a seed plus the move list."""

from __future__ import annotations

from typing import Any

from .state import IllegalMoveError, State


class RecordError(ValueError):
    """A game record that cannot be replayed; the message names the bad move."""


def record(st: State) -> dict[str, Any]:
    from . import scoring

    result = None
    if st.phase == "over":
        result = {"faction": scoring.result_faction(st), "winner": scoring.winner(st)}
    return {
        "game": "hidden-leaders", "players": st.players, "variant": st.variant, "modules": list(st.modules),
        "seed": st.seed, "moves": [[s, m] for s, m in st.history], "result": result,
    }


def record_to_state(rec: dict[str, Any]) -> State:
    """Replay a record on a new deal of the same seed."""
    from .rules import new_game

    if not isinstance(rec, dict) or rec.get("game") != "hidden-leaders":
        raise RecordError("not a Hidden Leaders record ('game' must be 'hidden-leaders')")
    try:
        st = new_game(players=rec["players"], seed=rec["seed"], variant=rec.get("variant", "full"),
                      modules=tuple(rec.get("modules", ("core",))))
    except KeyError as exc:
        raise RecordError(f"the record lacks the field {exc.args[0]!r}") from exc
    except ValueError as exc:
        raise RecordError(f"bad record header: {exc}") from exc
    moves = rec.get("moves")
    if not isinstance(moves, list):
        raise RecordError("'moves' must be a list of [seat, move] pairs")
    for n, item in enumerate(moves):
        if not (isinstance(item, (list, tuple)) and len(item) == 2):
            raise RecordError(f"move {n}: expected [seat, move], got {item!r}")
        seat, move = item
        if st.phase == "over":
            raise RecordError(f"move {n} ({seat}, {move!r}): the game is already over")
        if seat != st.to_play:
            raise RecordError(f"move {n} ({seat}, {move!r}): seat {st.to_play} is to play, not {seat}")
        try:
            st.play(move)
        except IllegalMoveError as exc:
            raise RecordError(f"move {n} ({seat}, {move!r}) is illegal: {exc}") from exc
    res = rec.get("result")
    if res is not None and st.phase == "over":
        got = {"faction": st.winning_faction, "winner": st.winner}
        if dict(res) != got:
            raise RecordError(f"the recorded result {res!r} differs from the replayed result {got!r}")
    return st
