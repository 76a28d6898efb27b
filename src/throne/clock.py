"""Game clocks: pure, serialisable and driven by an explicit time (milliseconds), never by sleeping.

A clock follows the seat the engine says must decide (`to_play`); it never works out whose turn it is.
A *turn* is a run of consecutive decisions by one seat: the Fischer increment is added, and a
correspondence deadline restarts, only when the decision passes to another seat. So a Leaders turn
(actions and recruitment) is charged whole to its player, and a Hidden Leaders victim's decision (Doubtful
Priest, Will-Bending Witch) runs on the victim's own clock.

`snapshot(now)` is what the store keeps with the move log; `restore(data, now)` resumes it with the
running seat's clock starting again at `now`, so time while the server was down is not charged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KINDS = ("untimed", "fischer", "correspondence")
MAX_BASE_MINUTES = 180
MAX_INCREMENT_S = 60
MAX_HOURS = 14 * 24
HOUR_MS = 3_600_000


class ClockError(ValueError):
    """A time control that cannot be used (the message says why)."""


def _int(value: Any, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ClockError(f"{name} is an integer from {low} to {high}")
    return value


@dataclass(frozen=True)
class TimeControl:
    """How much time each seat has: nothing (`untimed`), `base_ms` plus `increment_ms` per turn
    (`fischer`), or `per_move_ms` for each turn (`correspondence`)."""

    kind: str = "untimed"
    base_ms: int = 0
    increment_ms: int = 0
    per_move_ms: int = 0

    @property
    def timed(self) -> bool:
        return self.kind != "untimed"

    @staticmethod
    def parse(data: Any) -> TimeControl:
        """A time control from the protocol's JSON: `{"kind": "untimed"}`, `{"kind": "fischer",
        "minutes": 5, "increment": 3}` (seconds) or `{"kind": "correspondence", "hours": 24}` /
        `{"kind": "correspondence", "days": 2}`. None means untimed."""
        if data is None:
            return TimeControl()
        if not isinstance(data, dict):
            raise ClockError('a time control is an object such as {"kind": "fischer", "minutes": 5}')
        kind = data.get("kind")
        if kind not in KINDS:
            raise ClockError(f"time control kind must be one of {', '.join(KINDS)}")
        extra = set(data) - {"kind", "minutes", "increment", "hours", "days"}
        if extra:
            raise ClockError(f"unknown time control field {sorted(extra)[0][:32]!r}")
        if kind == "untimed":
            return TimeControl()
        if kind == "fischer":
            minutes = _int(data.get("minutes"), "minutes", 1, MAX_BASE_MINUTES)
            increment = _int(data.get("increment", 0), "increment", 0, MAX_INCREMENT_S)
            return TimeControl("fischer", base_ms=minutes * 60_000, increment_ms=increment * 1000)
        if ("hours" in data) == ("days" in data):
            raise ClockError("a correspondence time control gives either hours or days per move")
        if "days" in data:
            hours = _int(data["days"], "days", 1, MAX_HOURS // 24) * 24
        else:
            hours = _int(data["hours"], "hours", 1, MAX_HOURS)
        return TimeControl("correspondence", per_move_ms=hours * HOUR_MS)

    def to_json(self) -> dict[str, Any]:
        if self.kind == "fischer":
            return {
                "kind": "fischer",
                "minutes": self.base_ms // 60_000,
                "increment": self.increment_ms // 1000,
            }
        if self.kind == "correspondence":
            return {"kind": "correspondence", "hours": self.per_move_ms // HOUR_MS}
        return {"kind": "untimed"}

    def initial_ms(self) -> int:
        return self.base_ms if self.kind == "fischer" else self.per_move_ms


@dataclass
class Clock:
    """Remaining time per seat; `running` is the seat whose time is being spent since `since` (ms)."""

    control: TimeControl
    remaining: list[int]
    running: int | None = None
    since: int = 0
    turns: list[int] = field(default_factory=list)  # turns completed per seat

    @staticmethod
    def new(control: TimeControl, players: int) -> Clock:
        start = control.initial_ms() if control.timed else 0
        return Clock(control, [start] * players, None, 0, [0] * players)

    @property
    def timed(self) -> bool:
        return self.control.timed

    def copy(self) -> Clock:
        return Clock(self.control, list(self.remaining), self.running, self.since, list(self.turns))

    def left(self, seat: int, now: int) -> int:
        """Milliseconds `seat` has left at `now` (negative once its flag has fallen)."""
        spent = now - self.since if seat == self.running else 0
        return self.remaining[seat] - max(0, spent)

    def start(self, seat: int | None, now: int) -> None:
        """The game begins (or resumes) with `seat` to decide."""
        self.running, self.since = (seat if self.timed else None), now

    def flagged(self, now: int) -> int | None:
        """The seat whose time ran out by `now`, if any."""
        if self.running is None or self.left(self.running, now) > 0:
            return None
        return self.running

    def due_in(self, now: int) -> int | None:
        """Milliseconds until the running flag falls (None when no clock runs)."""
        return None if self.running is None else max(0, self.left(self.running, now))

    def moved(self, seat: int, to_play: int | None, now: int) -> None:
        """`seat` decided at `now` and the engine says `to_play` decides next (None: the game is over)."""
        if not self.timed:
            return
        if self.running == seat:
            self.remaining[seat] = self.left(seat, now)
        if to_play != seat:
            self.turns[seat] += 1
            if self.control.kind == "fischer":
                self.remaining[seat] += self.control.increment_ms
            elif to_play is not None:
                self.remaining[to_play] = self.control.per_move_ms
        self.running, self.since = to_play, now

    def stop(self, now: int) -> None:
        """The game ended: every clock stands still."""
        if self.running is not None:
            self.remaining[self.running] = max(0, self.left(self.running, now))
        self.running, self.since = None, now

    def snapshot(self, now: int) -> dict[str, Any]:
        """Plain JSON for the store: the running seat charged up to `now`."""
        remaining = [self.left(seat, now) for seat in range(len(self.remaining))]
        return {
            "control": self.control.to_json(),
            "remaining_ms": remaining,
            "running": self.running,
            "turns": list(self.turns),
        }

    @staticmethod
    def restore(data: dict[str, Any], now: int) -> Clock:
        """The clock of a snapshot, running again from `now` (downtime is not charged)."""
        remaining = [int(ms) for ms in data["remaining_ms"]]
        turns = [int(t) for t in data.get("turns", [0] * len(remaining))]
        running = data.get("running")
        return Clock(TimeControl.parse(data["control"]), remaining, running, now, turns)

    def to_json(self, now: int) -> dict[str, Any] | None:
        """The protocol's `clocks`: remaining ms per seat at `now`, whose clock runs and the server time."""
        if not self.timed:
            return None
        return {
            "control": self.control.to_json(),
            "remaining_ms": [max(0, self.left(seat, now)) for seat in range(len(self.remaining))],
            "running": self.running,
            "server_time": now,
        }
