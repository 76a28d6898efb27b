"""A progress display that presses Ctrl-C itself: a run stops at a known game, as if interrupted there."""

from __future__ import annotations

from throne.progress import Progress


class StopAfter(Progress):
    """Raises `KeyboardInterrupt` when the `count`-th unit of this run finishes."""

    def __init__(self, count: int) -> None:
        super().__init__("test", mode="off")
        self.count = count
        self.closed_stopped: bool | None = None

    def advance(self, n: int = 1, status: str | None = None) -> None:
        super().advance(n, status)
        if self.done - self._first >= self.count:
            raise KeyboardInterrupt

    def close(self, stopped: bool = False) -> None:
        self.closed_stopped = stopped
        super().close(stopped)
