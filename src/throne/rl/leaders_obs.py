"""Leaders observations: feature planes over the hex board, from one side's point of view.

The board is drawn into a 7×7 array with axial coordinates: for the observing side South (seat 0) a cell
`(q, r)` goes to `[row, col] = [r + 3, q + 3]`; for North (seat 1) the board is turned half a turn,
`(q, r) -> (-q, -r)`, so that the observer's own start corner (`d1` for South, `d7` for North) is always at
`[6, 3]` and its recruitment cells along the bottom edges. 12 of the 49 entries are off the board (plane
`ON_BOARD` is 0 there). Every plane is float32; the constant planes repeat one number over the board.

The observation is built from `State.view()` only, which never contains the order of the face-down deck.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

SIZE = 7
RADIUS = 3
COLUMNS = "abcdefg"
#: Piece codes in rule-book order: planes `MINE + i` and `THEIRS + i` hold piece CODES[i].
CODES: tuple[str, ...] = (
    "L", "AC", "RI", "BR", "RG", "IL", "CL", "MA", "WA", "BM", "AR", "AS", "JA", "PR", "VI", "HE", "CU", "NE",
)  # fmt: skip
#: The 16 champion cards of the deck (Hermit & Cub is the card HE): planes `MARKET + i`.
CARD_CODES: tuple[str, ...] = tuple(c for c in CODES if c not in ("L", "CU"))
PHASES: tuple[str, ...] = ("action", "recruit", "reaction")

MINE = 0
THEIRS = MINE + len(CODES)
ACTED = THEIRS + len(CODES)  # cells of the turn side's pieces that already acted this turn
ON_BOARD = ACTED + 1
MY_RECRUIT = ON_BOARD + 1  # observer's recruitment cells
THEIR_RECRUIT = MY_RECRUIT + 1
PHASE = THEIR_RECRUIT + 1  # one constant plane per phase (PHASES order)
MY_TURN = PHASE + len(PHASES)  # 1 when the turn belongs to the observer
TO_PLAY = MY_TURN + 1  # 1 when the observer must decide now
MARKET = TO_PLAY + 1  # one constant plane per champion card: 1 while it is face up in the market
RECRUITS = MARKET + len(CARD_CODES)  # recruitments left this turn / 2
DECK = RECRUITS + 1  # cards left in the deck / 16
TURNS = DECK + 1  # completed turns / 200
NUM_PLANES = TURNS + 1
SHAPE: tuple[int, int, int] = (NUM_PLANES, SIZE, SIZE)

_CODE_INDEX = {c: i for i, c in enumerate(CODES)}
_CARD_INDEX = {c: i for i, c in enumerate(CARD_CODES)}
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}


def cell_coords(cell: str) -> tuple[int, int]:
    """Axial `(q, r)` of a cell name (`d1` -> `(0, 3)`), as in the rule book §1."""
    q = COLUMNS.index(cell[0]) - RADIUS
    r_max = min(RADIUS, RADIUS - q)
    return q, r_max - int(cell[1:]) + 1


def cell_index(cell: str, observer: int) -> tuple[int, int]:
    """`(row, col)` of a cell in the observation planes of `observer` (0 South, 1 North)."""
    q, r = cell_coords(cell)
    if observer == 1:
        q, r = -q, -r
    return r + RADIUS, q + RADIUS


ALL_CELLS: tuple[str, ...] = tuple(
    f"{COLUMNS[q + RADIUS]}{row}"
    for q in range(-RADIUS, RADIUS + 1)
    for row in range(1, 2 * RADIUS + 2 - abs(q))
)
_INDEX: tuple[dict[str, tuple[int, int]], ...] = tuple(
    {cell: cell_index(cell, observer) for cell in ALL_CELLS} for observer in (0, 1)
)
_RECRUIT = (
    tuple(f"{col}1" for col in COLUMNS),
    ("a4", "b5", "c6", "d7", "e6", "f5", "g4"),
)


def _static_planes(observer: int) -> np.ndarray:
    planes = np.zeros(SHAPE, dtype=np.float32)
    for cell in ALL_CELLS:
        planes[(ON_BOARD, *cell_index(cell, observer))] = 1.0
    for side, plane in ((observer, MY_RECRUIT), (1 - observer, THEIR_RECRUIT)):
        for cell in _RECRUIT[side]:
            planes[(plane, *cell_index(cell, observer))] = 1.0
    return planes


_STATIC = (_static_planes(0), _static_planes(1))


def encode(view: Mapping[str, Any], observer: int) -> np.ndarray:
    """The planes of `view` (a `State.view()` dict) seen by `observer`; shape `SHAPE`."""
    if observer not in (0, 1):
        raise ValueError(f"a Leaders observer is seat 0 or 1, got {observer}")
    planes = _STATIC[observer].copy()
    turn = view["turn"]
    acted = set(view.get("acted") or ())
    index = _INDEX[observer]
    for piece in view["pieces"]:
        side, code = piece["side"], piece["code"]
        row, col = index[piece["cell"]]
        base = MINE if side == observer else THEIRS
        planes[base + _CODE_INDEX[code], row, col] = 1.0
        if side == turn and code in acted:
            planes[ACTED, row, col] = 1.0
    phase = _PHASE_INDEX.get(view["phase"])
    if phase is not None and not view.get("is_over"):
        planes[PHASE + phase] = 1.0
    if turn == observer:
        planes[MY_TURN] = 1.0
    if view.get("to_play") == observer and not view.get("is_over"):
        planes[TO_PLAY] = 1.0
    for card in view.get("market") or ():
        if card is not None:
            planes[MARKET + _CARD_INDEX[card]] = 1.0
    planes[RECRUITS] = view.get("recruits", 0) / 2.0
    planes[DECK] = view.get("deck_size", 0) / 16.0
    planes[TURNS] = min(view.get("turns", 0), 200) / 200.0
    return planes


def render(view: Mapping[str, Any]) -> str:
    """A plain-text picture of the board, South at the bottom: columns a..g side by side, each cell drawn at
    its hex height; South's pieces in capitals, North's in lower case, `.` an empty cell."""
    lines = [[" "] * (SIZE * 4) for _ in range(4 * RADIUS + 1)]
    occupant = {p["cell"]: p["code"] if p["side"] == 0 else p["code"].lower() for p in view["pieces"]}
    for cell in ALL_CELLS:
        q, r = cell_coords(cell)
        text = occupant.get(cell, ".").center(3)
        y, x = 2 * r + q + 2 * RADIUS, (q + RADIUS) * 4
        lines[y][x : x + 3] = text
    rows = ["".join(line).rstrip() for line in lines]
    rows.append("".join(c.center(4) for c in COLUMNS).rstrip())
    market = ",".join(c or "-" for c in view["market"])
    rows.append(f"turn={'SN'[view['turn']]} phase={view['phase']} market={market} deck={view['deck_size']}")
    if view.get("is_over"):
        rows.append(f"over: {view.get('termination')}, winner {view.get('winner')}")
    return "\n".join(rows)
