"""The events of recent moves of a live game, kept per viewer, so each `state` message can carry the events
of the moves since the previous `state` its connection got (the engine describes them: `move_events`)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

#: plies kept per game: a connection further behind resynchronises on the view alone
KEEP = 64


class EventLog:
    """Per ply (the ply a move produced), the events of that move for each seat and for spectators."""

    def __init__(self) -> None:
        self._plies: OrderedDict[int, dict[int | None, list[dict[str, Any]]]] = OrderedDict()

    def add(self, kind: Any, ply: int, seat: int, before: Any, move: str, after: Any) -> None:
        """Describe the move that took the game from `before` (at `ply - 1`) to `after` (at `ply`)."""
        spec = kind.spec
        viewers = (None,) if spec.shared_view else (None, *range(after.players))  # `since` falls back to None
        described = spec.move_events_for(before, move, after, viewers)
        self._plies[ply] = {
            viewer: [{"ply": ply, "seat": seat, **ev} for ev in evs]
            for viewer, evs in zip(viewers, described, strict=True)
        }
        while len(self._plies) > KEEP:
            self._plies.popitem(last=False)

    def clear(self) -> None:
        self._plies.clear()

    def since(self, last: int | None, ply: int, viewer: int | None) -> list[dict[str, Any]]:
        """The events of the plies after `last` up to `ply` that `viewer` may see (`last` None: the last
        ply only, for a connection's first state)."""
        start = ply - 1 if last is None else last
        out: list[dict[str, Any]] = []
        for p in range(max(start, 0) + 1, ply + 1):
            per = self._plies.get(p)
            if per is not None:
                out.extend(per.get(viewer, per[None]))
        return out
