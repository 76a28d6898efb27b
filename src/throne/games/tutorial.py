"""The shapes of a game's guided tutorial: content a game offers through `GameSpec.tutorial` (the module
that holds its `TUTORIAL`), served by `throne.server.tutorials` without knowing which game it is.

- `Lessons`: scripted positions, each with a goal that the engine's state after the learner's move must meet
  (`/api/tutorials/<game>/<step>`).
- `Turn`: a fixed deal replayed from the learner's moves until the engine passes the turn on
  (`/api/tutorials/<game>`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Goal = Callable[[Any, str, Any], bool]
"""`goal(before, move, after)`: whether the learner's move (played on `before`, giving `after`) solves it."""


@dataclass(frozen=True)
class Lesson:
    key: str
    position: str
    goal: Goal


@dataclass(frozen=True)
class Lessons:
    """Steps in scripted positions (`load(position)` gives the engine's state, the learner to play)."""

    lessons: tuple[Lesson, ...]
    load: Callable[[str], Any]
    seat: int = 0


@dataclass(frozen=True)
class Turn:
    """One turn of a fixed deal: `start()` the state, `offered(state)` the moves shown to the learner (a
    subset of the legal ones), `decision(state)` the name of the decision the learner faces."""

    start: Callable[[], Any]
    offered: Callable[[Any], list[str]]
    decision: Callable[[Any], str | None]
    seat: int = 0


Tutorial = Lessons | Turn
