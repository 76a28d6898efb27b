"""The database writer: one thread that runs every write, the urgent ones first.

Writes go through one thread so that SQLite never sees two writers at once. A game's moves wait for their
group commit before anyone is shown them, so a commit must not queue behind the writes of game set-up
(new guests, tables, seats, starts): at a hundred games those fill the thread for several milliseconds at a
time, and every millisecond a commit waits is added to every move of its group. `submit_urgent` puts a
call before every ordinary one that has not started yet; calls of one urgency run in the order submitted.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

T = TypeVar("T")

_Call = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class WriterThread(Executor):
    """A one-thread executor with two priorities (an `Executor`, so `loop.run_in_executor` takes it)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._urgent: deque[_Call] = deque()
        self._ordinary: deque[_Call] = deque()
        # one token per call queued (None: stop); the thread takes a token, then the most urgent call
        self._tokens: queue.SimpleQueue[bool | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._put(self._ordinary, fn, args, kwargs)

    def submit_urgent(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Runs `fn` before every ordinary call still waiting."""
        return self._put(self._urgent, fn, args, kwargs)

    def _put(self, line: deque[_Call], fn: Callable[..., T], args: Any, kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new writes after shutdown")
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
                self._thread.start()
            line.append((future, fn, args, kwargs))
            self._tokens.put(True)
        return future

    def _work(self) -> None:
        while self._tokens.get() is not None:
            future, fn, args, kwargs = (self._urgent or self._ordinary).popleft()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to whoever awaits the write
                future.set_exception(exc)
            else:
                future.set_result(result)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Runs what was submitted (or cancels what has not started, with `cancel_futures`, also after an
        earlier shutdown), then stops."""
        with self._lock:
            if cancel_futures:
                for line in (self._urgent, self._ordinary):
                    for future, *_call in line:
                        future.cancel()  # the thread skips it when its token comes
            if not self._closed:
                self._closed = True
                self._tokens.put(None)
        if wait:
            self.join()

    def join(self, timeout: float | None = None) -> bool:
        """Waits for the thread to stop (after `shutdown`), `timeout` seconds at most; whether it stopped."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()
