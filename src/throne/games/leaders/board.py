"""The 37-cell hexagonal board: cell indices, names and precomputed geometry tables.

Cells are indexed 0..36 column by column (a..g), bottom (row 1) to top. Every table is built once at import.
"""

from __future__ import annotations

RADIUS = 3
COLUMNS = "abcdefg"
#: The six axial directions in cyclic order; rotating by ±60° is index ±1 (mod 6).
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))


def _on_board(q: int, r: int) -> bool:
    return max(abs(q), abs(r), abs(q + r)) <= RADIUS


def _build_cells() -> list[tuple[int, int]]:
    cells: list[tuple[int, int]] = []
    for q in range(-RADIUS, RADIUS + 1):
        r_max = min(RADIUS, RADIUS - q)
        r_min = max(-RADIUS, -RADIUS - q)
        for r in range(r_max, r_min - 1, -1):  # row 1 (largest r) first
            cells.append((q, r))
    return cells


COORDS: tuple[tuple[int, int], ...] = tuple(_build_cells())
NUM_CELLS = len(COORDS)
INDEX: dict[tuple[int, int], int] = {c: i for i, c in enumerate(COORDS)}


def _name(q: int, r: int) -> str:
    return f"{COLUMNS[q + RADIUS]}{min(RADIUS, RADIUS - q) - r + 1}"


NAMES: tuple[str, ...] = tuple(_name(q, r) for q, r in COORDS)
CELL_OF: dict[str, int] = {n: i for i, n in enumerate(NAMES)}


def _step(cell: int, d: int) -> int:
    q, r = COORDS[cell]
    dq, dr = DIRECTIONS[d]
    return INDEX.get((q + dq, r + dr), -1)


#: STEP[cell][d]: the neighbour in direction d, or -1 off the board.
STEP: tuple[tuple[int, ...], ...] = tuple(tuple(_step(c, d) for d in range(6)) for c in range(NUM_CELLS))
#: NEIGHBOURS[cell]: on-board neighbours in direction order.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(tuple(n for n in STEP[c] if n >= 0) for c in range(NUM_CELLS))
#: NEIGHBOUR_DIRS[cell]: (direction, neighbour) pairs.
NEIGHBOUR_DIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((d, STEP[c][d]) for d in range(6) if STEP[c][d] >= 0) for c in range(NUM_CELLS)
)


def _ray(cell: int, d: int) -> tuple[int, ...]:
    out = []
    c = STEP[cell][d]
    while c >= 0:
        out.append(c)
        c = STEP[c][d]
    return tuple(out)


#: RAYS[cell][d]: cells along direction d, nearest first (empty tuple at the edge).
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ray(c, d) for d in range(6)) for c in range(NUM_CELLS)
)


def distance(a: int, b: int) -> int:
    (q1, r1), (q2, r2) = COORDS[a], COORDS[b]
    dq, dr = q1 - q2, r1 - r2
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


DISTANCE: tuple[tuple[int, ...], ...] = tuple(
    tuple(distance(a, b) for b in range(NUM_CELLS)) for a in range(NUM_CELLS)
)
#: LINE2[cell]: cells exactly 2 away in a straight line (the Archer's reach).
LINE2: tuple[tuple[int, ...], ...] = tuple(
    tuple(RAYS[c][d][1] for d in range(6) if len(RAYS[c][d]) >= 2) for c in range(NUM_CELLS)
)
#: NEAR2[cell][x]: True when x is within distance 2 of cell (what can change a Leader's fate).
NEAR2: tuple[tuple[bool, ...], ...] = tuple(
    tuple(DISTANCE[a][b] <= 2 for b in range(NUM_CELLS)) for a in range(NUM_CELLS)
)
#: ADJACENT[a][b]: True when a and b are neighbours.
ADJACENT: tuple[tuple[bool, ...], ...] = tuple(
    tuple(DISTANCE[a][b] == 1 for b in range(NUM_CELLS)) for a in range(NUM_CELLS)
)
#: NEIGHBOUR_MASK[cell]: bitmask of the neighbours.
NEIGHBOUR_MASK: tuple[int, ...] = tuple(sum(1 << n for n in NEIGHBOURS[c]) for c in range(NUM_CELLS))
ALL_MASK = (1 << NUM_CELLS) - 1


def in_line(a: int, b: int) -> int:
    """Direction index from a to b if they share a straight line, else -1."""
    for d in range(6):
        if b in RAYS[a][d]:
            return d
    return -1


START_CELLS: tuple[int, int] = (CELL_OF["d1"], CELL_OF["d7"])
#: RECRUIT_CELLS[side]: the 7 recruitment cells (South: bottom of each column; North: top).
RECRUIT_CELLS: tuple[tuple[int, ...], tuple[int, ...]] = (
    tuple(CELL_OF[f"{col}1"] for col in COLUMNS),
    tuple(CELL_OF[n] for n in ("a4", "b5", "c6", "d7", "e6", "f5", "g4")),
)
RECRUIT_SET: tuple[frozenset[int], frozenset[int]] = (
    frozenset(RECRUIT_CELLS[0]),
    frozenset(RECRUIT_CELLS[1]),
)
