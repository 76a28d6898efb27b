"""Hidden Leaders: the exact rules engine, per-seat views, determinisation and records.

>>> from throne.games import hidden_leaders as hl
>>> s = hl.new_game(players=4, seed=3)
>>> s.to_play
0
"""

from __future__ import annotations

from .cards import CARDS, EMPEROR, FACTIONS, LEADERS, MODULES, THRESHOLDS, Card, Leader
from .playout import random_playout
from .record import RecordError, record_to_state
from .rules import new_game
from .state import IllegalMoveError, State
from .view import StateError, from_json

__all__ = [
    "CARDS", "EMPEROR", "FACTIONS", "LEADERS", "MODULES", "THRESHOLDS", "Card", "IllegalMoveError", "Leader",
    "RecordError", "State", "StateError", "from_json", "new_game", "random_playout", "record_to_state",
]
