"""The fixed action space: every move string the engine can ever produce or accept, numbered once at import.

Ids do not depend on the position: the same move string has the same id everywhere. The numbering walks the
move shapes in this order (see docs/leaders.md): ``end``; two-cell paths; three-cell paths; moves acting on a
target (``FROM:TARGET>DEST``); Illusionist swaps (``FROM:TARGET``); two-path Hermit & Cub activations;
recruitments; Hermit & Cub recruitments; banishments (``ban CODE``, Strategist mode).
"""

from __future__ import annotations

from .board import ADJACENT, DISTANCE, NAMES, NEIGHBOURS, NUM_CELLS, RAYS, RECRUIT_CELLS, in_line
from .pieces import CARDS, CODES, HE

T_END, T_PATH, T_TARGET, T_SWAP, T_HC2, T_REC, T_RECHC, T_BAN = range(8)

N = NUM_CELLS
#: DECODE[id] = (type, args): args are cell indices, or (kind, cell) for T_REC, or (kind,) for T_BAN.
DECODE: list[tuple[int, tuple[int, ...]]] = []
MOVE_STRINGS: list[str] = []
ID_OF: dict[str, int] = {}


def _add(t: int, args: tuple[int, ...], text: str) -> int:
    i = len(DECODE)
    DECODE.append((t, args))
    MOVE_STRINGS.append(text)
    ID_OF[text] = i
    return i


END = _add(T_END, (), "end")

#: PATH2[a][b]: id of the path a-b (-1 for a == b).
PATH2: list[list[int]] = [[-1] * N for _ in range(N)]
for _a in range(N):
    for _b in range(N):
        if _a != _b:
            PATH2[_a][_b] = _add(T_PATH, (_a, _b), f"{NAMES[_a]}-{NAMES[_b]}")


def _line2(a: int, b: int) -> bool:
    return DISTANCE[a][b] == 2 and in_line(a, b) >= 0


#: PATH3[(a * N + b) * N + c]: id of the path a-b-c, or -1 when no piece can ever take it.
PATH3: list[int] = [-1] * (N * N * N)
for _a in range(N):
    for _b in range(N):
        if _b == _a:
            continue
        for _c in range(N):
            if _c in (_a, _b):
                continue
            if ADJACENT[_b][_c] or (_line2(_a, _b) and _line2(_b, _c)):
                PATH3[(_a * N + _b) * N + _c] = _add(
                    T_PATH, (_a, _b, _c), f"{NAMES[_a]}-{NAMES[_b]}-{NAMES[_c]}"
                )

#: TARGET[(f * N + t) * N + d]: id of FROM:TARGET>DEST, or -1.
TARGET: list[int] = [-1] * (N * N * N)
for _f in range(N):
    for _dir in range(6):
        _ray = RAYS[_f][_dir]
        for _i, _t in enumerate(_ray):
            dests = set(NEIGHBOURS[_t])
            if _i >= 1:
                dests.add(_ray[0])
            dests.discard(_f)
            for _d in sorted(dests):
                TARGET[(_f * N + _t) * N + _d] = _add(
                    T_TARGET, (_f, _t, _d), f"{NAMES[_f]}:{NAMES[_t]}>{NAMES[_d]}"
                )

#: SWAP[f][t]: id of the Illusionist swap FROM:TARGET, or -1.
SWAP: list[list[int]] = [[-1] * N for _ in range(N)]
for _f in range(N):
    for _dir in range(6):
        for _t in RAYS[_f][_dir][1:]:
            SWAP[_f][_t] = _add(T_SWAP, (_f, _t), f"{NAMES[_f]}:{NAMES[_t]}")

#: HC2[(f1, t1, f2, t2)]: id of the two-path Hermit & Cub activation f1-t1,f2-t2.
HC2: dict[tuple[int, int, int, int], int] = {}
for _f1 in range(N):
    for _t1 in NEIGHBOURS[_f1]:
        for _f2 in range(N):
            if _f2 in (_f1, _t1):
                continue
            for _t2 in NEIGHBOURS[_f2]:
                if _t2 == _t1:
                    continue
                HC2[(_f1, _t1, _f2, _t2)] = _add(
                    T_HC2,
                    (_f1, _t1, _f2, _t2),
                    f"{NAMES[_f1]}-{NAMES[_t1]},{NAMES[_f2]}-{NAMES[_t2]}",
                )

_ALL_RECRUIT = RECRUIT_CELLS[0] + RECRUIT_CELLS[1]
#: REC[kind][cell]: id of +CODE@CELL (-1 when impossible).
REC: list[list[int]] = [[-1] * N for _ in range(len(CODES))]
for _k in CARDS:
    if _k == HE:
        continue
    for _c in _ALL_RECRUIT:
        REC[_k][_c] = _add(T_REC, (_k, _c), f"+{CODES[_k]}@{NAMES[_c]}")

#: RECHC[c1][c2]: id of +HE@C1,C2 (Hermit on c1, Cub on c2).
RECHC: list[list[int]] = [[-1] * N for _ in range(N)]
for _side_cells in RECRUIT_CELLS:
    for _c1 in _side_cells:
        for _c2 in _side_cells:
            if _c1 != _c2:
                RECHC[_c1][_c2] = _add(T_RECHC, (_c1, _c2), f"+HE@{NAMES[_c1]},{NAMES[_c2]}")

#: BAN[kind]: id of ``ban CODE`` (Strategist mode: the card is out of the game; -1 for non-cards).
BAN: list[int] = [-1] * len(CODES)
for _k in CARDS:
    BAN[_k] = _add(T_BAN, (_k,), f"ban {CODES[_k]}")

NUM_ACTIONS = len(DECODE)


def action_to_move(action: int) -> str:
    """The move string of an action id."""
    return MOVE_STRINGS[action]
