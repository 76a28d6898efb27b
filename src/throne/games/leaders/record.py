"""Game records (§5.3): replaying a record into a State."""

from __future__ import annotations

from typing import Any

from .errors import IllegalMoveError, PositionError, RecordError
from .state import State, from_position


def record_to_state(record: dict[str, Any], draw_rule: bool | None = None) -> State:
    """Replay a record from its start position; raises RecordError naming the first bad move.

    ``draw_rule`` defaults to the record's optional ``draw_rule`` field (absent means on).
    """
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    if record.get("game") != "leaders":
        raise RecordError(f"not a Leaders record (game={record.get('game')!r})")
    start, moves = record.get("start"), record.get("moves")
    if not isinstance(start, str) or not isinstance(moves, list):
        raise RecordError("a record needs a 'start' position string and a 'moves' list")
    if draw_rule is None:
        draw_rule = bool(record.get("draw_rule", True))
    try:
        st = from_position(start, draw_rule=draw_rule)
    except PositionError as exc:
        raise RecordError(f"bad start position: {exc}") from exc
    for i, move in enumerate(moves, 1):
        if not isinstance(move, str):
            raise RecordError(f"move {i} is not a string: {move!r}")
        try:
            st.play(move)
        except IllegalMoveError as exc:
            raise RecordError(f"move {i} ({move!r}) cannot be played: {exc}") from exc
    result = record.get("result")
    expected = None if st.termination is None else ("draw" if st.winner is None else "SN"[st.winner])
    if "result" in record and result != expected:
        raise RecordError(f"the record says result={result!r} but replaying gives {expected!r}")
    return st
