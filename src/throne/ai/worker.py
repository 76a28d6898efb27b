"""Bots in worker processes with a hard deadline, so a server can ask for a move without blocking.

A small pool of reusable processes (spawned, so they are safe to start from a threaded server) each run one
job at a time. A job whose bot crashes, overruns its deadline or is cancelled costs at most that worker: it is
killed and replaced, and the caller gets a random legal move instead (failures are logged, never raised).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import multiprocessing
import os
import random
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from throne.ai.base import Budget, check_turn
from throne.ai.games import GameAdapter
from throne.ai.registry import BotEntry, bot_entry, game_adapter

log = logging.getLogger("throne.ai")

STARTUP_LIMIT = 60.0
"""Seconds a fresh worker may take to import its modules (not counted against a move's deadline)."""
POLL = 0.05
"""Seconds between checks for cancellation while waiting on a worker."""
TIME_SHARE = 0.8
"""Share of the caller's timeout given to the bot as its own time budget (the rest covers transport)."""


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to choose one move; plain data and module-level callables only."""

    adapter: GameAdapter
    entry: BotEntry
    payload: Any
    seat: int
    seed: int
    budget: Budget


@dataclass(frozen=True)
class Outcome:
    """What became of a job: `status` is ok, error, crash, timeout or cancelled."""

    status: str
    move: str | None = None
    detail: str = ""


def run_job(job: Job) -> str:
    """Rebuild the seat's state and let a fresh bot choose (runs inside the worker; callable in tests)."""
    state = job.adapter.load(job.payload)
    bot = job.entry.build(job.seed)
    return bot.choose(state, job.seat, job.budget)


def _where(exc: BaseException) -> str:
    """Exception type and innermost location, without its message (which might name a secret card)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return type(exc).__name__
    last = frames[-1]
    return f"{type(exc).__name__} at {os.path.basename(last.filename)}:{last.lineno} in {last.name}"


def _worker_main(conn: Connection, warmup: tuple[str, ...]) -> None:
    for name in warmup:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    conn.send(("ready", None))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        except Exception as exc:  # a job that cannot be unpickled here
            conn.send(("error", _where(exc)))
            continue
        if job is None:
            return
        try:
            reply = ("ok", run_job(job))
        except Exception as exc:
            reply = ("error", _where(exc))
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, ctx: Any, warmup: tuple[str, ...]) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, warmup), daemon=True, name="throne-ai")
        self.process.start()
        child.close()
        self.ready = False

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class WorkerPool:
    """At most `size` worker processes, started on demand and reused between jobs."""

    def __init__(self, size: int, warmup: tuple[str, ...] = ()) -> None:
        if size < 1:
            raise ValueError(f"a worker pool needs at least one process, got {size}")
        self.size = size
        self._ctx = multiprocessing.get_context("spawn")
        self._warmup = warmup
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False

    def run(self, job: Job, timeout: float, cancel: threading.Event | None = None) -> Outcome:
        """Run `job` in a worker; never raises for what the bot does."""
        while not self._slots.acquire(timeout=POLL):
            if cancel is not None and cancel.is_set():
                return Outcome("cancelled")
        worker: _Worker | None = None
        healthy = False
        try:
            worker = self._take()
            if not self._wait_ready(worker, cancel):
                cancelled = cancel is not None and cancel.is_set()
                return Outcome("cancelled" if cancelled else "crash", detail="worker did not start")
            try:
                worker.conn.send(job)
            except Exception as exc:
                return Outcome("error", detail=_where(exc))
            outcome = self._wait(worker, timeout, cancel)
            healthy = outcome.status in ("ok", "error")
            return outcome
        finally:
            self._give_back(worker, healthy)

    def _take(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot worker pool is shut down")
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker
                worker.kill()
        return _Worker(self._ctx, self._warmup)

    def _wait_ready(self, worker: _Worker, cancel: threading.Event | None) -> bool:
        end = time.monotonic() + STARTUP_LIMIT
        while not worker.ready:
            if cancel is not None and cancel.is_set():
                return False
            if time.monotonic() > end or (not worker.process.is_alive() and not worker.conn.poll(0)):
                return False
            try:
                if worker.conn.poll(POLL):
                    worker.ready = worker.conn.recv()[0] == "ready"
                    if not worker.ready:
                        return False
            except (EOFError, OSError):
                return False
        return True

    @staticmethod
    def _wait(worker: _Worker, timeout: float, cancel: threading.Event | None) -> Outcome:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return Outcome("timeout", detail=f"no move within {timeout:g} s")
            try:
                if worker.conn.poll(min(POLL, left)):
                    status, value = worker.conn.recv()
                    if status == "ok":
                        return Outcome("ok", move=value)
                    return Outcome("error", detail=str(value))
            except (EOFError, OSError):
                return Outcome("crash", detail=f"worker exit code {worker.process.exitcode}")
            if cancel is not None and cancel.is_set():
                return Outcome("cancelled")

    def _give_back(self, worker: _Worker | None, healthy: bool) -> None:
        try:
            if worker is not None:
                with self._lock:
                    keep = healthy and not self._closed
                    if keep:
                        self._idle.append(worker)
                if not keep:
                    worker.kill()
        finally:
            self._slots.release()

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
            worker.kill()


_pool: WorkerPool | None = None
_threads: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _default_size() -> int:
    configured = os.environ.get("THRONE_AI_WORKERS")
    if configured:
        return max(1, int(configured))
    return max(1, min(4, os.cpu_count() or 1))


def _get_pool() -> tuple[WorkerPool, ThreadPoolExecutor]:
    global _pool, _threads
    with _pool_lock:
        if _pool is None:
            from throne.ai.registry import game_names

            warmup = tuple(m for g in game_names() for m in game_adapter(g).warmup)
            _pool = WorkerPool(_default_size(), warmup)
            _threads = ThreadPoolExecutor(max_workers=32, thread_name_prefix="throne-ai-wait")
        assert _threads is not None
        return _pool, _threads


def shutdown() -> None:
    """Stop the worker processes (a later request starts a fresh pool)."""
    global _pool, _threads
    with _pool_lock:
        pool, threads, _pool, _threads = _pool, _threads, None, None
    if pool is not None:
        pool.shutdown()
    if threads is not None:
        threads.shutdown(wait=False)


def _prepare(game: str, state: Any, seat: int, bot: str, seed: int, timeout: float) -> tuple[Job, list[str]]:
    if timeout <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    adapter = game_adapter(game)
    entry = bot_entry(game, bot)
    check_turn(state, seat)
    legal = state.legal_moves()
    budget = entry.budget.capped(timeout * TIME_SHARE)
    # only what `seat` may know crosses into the worker (see `seat_state`): never the record or full state
    return Job(adapter, entry, adapter.payload_for(state, seat), seat, seed, budget), legal


def _finish(outcome: Outcome, legal: list[str], game: str, bot: str, seat: int, seed: int) -> str:
    if outcome.status == "ok" and outcome.move in legal:
        return outcome.move
    if outcome.status == "ok":
        detail = "it returned an illegal move"
    else:
        detail = f"{outcome.status}: {outcome.detail}"
    log.warning("bot %r (%s, seat %d) failed (%s); playing a random legal move", bot, game, seat, detail)
    return random.Random(seed).choice(legal)


def choose_move(game: str, state: Any, seat: int, bot: str, *, seed: int, timeout: float) -> str:
    """A move for `seat` chosen by `bot` (a bot or level name) in a worker process, within `timeout` seconds.

    Raises `ValueError` subclasses for an unknown game or bot and when `seat` is not to play; a bot that
    fails or overruns is replaced by a random legal move (logged as a warning).
    """
    job, legal = _prepare(game, state, seat, bot, seed, timeout)
    outcome = _get_pool()[0].run(job, timeout)
    return _finish(outcome, legal, game, bot, seat, seed)


async def choose_move_async(game: str, state: Any, seat: int, bot: str, *, seed: int, timeout: float) -> str:
    """`choose_move` for an event loop: waits without blocking it; cancelling the task kills the search."""
    job, legal = _prepare(game, state, seat, bot, seed, timeout)
    pool, threads = _get_pool()
    cancel = threading.Event()
    loop = asyncio.get_running_loop()
    try:
        outcome = await loop.run_in_executor(threads, pool.run, job, timeout, cancel)
    except asyncio.CancelledError:
        cancel.set()
        raise
    return _finish(outcome, legal, game, bot, seat, seed)
