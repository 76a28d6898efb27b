"""Shared helpers for the Leaders tests: compact position strings and per-piece move sets."""

from __future__ import annotations

from throne.games import leaders
from throne.games.leaders.board import CELL_OF

TAIL = "turn={turn} phase={phase} acted={acted} market={market} deck={deck} recruits={recruits} turns={turns}"


def pos(
    south: str,
    north: str,
    turn: str = "S",
    phase: str = "action",
    acted: str = "-",
    market: str = "-",
    deck: str = "-",
    recruits: int = 1,
    turns: int = 6,
) -> str:
    return f"S={south} N={north} " + TAIL.format(
        turn=turn, phase=phase, acted=acted, market=market, deck=deck, recruits=recruits, turns=turns
    )


def state(south: str, north: str, **kw: object) -> leaders.State:
    return leaders.from_position(pos(south, north, **kw))  # type: ignore[arg-type]


def moves_from(st: leaders.State, *cells: str) -> set[str]:
    """Legal moves whose (first) acting piece stands on one of ``cells``."""
    out = set()
    for m in st.legal_moves():
        head = m.split(",")[0]
        first = head.replace(":", "-").split("-")[0]
        if first in cells:
            out.add(m)
    return out


def cells(*names: str) -> list[int]:
    return [CELL_OF[n] for n in names]
