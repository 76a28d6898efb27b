"""Where the hub's repository calls run, off the event loop: on threads of this process (`StoreThreads`), or
in store processes of their own (`StoreProcess`, what `throne serve` uses; `throne.store.service`).

Both run the writes one at a time on one thread (group commits first: `urgent`) and the reads on a pool beside
it. Both raise what the repository raised, except that a database that cannot be used raises
OperationalError, PoolTimeout or OSError (a `StoreProcessError`), which the hub turns into StoreUnavailable.

Every call has a deadline: a store that does not answer in time (a hung disk, a database that stopped
answering) fails that call with `StoreTimeout`, so one request fails instead of waiting for ever. Whether a
write that timed out was committed is unknown, as when a connection breaks mid-commit; the match's move log
settles it (the next write at that ply is stale if it was). A store process that answered nothing for a whole
deadline while a call waited is stuck: it is killed, and the next call starts another.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import pickle
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol, TypeVar

from throne import logs
from throne.store.repo import Repo, is_read
from throne.store.service import HEADER, READY, STOP, StoreProcessError, frame
from throne.store.writer import WriterThread

T = TypeVar("T")
log = logging.getLogger(__name__)

DEFAULT_DEADLINE = 10.0
"""Seconds a store call may take before it fails (longer than any lock wait the busy timeout allows)."""
START_TIMEOUT = 60.0
"""Seconds a new store process may take to say it is ready (a call's deadline counts from then)."""
CLOSE_WAIT = 30.0
"""Seconds `close` waits by default for the calls the store took (the hub's shutdown gives it less)."""


class StoreTimeout(StoreProcessError):
    """The store did not answer a call within its deadline."""


async def _within(deadline: float, call: Awaitable[T], what: str) -> T:
    """`call`'s answer, or StoreTimeout once `deadline` seconds passed without one."""
    try:
        async with asyncio.timeout(deadline) as limit:
            return await call
    except TimeoutError:
        if not limit.expired():
            raise  # the call's own error, not the deadline
        raise StoreTimeout(f"{what} did not answer within {deadline:g} s") from None


class StoreCalls(Protocol):
    async def read(self, fn: Callable[..., T], args: tuple, kwargs: dict) -> T: ...

    async def write(self, fn: Callable[..., T], args: tuple, kwargs: dict, urgent: bool = False) -> T: ...

    async def close(self, timeout: float = CLOSE_WAIT) -> None: ...


class StoreThreads:
    """The calls on threads of this process (the library's and the tests' default)."""

    def __init__(self, read_threads: int, deadline: float = DEFAULT_DEADLINE) -> None:
        self.writer = WriterThread("throne-db-write")
        self.readers = ThreadPoolExecutor(max(1, read_threads), thread_name_prefix="throne-db-read")
        self.deadline = deadline

    async def read(self, fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
        call = asyncio.get_running_loop().run_in_executor(self.readers, partial(fn, *args, **kwargs))
        return await _within(self.deadline, call, "the store")

    async def write(self, fn: Callable[..., T], args: tuple, kwargs: dict, urgent: bool = False) -> T:
        """A write that times out goes on in its thread (threads cannot be stopped): the writes after it
        wait for it, and time out too until it ends."""
        submit = self.writer.submit_urgent if urgent else self.writer.submit
        return await _within(self.deadline, asyncio.wrap_future(submit(fn, *args, **kwargs)), "the store")

    async def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Runs the writes taken, for `timeout` seconds at most, without blocking the event loop; then the
        writes not started are dropped, and one still running is left to its thread (a daemon: it ends with
        the process, as a killed store process would). The reads still waiting are dropped."""
        self.readers.shutdown(wait=False, cancel_futures=True)
        self.writer.shutdown(wait=False)
        if not await asyncio.to_thread(self.writer.join, timeout):
            self.writer.shutdown(wait=False, cancel_futures=True)
            log.error("the store's writes did not end in %g s; the server stops without them", timeout)


class StoreProcess:
    """The calls in two child processes (`throne.store.service`), sent by method name over a socket pair
    each: the writes to one that runs them on its one thread, the reads to one with a pool of `read_threads`
    threads, so that reads go on while a write waits for a lock."""

    def __init__(
        self,
        url: str,
        busy_timeout: float,
        read_threads: int,
        restart_after: float = 1.0,
        deadline: float = DEFAULT_DEADLINE,
    ) -> None:
        # logs.CHOSEN itself: a child logs as the server does when the child starts (`logs.configure`)
        config = {"url": url, "busy_timeout": busy_timeout, "read_threads": read_threads, "logs": logs.CHOSEN}
        self.writer = StoreChild({**config, "role": "write"}, restart_after, deadline)
        self.reader = StoreChild({**config, "role": "read"}, restart_after, deadline)

    async def read(self, fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
        return await self.reader.call(_checked("read", fn), fn.__name__, args, kwargs)

    async def write(self, fn: Callable[..., T], args: tuple, kwargs: dict, urgent: bool = False) -> T:
        lane = _checked("urgent" if urgent else "write", fn)
        return await self.writer.call(lane, fn.__name__, args, kwargs)

    async def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Stops both children once every call they took has run, or kills them after `timeout` seconds."""
        await asyncio.gather(self.writer.close(timeout), self.reader.close(timeout))


def _checked(lane: str, fn: Callable[..., Any]) -> str:
    """`lane`, once `fn` is a repository method of that lane (checked before anything is sent)."""
    if not isinstance(getattr(fn, "__self__", None), Repo):
        raise ValueError(f"{fn!r} is not a repository method: only those run in the store processes")
    if (lane == "read") != is_read(fn):
        raise ValueError(f"{fn.__name__} is not a {lane if lane == 'read' else 'write'} of the store")
    return lane


class StoreChild:
    """One store process, started on the first call. If it stops (killed, out of memory), the calls waiting
    for it fail with StoreProcessError — a write among them may or may not have been committed, as when a
    database connection breaks mid-commit, and the match reads its game back when the log and memory
    disagree — and the next call after `restart_after` seconds starts a new one; calls before that fail at
    once. A child that answers nothing for a whole `deadline` while a call waits is killed (below)."""

    def __init__(
        self, config: dict[str, Any], restart_after: float, deadline: float = DEFAULT_DEADLINE
    ) -> None:
        self._config = config
        self.role: str = config["role"]
        self.restart_after = restart_after
        self.deadline = deadline
        self._answered_at = float("-inf")  # when the child last answered a call (monotonic)
        self.process: subprocess.Popen[bytes] | None = None
        self._out: asyncio.StreamWriter | None = None
        self._answers: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(STOP + 1)
        self._starting = asyncio.Lock()
        self._stopped_at = float("-inf")
        self._closing = False

    async def call(self, lane: str, name: str, args: tuple, kwargs: dict) -> Any:
        out = self._out if self._out is not None else await self._start()
        call_id = next(self._ids)
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = answer
        out.write(frame((call_id, lane, name, args, kwargs)))
        sent_at = time.monotonic()
        try:
            return await _within(self.deadline, answer, f"the store {self.role} process")
        except StoreTimeout:
            self._pending.pop(call_id, None)
            if self._answered_at < sent_at:
                self._kill_stuck()
            raise

    def _kill_stuck(self) -> None:
        """Kills a child that answered nothing while a call waited a whole deadline (a hung disk or
        database, a stopped process): its calls fail when its socket closes, and the next call starts
        another. A write it was running may or may not have been committed, as for any killed child."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        log.error(
            "the store %s process answered nothing for %g s; killing it (the next call starts another)",
            self.role,
            self.deadline,
        )
        process.kill()

    async def _start(self) -> asyncio.StreamWriter:
        async with self._starting:
            if self._out is not None:
                return self._out
            if self._closing:
                raise StoreProcessError(f"the store {self.role} process is shutting down")
            if time.monotonic() - self._stopped_at < self.restart_after:
                raise StoreProcessError(f"the store {self.role} process stopped; another starts in a moment")
            ours, theirs = socket.socketpair()
            with theirs:
                fd = theirs.fileno()
                cmd = [sys.executable, "-m", "throne.store.service", "--fd", str(fd)]
                self.process = subprocess.Popen(cmd, pass_fds=[fd])
            reader, out = await asyncio.open_connection(sock=ours)
            out.write(frame(self._config))  # the URL goes over the socket: no password in the process list
            await self._until_ready(reader, out)
            self._out = out
            # A context of its own: started by some game's call, it must not log as that game.
            self._answers = asyncio.get_running_loop().create_task(
                self._read_answers(reader), name="store-answers", context=contextvars.Context()
            )
            return out

    async def _until_ready(self, reader: asyncio.StreamReader, out: asyncio.StreamWriter) -> None:
        """Waits for the new process to say it is ready; one that stops or hangs first is a failed start."""
        try:
            async with asyncio.timeout(START_TIMEOUT):
                (size,) = HEADER.unpack(await reader.readexactly(HEADER.size))
                said = pickle.loads(await reader.readexactly(size))
            if said != READY:
                raise ValueError(f"unexpected first message {said!r}")
        except Exception as exc:  # stopped, hung, or said something else: not a store process to use
            out.close()
            assert self.process is not None
            self.process.kill()
            self.process.wait()
            self._stopped_at = time.monotonic()
            log.error("the store %s process did not start: %r", self.role, exc)
            failed = f"the store {self.role} process did not start; another starts in a moment"
            raise StoreProcessError(failed) from exc

    async def _read_answers(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                (size,) = HEADER.unpack(await reader.readexactly(HEADER.size))
                body = await reader.readexactly(size)
                try:
                    call_id, ok, payload = pickle.loads(body)
                except Exception:  # a bug: the call's caller never hears back, the others do
                    log.exception("an answer of the store process cannot be read")
                    continue
                self._answered_at = time.monotonic()
                answer = self._pending.pop(call_id, None)
                if answer is None or answer.done():
                    continue  # its caller stopped waiting
                if ok:
                    answer.set_result(payload)
                else:
                    answer.set_exception(payload)
        except (asyncio.IncompleteReadError, OSError):
            pass
        finally:
            self._gone()

    def _gone(self) -> None:
        """The child closed its socket: it stopped (asked to, or not)."""
        self._stopped_at = time.monotonic()
        if self._out is not None:
            self._out.close()
            self._out = None
        pending, self._pending = self._pending, {}
        for answer in pending.values():
            if not answer.done():
                failed = StoreProcessError(f"the store {self.role} process stopped during the call")
                answer.set_exception(failed)
        if not self._closing:
            code = None if self.process is None else self.process.poll()
            log.error(
                "the store %s process stopped (exit status %s); %d calls failed; the next starts another",
                self.role,
                code,
                len(pending),
            )

    async def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Stops the child once every call it took has run; kills it if it has not stopped within `timeout`
        seconds (a hung disk or database: the calls it had not run fail, as for any killed child)."""
        self._closing = True
        until = time.monotonic() + timeout
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout), self._starting:  # after a start under way and its calls
                if self._out is not None:
                    self._out.write(frame((STOP, "", "", (), {})))
        answers, process = self._answers, self.process
        if answers is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(answers), max(until - time.monotonic(), 0))
        if process is None:
            return
        while process.poll() is None and time.monotonic() < until:
            await asyncio.sleep(0.02)
        if process.poll() is None:
            log.error("the store %s process did not stop in %g s; killing it", self.role, timeout)
            process.kill()
            process.wait()
        if answers is not None:  # its socket closes with it
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(answers), 1.0)
