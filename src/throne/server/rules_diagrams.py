"""Board diagrams of the Leaders rules page, computed by the engine.

Each diagram is a small position string: the engine reads it, lists the legal moves of the piece shown (or
says that a Leader is captured or surrounded), and the cells those moves reach are marked. Nothing here
restates a rule: a diagram that the engine does not confirm raises when it is built (and fails the tests).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache

from throne.games import leaders
from throne.games.leaders.board import COORDS, DISTANCE, LINE2, NAMES, NEIGHBOURS, RECRUIT_CELLS
from throne.games.leaders.pieces import CODES, KIND_TYPES

SIZE = 10.0
_CELL_OF = {n: i for i, n in enumerate(NAMES)}
_MARKET = "market=- deck=- recruits=1 turns=4"


@dataclass(frozen=True)
class Hex:
    name: str
    points: str
    x: float
    y: float
    mark: str  # "" or one of: dest, target, counts, zero, zone, recruit-south, recruit-north


@dataclass(frozen=True)
class Piece:
    code: str
    side: int
    x: float
    y: float
    focus: bool


@dataclass(frozen=True)
class Diagram:
    key: str
    hexes: tuple[Hex, ...]
    pieces: tuple[Piece, ...]
    view_box: str
    legend: tuple[str, ...] = field(default=())


def _centre(cell: int) -> tuple[float, float]:
    q, r = COORDS[cell]
    return SIZE * 1.5 * q, SIZE * math.sqrt(3) * (r + q / 2)


def _points(x: float, y: float) -> str:
    corners = ((x + SIZE * math.cos(math.pi / 3 * i), y + SIZE * math.sin(math.pi / 3 * i)) for i in range(6))
    return " ".join(f"{a:.1f},{b:.1f}" for a, b in corners)


def _pieces(position: str) -> list[tuple[int, str, str]]:
    out = []
    for side, token in enumerate(re.findall(r"\b[SN]=(\S+)", position)):
        for item in token.split(","):
            out.append((side, item[:-2], item[-2:]))
    return out


def draw(key: str, position: str, marks: dict[str, str], focus: str | None = None,
         legend: tuple[str, ...] = ()) -> Diagram:
    hexes = []
    for cell, name in enumerate(NAMES):
        x, y = _centre(cell)
        hexes.append(Hex(name, _points(x, y), x, y, marks.get(name, "")))
    pieces = []
    for side, code, cell in _pieces(position):
        x, y = _centre(_CELL_OF[cell])
        pieces.append(Piece(code, side, x, y, cell == focus))
    w, h = SIZE * 11.2, SIZE * 12.4
    return Diagram(key, tuple(hexes), tuple(pieces), f"{-w / 2:.0f} {-h / 2:.0f} {w:.0f} {h:.0f}", legend)


def _state(position: str) -> leaders.State:
    return leaders.from_position(f"{position} turn=S phase=action acted=- {_MARKET}")


def _moves_from(position: str, cell: str) -> list[str]:
    return [m for m in _state(position).legal_moves() if m.startswith((f"{cell}-", f"{cell}:"))]


def _dests(moves: list[str], *, skip_steps_from: str | None = None) -> dict[str, str]:
    """Cells the moves reach: ``FROM-...-TO`` marks TO; ``FROM:TARGET>DEST`` marks TARGET and DEST;
    ``FROM:TARGET`` (a swap) marks TARGET. ``skip_steps_from`` leaves out single basic steps."""
    marks: dict[str, str] = {}
    for move in moves:
        if ":" in move:
            _, rest = move.split(":", 1)
            target, _, dest = rest.partition(">")
            marks[target] = "target"
            if dest:
                marks.setdefault(dest, "dest")
            continue
        path = move.split("-")
        if skip_steps_from and len(path) == 2 and DISTANCE[_CELL_OF[path[0]]][_CELL_OF[path[1]]] == 1:
            continue
        marks.setdefault(path[-1], "dest")
    return marks


def _cells(cells: list[int] | tuple[int, ...], mark: str) -> dict[str, str]:
    return {NAMES[c]: mark for c in cells}


# One scenario per piece: (position pieces, the cell of the piece shown, whether basic steps are hidden).
_SCENARIOS: dict[str, tuple[str, str, bool]] = {
    "L": ("S=Ld3 N=Ld7", "d3", False),
    "AC": ("S=Ld1,ACd4,RIc4 N=Ld7,BRd5", "d4", True),
    "RI": ("S=Ld1,RId4 N=Ld7,ACe4", "d4", True),
    "BR": ("S=Ld1,BRd4 N=Ld7,ACd5", "d4", True),
    "RG": ("S=Lb2,RGe4 N=Ld7", "e4", True),
    "IL": ("S=Ld1,ILd3,RIf2 N=Ld7,ACd6,MAb4", "d3", True),
    "CL": ("S=Ld1,CLd3 N=Ld7,ACd6", "d3", True),
    "MA": ("S=Ld1,MAd3 N=Ld7,ACd6", "d3", True),
    "WA": ("S=Ld1,WAd3 N=Ld7,ACc5,BRf4", "d3", True),
    "BM": ("S=Ld1,BMd3,RIc3 N=Ld7", "d3", True),
    "VI": ("S=Ld2,VIf2 N=Ld7", "d2", False),
    "HE": ("S=Ld1,HEc3,CUe3 N=Ld7", "c3", False),
}


def _hermit(position: str) -> dict[str, str]:
    moves = _state(position).legal_moves()
    marks: dict[str, str] = {}
    for move in moves:
        for path in move.split(","):
            if path.startswith(("c3-", "e3-")) and len(path.split("-")) == 2:
                marks.setdefault(path.split("-")[1], "dest")
    return marks


@cache
def champion_diagrams() -> dict[str, Diagram]:
    """code -> the diagram of its move or ability (every piece code of the engine's table)."""
    out: dict[str, Diagram] = {}
    for code, (pos, cell, skip) in _SCENARIOS.items():
        if code == "HE":
            marks = _hermit(pos)
        elif code == "RG":  # where the Guard lands next to its Leader (the optional extra step is not drawn)
            near = {NAMES[c] for c in NEIGHBOURS[_CELL_OF["b2"]]}
            marks = {m.split("-")[1]: "dest" for m in _moves_from(pos, cell) if m.split("-")[1] in near}
        else:
            marks = _dests(_moves_from(pos, cell), skip_steps_from=cell if skip else None)
        if not marks:
            raise AssertionError(f"the engine gives no move for the {code} diagram")
        out[code] = draw(code, pos, marks, focus=cell)
    d4 = _CELL_OF["d4"]
    # Passive pieces: the cells where their effect applies (board geometry of the engine).
    archer = "S=Ld1,ARd2 N=Ld4"
    marks = {**_cells(NEIGHBOURS[d4], "zero"), **_cells(LINE2[d4], "counts")}
    out["AR"] = draw("AR", archer, marks, focus="d2")
    out["AS"] = draw("AS", "S=Ld1,ASd3 N=Ld4", _cells(NEIGHBOURS[d4], "counts"), focus="d3")
    out["JA"] = draw("JA", "S=Ld1,JAd4 N=Ld7,BRd5", _cells(NEIGHBOURS[d4], "zone"), focus="d4")
    out["PR"] = draw("PR", "S=Ld1,PRd4,RIc4 N=Ld7", _cells(NEIGHBOURS[d4], "zone"), focus="d4")
    out["CU"] = out["HE"]
    two = [c for c in range(len(NAMES)) if DISTANCE[d4][c] == 2]
    out["NE"] = draw("NE", "S=Ld1,NEd4 N=Ld7", _cells(two, "dest"), focus="d4")
    missing = set(CODES) - set(out)
    if missing:
        raise AssertionError(f"no diagram for {sorted(missing)}")
    return out


#: Positions that show how a Leader is lost; the engine must read each as won by South.
LOSS_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    ("capture-two", "S=Ld1,RId3,BRe4 N=Ld4", "capture"),
    ("capture-archer", "S=Ld1,ARd2,RIc4 N=Ld4", "capture"),
    ("capture-assassin", "S=Ld1,ASe4 N=Ld4", "capture"),
    ("surround", "S=Ld1,RIa3 N=La4,ACb4,BRb5", "surround"),
)


@cache
def loss_diagrams() -> list[Diagram]:
    out = []
    for key, pos, how in LOSS_EXAMPLES:
        st = _state(pos)
        if not (st.is_over and st.winner == 0 and st.termination == how):
            raise AssertionError(f"the engine does not read {pos!r} as a {how} by South")
        north_leader = next(cell for side, code, cell in _pieces(pos) if side == 1 and code == "L")
        lc = _CELL_OF[north_leader]
        marks = _cells(NEIGHBOURS[lc], "zone")
        if key == "capture-archer":
            marks.update(_cells(LINE2[lc], "counts"))
        out.append(draw(key, pos, marks, focus=north_leader))
    return out


def recruit_diagram() -> Diagram:
    marks = {**_cells(RECRUIT_CELLS[0], "recruit-south"), **_cells(RECRUIT_CELLS[1], "recruit-north")}
    return draw("recruit", "S=Ld1 N=Ld7", marks)


def kind_of(code: str) -> str:
    """``active``, ``passive``, ``special`` or ``-`` (the Leader), from the engine's piece table."""
    return KIND_TYPES[CODES.index(code)]
