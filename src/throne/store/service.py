"""The store in a process of its own: `python -m throne.store.service --fd N`.

`throne serve` starts one and sends it every repository call over a socket (`throne.server.store_process`):
the database's Python (SQLAlchemy, the driver) then runs beside the event loop instead of on threads that
share its interpreter lock, where each database call cost about four times its own CPU in lock hand-offs
(docs/BENCHMARKS.md). Inside, the calls run as they would in the server: writes on one writer thread, group
commits before the other writes still waiting, reads on a pool of their own beside it.

Frames are a 4-byte big-endian length and a pickle, both ways, over a socket only the parent holds: the
first one is the configuration (the database URL, which may hold a password, never on the command line), then
a call is (id, lane, method name, args, kwargs) with lane "read", "write" or "urgent"; an answer is
(id, ok, result or exception). A database that cannot be used (the errors the server retries or refuses
as "store unavailable") comes back as `StoreProcessError`. The process stops once it was asked to
(id 0), or when the socket closes (the server is gone), after every write it took has run.
"""

from __future__ import annotations

import argparse
import logging
import pickle
import signal
import socket
import struct
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from throne.store.db import Database
from throne.store.repo import Repo, is_read
from throne.store.writer import WriterThread

log = logging.getLogger("throne.store.service")

HEADER = struct.Struct(">I")
STOP = 0  # the call id that asks the process to stop
# A database that cannot be used now (locked, read-only, unreachable, its pool exhausted, the store process
# gone): what the server retries or refuses as `store_unavailable`, wherever the calls run.
UNAVAILABLE = (OperationalError, PoolTimeout, OSError)


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
    """Runs the calls that arrive on `sock` against `repo` and answers each one."""

    def __init__(self, sock: socket.socket, repo: Repo, read_threads: int) -> None:
        self.sock = sock
        self.repo = repo
        self.writer = WriterThread("throne-store-write")
        self.readers = ThreadPoolExecutor(max(1, read_threads), thread_name_prefix="throne-store-read")
        self._send_lock = threading.Lock()

    def serve(self) -> None:
        try:
            while (call := read_frame(self.sock)) is not None and call[0] != STOP:
                self._start(*call)
        finally:
            self.writer.shutdown(wait=True)  # every write taken runs, and is answered if anyone listens
            self.readers.shutdown(wait=True)
            self.sock.close()

    def _start(self, call_id: int, lane: str, name: str, args: tuple, kwargs: dict) -> None:
        fn: Callable[..., Any] | None = getattr(self.repo, name, None) if not name.startswith("_") else None
        if not callable(fn) or (lane == "read") != is_read(fn):
            self._answer(call_id, False, RuntimeError(f"no {lane} call {name!r} in the store"))
            return
        if lane == "read":
            future = self.readers.submit(fn, *args, **kwargs)
        elif lane == "urgent":
            future = self.writer.submit_urgent(fn, *args, **kwargs)
        else:
            future = self.writer.submit(fn, *args, **kwargs)
        future.add_done_callback(lambda done: self._done(call_id, done))

    def _done(self, call_id: int, done: Future[Any]) -> None:
        exc = done.exception()
        if exc is None:
            self._answer(call_id, True, done.result())
        else:
            self._answer(call_id, False, portable(exc))

    def _answer(self, call_id: int, ok: bool, payload: Any) -> None:
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


def read_frame(sock: socket.socket) -> Any:
    """The next message, or None when the socket closed."""
    head = _read_exactly(sock, HEADER.size)
    body = None if head is None else _read_exactly(sock, HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the store process of `throne serve` (started by it)")
    parser.add_argument("--fd", type=int, required=True, help="the socket to the server (inherited)")
    args = parser.parse_args(argv)
    # The server stops it (id 0, or by closing the socket) once its own shutdown no longer needs the store:
    # a signal to the whole process group must not take the store away from a server handing games over.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sock = socket.socket(fileno=args.fd)
    config = read_frame(sock)  # {url, busy_timeout, read_threads}: the URL may hold a password
    if config is None:
        return
    database = Database(config["url"], config["busy_timeout"])
    try:
        Service(sock, Repo(database), config["read_threads"]).serve()
    finally:
        database.dispose()


if __name__ == "__main__":  # run from the module itself: what it pickles must name throne.store.service
    from throne.store import service

    service.main()
