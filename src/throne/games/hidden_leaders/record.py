"""Game records (rule book §7.3): a seed, its generator version and the move list.

``"rng": 2`` records deal from the keyed generator (``throne.games.randomness``); records without ``"rng"``
were dealt by the legacy generator and replay through it.
"""

from __future__ import annotations

from typing import Any

from ..randomness import LEGACY_RNG
from .state import IllegalMoveError, State


class RecordError(ValueError):
    """A game record that cannot be replayed; the message names the bad move."""


def record(st: State) -> dict[str, Any]:
    from . import scoring

    result = None
    if st.phase == "over":
        result = {"faction": scoring.result_faction(st), "winner": scoring.winner(st)}
    rec: dict[str, Any] = {
        "game": "hidden-leaders", "players": st.players, "variant": st.variant, "modules": list(st.modules),
        "seed": st.seed, "moves": [[s, m] for s, m in st.history], "result": result,
    }
    if st.rng_version != LEGACY_RNG:  # legacy records keep their old shape (no "rng" means legacy)
        rec["rng"] = st.rng_version
    return rec


def record_to_state(rec: dict[str, Any]) -> State:
    """Replay a record on a new deal of the same seed."""
    from .rules import new_game

    if not isinstance(rec, dict) or rec.get("game") != "hidden-leaders":
        raise RecordError("not a Hidden Leaders record ('game' must be 'hidden-leaders')")
    try:
        st = new_game(players=rec["players"], seed=rec["seed"], variant=rec.get("variant", "full"),
                      modules=tuple(rec.get("modules", ("core",))), rng=rec.get("rng", LEGACY_RNG))
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
