"""The store in processes of their own: `python -m throne.store.service --fd N`.

`throne serve` starts two and sends them every repository call over a socket each
(`throne.server.store_calls.StoreProcess`): the database's Python (SQLAlchemy, the driver) then runs beside
the event loop instead of on threads that share its interpreter lock, where each database call cost about
four times its own CPU in lock hand-offs (docs/BENCHMARKS.md).

- The **write** process runs every write on its one thread, in the order the writes arrived, except that a
  group commit (lane "urgent") goes before the ordinary writes still waiting. One thread and no hand-offs:
  with the writes on a thread of their own beside the thread reading the socket, the two took turns for the
  interpreter lock around every SQLite call, and a game's set-up cost the process half as much again.
- The **read** process runs the reads on a pool of threads, so reads go on while a write waits for a lock
  and a slow read never delays a commit.

Frames are a 4-byte big-endian length and a pickle, both ways, over a socket only the parent holds: the
first one is the configuration (the process's role; the database URL, which may hold a password, never on
the command line; the server's log level and format), then a call is (id, lane, method name, args, kwargs)
with lane "read", "write" or "urgent"; an answer is (id, ok, result or exception). A database that cannot
be used (the errors the server retries or refuses as "store unavailable") comes back as `StoreProcessError`.
A process stops once it was asked to (id 0), or when the socket closes (the server is gone), after every call
it took has run.
"""

from __future__ import annotations

import argparse
import logging
import pickle
import signal
import socket
import struct
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from throne import logs
from throne.store.db import Database
from throne.store.repo import Repo, is_read

log = logging.getLogger("throne.store.service")

HEADER = struct.Struct(">I")
STOP = 0  # the call id that asks the process to stop
READY = (STOP, True, None)  # what the process says once it can take calls (its imports take a second or two)
# A database that cannot be used now (locked, read-only, unreachable, its pool exhausted, the store process
# gone): what the server retries or refuses as `store_unavailable`, wherever the calls run.
UNAVAILABLE = (OperationalError, PoolTimeout, OSError)

Call = tuple[int, str, str, tuple, dict]


class StoreProcessError(OSError):
    """The store process could not make a call: its database cannot be used now, or the process stopped."""


def frame(message: Any) -> bytes:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


def _read_exactly(sock: socket.socket, n: int) -> bytes | None:
    """`n` bytes, or None when the socket closed first."""
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(sock: socket.socket) -> Any:
    """The next message, or None when the socket closed."""
    head = _read_exactly(sock, HEADER.size)
    body = None if head is None else _read_exactly(sock, HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


class Inbox:
    """The frames arriving on a socket, read in large chunks: `take` returns every complete one."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.closed = False
        self._buffer = bytearray()

    def take(self, wait: bool) -> list[Any]:
        """The messages that arrived; with `wait`, at least one unless the socket closed."""
        messages = self._complete()
        while not self.closed:
            try:
                chunk = self.sock.recv(1 << 20, 0 if wait and not messages else socket.MSG_DONTWAIT)
            except BlockingIOError:
                break
            if not chunk:
                self.closed = True
                break
            self._buffer += chunk
            messages += self._complete()
        return messages

    def _complete(self) -> list[Any]:
        messages, start, buffer = [], 0, self._buffer
        while len(buffer) - start >= HEADER.size:
            (size,) = HEADER.unpack_from(buffer, start)
            if len(buffer) - start - HEADER.size < size:
                break
            start += HEADER.size
            messages.append(pickle.loads(buffer[start : start + size]))
            start += size
        del buffer[:start]
        return messages


def portable(exc: BaseException) -> BaseException:
    """What the parent is told of a failed call: the exception itself when it crosses the socket intact."""
    if isinstance(exc, UNAVAILABLE):
        return StoreProcessError(f"{type(exc).__name__}: {exc}")
    try:
        pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class Service:
    """Runs the calls of its lanes that arrive on `sock` against `repo` and answers each one."""

    lanes: tuple[str, ...] = ()

    def __init__(self, sock: socket.socket, repo: Repo) -> None:
        self.sock = sock
        self.repo = repo
        self._send_lock = threading.Lock()

    def method(self, call_id: int, lane: str, name: str) -> Callable[..., Any] | None:
        """The repository method that `name` asks for in `lane`; None (and the call refused) when it may not
        run here: not a public method of the repository, a read asked for as a write or the other way round,
        or a lane this process does not serve."""
        fn = None if name.startswith("_") else getattr(self.repo, name, None)
        if lane in self.lanes and callable(fn) and (lane == "read") == is_read(fn):
            return fn
        self.answer(call_id, False, RuntimeError(f"no {lane} call {name!r} in the store"))
        return None

    def run(self, call_id: int, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            self.answer(call_id, False, portable(exc))
        else:
            self.answer(call_id, True, result)

    def answer(self, call_id: int, ok: bool, payload: Any) -> None:
        try:
            data = frame((call_id, ok, payload))
        except Exception as exc:  # a result that does not pickle is a bug: the call fails, not the process
            failed = RuntimeError(f"the answer of call {call_id} cannot be sent: {exc}")
            data = frame((call_id, False, failed))
        try:
            with self._send_lock:
                self.sock.sendall(data)
        except OSError:
            pass  # the server is gone: what it asked still runs to its end, nobody hears the answer


class WriteService(Service):
    """Every write on this one thread: before each, the calls that arrived meanwhile are taken from the
    socket, so that a group commit waiting there goes before the ordinary writes."""

    lanes = ("write", "urgent")

    def serve(self) -> None:
        inbox = Inbox(self.sock)
        urgent: deque[Call] = deque()
        ordinary: deque[Call] = deque()
        stopping = False
        try:
            while True:
                if not stopping:
                    for call in inbox.take(wait=not (urgent or ordinary)):
                        if call[0] == STOP:
                            stopping = True  # the server sends nothing after it
                            break
                        (urgent if call[1] == "urgent" else ordinary).append(call)
                    stopping = stopping or inbox.closed
                if not (urgent or ordinary):
                    if stopping:
                        return
                    continue
                call_id, lane, name, args, kwargs = (urgent or ordinary).popleft()
                fn = self.method(call_id, lane, name)
                if fn is not None:
                    self.run(call_id, fn, args, kwargs)
        finally:
            self.sock.close()


class ReadService(Service):
    """The reads on a pool of `threads` threads beside the thread that reads the socket."""

    lanes = ("read",)

    def __init__(self, sock: socket.socket, repo: Repo, threads: int = 4) -> None:
        super().__init__(sock, repo)
        self.pool = ThreadPoolExecutor(max(1, threads), thread_name_prefix="throne-store-read")

    def serve(self) -> None:
        try:
            while (call := read_frame(self.sock)) is not None and call[0] != STOP:
                call_id, lane, name, args, kwargs = call
                fn = self.method(call_id, lane, name)
                if fn is not None:
                    self.pool.submit(self.run, call_id, fn, args, kwargs)
        finally:
            self.pool.shutdown(wait=True)  # every read taken is answered if anyone listens
            self.sock.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="a store process of `throne serve` (started by it)")
    parser.add_argument("--fd", type=int, required=True, help="the socket to the server (inherited)")
    args = parser.parse_args(argv)
    # The server stops it (id 0, or by closing the socket) once its own shutdown no longer needs the store:
    # a signal to the whole process group must not take the store away from a server handing games over.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sock = socket.socket(fileno=args.fd)
    config = read_frame(sock)  # {role, url, busy_timeout, read_threads, logs}: the URL may hold a password
    if config is None:
        return
    # The server's stderr, so its level and format (`throne serve --log-level/--log-format`): a text line
    # among JSON ones would be dropped or mangled by whatever reads them.
    logs.configure(**(config.get("logs") or {"level": "warning"}))
    database = Database(config["url"], config["busy_timeout"])
    repo = Repo(database)
    sock.sendall(frame(READY))
    try:
        if config["role"] == "write":
            WriteService(sock, repo).serve()
        else:
            ReadService(sock, repo, config["read_threads"]).serve()
    finally:
        database.dispose()


if __name__ == "__main__":  # run from the module itself: what it pickles must name throne.store.service
    from throne.store import service

    service.main()
