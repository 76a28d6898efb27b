"""The documented fast path of the Leaders engine, for bots and learning code that need more speed than the
string contract (`throne.games.api`) gives. Everything a searcher or an encoder may rely on is re-exported
here; the other modules of the package are internals and may change.

State methods of the fast path: `legal_actions()` (integer action ids), `apply(action)`, `undo()`, `key()`
(a hashable position for transpositions), `clone()`, `position()`, `pieces()`, `turn`, `turns`, `phase`,
`acted`, `market`, `banned`, `loc` and `board` (piece locations and cell contents, indexed as in `board.py`).
"""

from __future__ import annotations

from .actions import MOVE_STRINGS, NUM_ACTIONS, action_to_move
from .board import DISTANCE, LINE2, NEIGHBOURS, NUM_CELLS
from .hidden import blind_record, redeal
from .notation import parse_move as move_to_action
from .pieces import AR, AS, CODES, CU, NE, NUM_KINDS
from .rules import ACTION
from .state import State, from_position

__all__ = [
    "ACTION",
    "AR",
    "AS",
    "CODES",
    "CU",
    "DISTANCE",
    "LINE2",
    "MOVE_STRINGS",
    "NE",
    "NEIGHBOURS",
    "NUM_ACTIONS",
    "NUM_CELLS",
    "NUM_KINDS",
    "State",
    "action_to_move",
    "blind_record",
    "from_position",
    "move_to_action",
    "redeal",
]
