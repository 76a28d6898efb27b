"""The database writer: one thread that runs every write, the urgent ones first.

Writes go through one thread so that SQLite never sees two writers at once. A game's moves wait for their
group commit before anyone is shown them, so a commit must not queue behind the writes of game set-up
(new guests, tables, seats, starts): at a hundred games those fill the thread for several milliseconds at a
time, and every millisecond a commit waits is added to every move of its group. `submit_urgent` puts a
call before every ordinary one that has not started yet; calls of one urgency run in the order submitted.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

T = TypeVar("T")

_URGENT, _ORDINARY, _STOP = 0, 1, 2


class WriterThread(Executor):
    """A one-thread executor with two priorities (an `Executor`, so `loop.run_in_executor` takes it)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._queue: queue.PriorityQueue[tuple[int, int, Any]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._put(_ORDINARY, fn, args, kwargs)

    def submit_urgent(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Runs `fn` before every ordinary call still waiting."""
        return self._put(_URGENT, fn, args, kwargs)

    def _put(self, rank: int, fn: Callable[..., T], args: Any, kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new writes after shutdown")
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
                self._thread.start()
            self._queue.put((rank, next(self._order), (future, fn, args, kwargs)))
        return future

    def _work(self) -> None:
        while True:
            rank, _, item = self._queue.get()
            if rank == _STOP:
                return
            future, fn, args, kwargs = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to whoever awaits the write
                future.set_exception(exc)
            else:
                future.set_result(result)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Runs what was submitted (or cancels what has not started, with `cancel_futures`), then stops."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
            if cancel_futures:
                self._cancel_waiting()
            self._queue.put((_STOP, next(self._order), None))
        if wait and thread is not None:
            thread.join()

    def _cancel_waiting(self) -> None:
        while True:
            try:
                _rank, _, (future, *_call) = self._queue.get_nowait()
            except queue.Empty:
                return
            future.cancel()
