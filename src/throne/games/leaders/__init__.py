"""Leaders: the exact rules engine (spec: docs/leaders.md and the project rule book).

String API: ``new_game``, ``from_position`` and the ``State`` methods ``position``, ``legal_moves``, ``play``,
``undo``, ``record``. Fast path: ``NUM_ACTIONS``, ``State.legal_actions``, ``State.apply``.
"""

from __future__ import annotations

from .actions import NUM_ACTIONS, action_to_move
from .errors import IllegalMoveError, LeadersError, PositionError, RecordError
from .hidden import blind_record, redeal
from .notation import parse_move as move_to_action
from .record import record_to_state
from .state import State, from_position, new_game

__all__ = [
    "NUM_ACTIONS",
    "IllegalMoveError",
    "LeadersError",
    "PositionError",
    "RecordError",
    "State",
    "action_to_move",
    "blind_record",
    "from_position",
    "move_to_action",
    "new_game",
    "record_to_state",
    "redeal",
]
