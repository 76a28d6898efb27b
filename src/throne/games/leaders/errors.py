"""Error types of the Leaders engine (all ValueError subclasses)."""

from __future__ import annotations


class LeadersError(ValueError):
    """Base class of every Leaders engine error."""


class IllegalMoveError(LeadersError):
    """A move string that is malformed or not legal in the current position; the state is unchanged."""


class PositionError(LeadersError):
    """A position string that cannot be parsed or describes an impossible position."""


class RecordError(LeadersError):
    """A game record that is malformed or whose moves cannot be replayed."""
