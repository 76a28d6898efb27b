"""Progress of long command-line runs on stderr, and a clean stop on Ctrl-C or SIGTERM.

`Progress` shows units done / total, units per second, the time left and a status text (an arena's running
score): a live rich bar when its stream is a terminal, otherwise a plain line every `THRONE_PROGRESS_EVERY`
seconds (default 10) and one at the end, nothing when quiet. The runs (arena, tournament, self-play, bench)
take one and report to it; the command line chooses the kind. `stop_on_signals` turns SIGTERM into the
same `KeyboardInterrupt` as Ctrl-C, so that a run stops the same way for both and keeps what it finished;
`shielded` holds either signal back while a finished game is recorded, so it is recorded whole or not at all.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

MODES = ("auto", "rich", "plain", "off")
DEFAULT_EVERY = 10.0


def _every() -> float:
    try:
        return max(0.0, float(os.environ.get("THRONE_PROGRESS_EVERY", DEFAULT_EVERY)))
    except ValueError:
        return DEFAULT_EVERY


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """Units done out of a total; `start`, then `advance` per finished unit, then `close`.

    `mode`: "rich" (a live bar), "plain" (periodic lines), "off" (nothing) or "auto" (rich when `stream`,
    stderr by default, is a terminal, plain otherwise).
    """

    def __init__(
        self, label: str, unit: str = "games", *, mode: str = "auto", stream: TextIO | None = None
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown progress mode {mode!r} (choose one of: {', '.join(MODES)})")
        self.stream = stream if stream is not None else sys.stderr
        if mode == "auto":
            mode = "rich" if _is_terminal(self.stream) else "plain"
        self.label, self.unit, self.mode = label, unit, mode
        self.total = self.done = self._first = 0
        self.status = ""
        self._started = self._printed = 0.0
        self._every = _every()
        self._bar: Any = None
        self._task: Any = None

    @classmethod
    def off(cls) -> Progress:
        return cls("", mode="off")

    def start(self, total: int, done: int = 0) -> None:
        """`total` units, `done` of them finished earlier (a resumed run); the rate counts only new ones."""
        self.total, self.done, self._first = total, done, done
        self._started = self._printed = time.perf_counter()
        if self.mode == "rich":
            self._bar = _rich_bar(self.stream)
            self._task = self._bar.add_task(self.label, total=total, completed=done, **self._fields())
            self._bar.start()

    def advance(self, n: int = 1, status: str | None = None) -> None:
        self.done += n
        if status is not None:
            self.status = status
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, **self._fields())
        elif self.mode == "plain" and time.perf_counter() - self._printed >= self._every:
            self._line()

    def close(self, stopped: bool = False) -> None:
        """End the display; `stopped`: the run ended before its last unit (Ctrl-C, an error)."""
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, **self._fields())
            self._bar.stop()
            self._bar = None
            if stopped:
                print(f"{self.label}: stopped after {self.done}/{self.total} {self.unit}", file=self.stream)
        elif self.mode == "plain":
            self._line(" (stopped)" if stopped else " (done)")
        with contextlib.suppress(Exception):
            self.stream.flush()

    def rate(self) -> float:
        """New units per second since `start`."""
        elapsed = time.perf_counter() - self._started
        return (self.done - self._first) / elapsed if elapsed > 0 else 0.0

    def eta(self) -> float | None:
        """Seconds left at the current rate (None before the first unit)."""
        rate = self.rate()
        return (self.total - self.done) / rate if rate > 0 else None

    def _fields(self) -> dict[str, str]:
        return {
            "unit": self.unit,
            "rate": f"{self.rate():.2f} {self.unit}/s",
            "eta": f"ETA {_clock(self.eta())}",
            "status": self.status,
        }

    def _line(self, suffix: str = "") -> None:
        self._printed = time.perf_counter()
        share = self.done / self.total if self.total else 1.0
        fields = self._fields()
        text = (
            f"{self.label}: {self.done}/{self.total} {self.unit} ({share:.0%}), {fields['rate']}, "
            f"{fields['eta']}, elapsed {_clock(self._printed - self._started)}"
        )
        if self.status:
            text += f"; {self.status}"
        print(text + suffix, file=self.stream, flush=True)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _rich_bar(stream: TextIO) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as RichProgress

    return RichProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TextColumn("{task.fields[rate]}"),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("{task.fields[eta]}"),
        TextColumn("{task.fields[status]}"),
        console=Console(file=stream),
        redirect_stdout=False,
        redirect_stderr=False,
        auto_refresh=True,
    )


@dataclass
class Stop:
    """Which signal stopped the run (None while none came); `exit_code` as a shell reports it."""

    signum: int | None = None

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or signal.SIGINT)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[Stop]:
    """While inside, SIGINT and SIGTERM raise `KeyboardInterrupt` once (a second one acts as usual).

    Only the main thread can take signals; elsewhere this changes nothing.
    """
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum: int, _frame: Any) -> None:
        stop.signum = signum
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt

    for s in previous:
        signal.signal(s, handler)
    try:
        yield stop
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block is done, then act as they would have (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[tuple[int, Any]] = []
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in previous:
        signal.signal(s, lambda signum, frame: caught.append((signum, frame)))
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        if caught:
            signum, frame = caught[0]
            handler = previous[signum]
            if callable(handler):
                handler(signum, frame)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)
