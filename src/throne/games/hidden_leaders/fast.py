"""The documented fast path of the Hidden Leaders engine, for bots and learning code: card and leader
tables, scoring helpers a heuristic needs, the Fate kinds an encoder names and the move grammar (`moves`).
Everything bots and RL adapters may rely on is re-exported here; the other modules of the package are
internals and may change.

State methods of the fast path: `clone(track=False)` (a copy without knowledge tracking, for playouts),
`determinize(seat, rng)`, `blind(seat)`, `to_json()`/`from_json()`, and the public fields `players`,
`parties`, `red`, `green`, `leaders`, `tavern`, `hands` (read only).
"""

from __future__ import annotations

from . import moves
from .cards import CARDS, FACTIONS, GUARDIAN_CARDS, GUARDIAN_LEADERS, GUARDIANS, LEADERS, MODULES, THRESHOLDS
from .fate import FATE_KINDS
from .scoring import faction_heroes, winning_faction
from .view import from_json

__all__ = [
    "CARDS",
    "FACTIONS",
    "FATE_KINDS",
    "GUARDIANS",
    "GUARDIAN_CARDS",
    "GUARDIAN_LEADERS",
    "LEADERS",
    "MODULES",
    "THRESHOLDS",
    "faction_heroes",
    "from_json",
    "moves",
    "winning_faction",
]
