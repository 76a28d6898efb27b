"""Bots in worker processes with a hard deadline, so a server can ask for a move without blocking.

A small pool of reusable processes (spawned, so they are safe to start from a threaded server) each run one
job at a time. A job whose bot crashes, overruns its deadline or is cancelled costs at most that worker: it is
killed and replaced, and the caller gets a random legal move instead (failures are logged, never raised).

Two pools share that design: `WorkerPool` for callers that block (`choose_move`), and `AsyncWorkerPool` for
event loops (`choose_move_async`), whose loop watches the worker's pipe itself. Waiting in threads instead
(one per bot move, polling) cost a server about as much CPU as the rest of its work in games with bots, all
of it under the interpreter lock its event loop needs (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import importlib
import logging
import multiprocessing
import os
import random
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, TypeVar, cast

from throne.ai.base import Budget, check_turn
from throne.ai.games import GameAdapter
from throne.ai.registry import BotEntry, bot_entry, game_adapter

log = logging.getLogger("throne.ai")

STARTUP_LIMIT = 60.0
"""Seconds a fresh worker may take to import its modules (not counted against a move's deadline)."""
POLL = 0.05
"""Seconds between checks that a starting worker is still alive (`WorkerPool`)."""
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
    # Ctrl-C reaches the whole process group: the process that owns the pool decides when its workers stop
    # (a server hands its games over first); a worker whose owner is gone ends at its pipe's end.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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


class _Pool:
    """The idle workers of a pool of at most `size`, reused between jobs, and its shutdown."""

    def __init__(self, size: int, warmup: tuple[str, ...] = ()) -> None:
        if size < 1:
            raise ValueError(f"a worker pool needs at least one process, got {size}")
        self.size = size
        self._ctx = multiprocessing.get_context("spawn")
        self._warmup = warmup
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False

    def _idle_worker(self) -> _Worker | None:
        """An idle worker still alive, or None when a new one must be started."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot worker pool is shut down")
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker
                worker.kill()
        return None

    def _keep(self, worker: _Worker | None, healthy: bool) -> None:
        """A worker back from a job: idle again if it is healthy and the pool open, else killed."""
        if worker is None:
            return
        with self._lock:
            keep = healthy and not self._closed
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.kill()

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
            worker.kill()


class WorkerPool(_Pool):
    """Worker processes for callers that block, started on demand."""

    def __init__(self, size: int, warmup: tuple[str, ...] = ()) -> None:
        super().__init__(size, warmup)
        self._slots = threading.BoundedSemaphore(size)

    def run(self, job: Job, timeout: float) -> Outcome:
        """Run `job` in a worker; never raises for what the bot does."""
        self._slots.acquire()
        worker: _Worker | None = None
        healthy = False
        try:
            worker = self._take()
            if not self._wait_ready(worker):
                return Outcome("crash", detail="worker did not start")
            try:
                worker.conn.send(job)
            except Exception as exc:
                return Outcome("error", detail=_where(exc))
            outcome = self._wait(worker, timeout)
            healthy = outcome.status in ("ok", "error")
            return outcome
        finally:
            self._give_back(worker, healthy)

    def _take(self) -> _Worker:
        return self._idle_worker() or _Worker(self._ctx, self._warmup)

    def _wait_ready(self, worker: _Worker) -> bool:
        end = time.monotonic() + STARTUP_LIMIT
        while not worker.ready:
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
    def _wait(worker: _Worker, timeout: float) -> Outcome:
        try:
            if not worker.conn.poll(timeout):
                return Outcome("timeout", detail=f"no move within {timeout:g} s")
            return _reply(worker.conn.recv())
        except (EOFError, OSError):
            return Outcome("crash", detail=f"worker exit code {worker.process.exitcode}")

    def _give_back(self, worker: _Worker | None, healthy: bool) -> None:
        try:
            self._keep(worker, healthy)
        finally:
            self._slots.release()


def _reply(message: tuple[str, Any]) -> Outcome:
    status, value = message
    return Outcome("ok", move=value) if status == "ok" else Outcome("error", detail=str(value))


class AsyncWorkerPool(_Pool):
    """Worker processes for event loops: a job's caller awaits its worker's pipe on its own loop (no thread
    waits for it). Loops on several threads may share the pool: a freed worker's turn is handed to the first
    waiting caller, on that caller's loop. A cancelled call kills its worker."""

    def __init__(self, size: int, warmup: tuple[str, ...] = ()) -> None:
        super().__init__(size, warmup)
        self._busy = 0  # turns taken (a worker running a job, or about to)
        self._waiters: collections.deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = (
            collections.deque()
        )

    async def run(self, job: Job, timeout: float) -> Outcome:
        """Run `job` in a worker; never raises for what the bot does (a cancelled call is cancelled)."""
        await self._turn()
        worker: _Worker | None = None
        healthy = False
        try:
            worker = await self._take()
            if not worker.ready:
                try:
                    async with asyncio.timeout(STARTUP_LIMIT):
                        worker.ready = (await _message(worker))[0] == "ready"
                except (TimeoutError, EOFError, OSError):
                    pass
                if not worker.ready:
                    return Outcome("crash", detail="worker did not start")
            try:
                worker.conn.send(job)
            except Exception as exc:
                return Outcome("error", detail=_where(exc))
            try:
                async with asyncio.timeout(timeout):
                    outcome = _reply(await _message(worker))
            except TimeoutError:
                return Outcome("timeout", detail=f"no move within {timeout:g} s")
            except (EOFError, OSError):
                return Outcome("crash", detail=f"worker exit code {worker.process.exitcode}")
            healthy = True
            return outcome
        finally:
            self._give_back(worker, healthy)

    async def _turn(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._busy < self.size and not self._waiters:
                self._busy += 1
                return
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            with self._lock:
                if (loop, waiter) in self._waiters:  # not handed a turn yet
                    self._waiters.remove((loop, waiter))
            raise  # a turn already on its way is passed on when it arrives (`_hand_over`)

    def _end_turn(self) -> None:
        with self._lock:
            while self._waiters:
                loop, waiter = self._waiters.popleft()
                if not loop.is_closed():
                    loop.call_soon_threadsafe(self._hand_over, waiter)
                    return
            self._busy -= 1

    def _hand_over(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done():  # its caller was cancelled meanwhile: the next one takes the turn
            self._end_turn()
        else:
            waiter.set_result(None)

    async def _take(self) -> _Worker:
        idle = self._idle_worker()
        if idle is not None:
            return idle
        # starting a process takes a moment: not on the loop; one started for a cancelled call is stopped
        starting = asyncio.get_running_loop().run_in_executor(None, _Worker, self._ctx, self._warmup)
        try:
            return await asyncio.shield(starting)
        except asyncio.CancelledError:
            starting.add_done_callback(lambda done: done.exception() or done.result().kill())
            raise

    def _give_back(self, worker: _Worker | None, healthy: bool) -> None:
        try:
            self._keep(worker, healthy)
        finally:
            self._end_turn()


async def _message(worker: _Worker) -> Any:
    """The worker's next message, read once its pipe is readable (the loop watches it meanwhile). A worker
    writes each message in one piece (small messages go in one write), so a readable pipe holds it whole."""
    loop = asyncio.get_running_loop()
    readable: asyncio.Future[None] = loop.create_future()
    fd = worker.conn.fileno()
    loop.add_reader(fd, lambda: readable.done() or readable.set_result(None))
    try:
        await readable
    finally:
        loop.remove_reader(fd)
    return worker.conn.recv()


P = TypeVar("P", bound=_Pool)
_pools: dict[type[_Pool], _Pool] = {}  # this process's pools: at most one of each kind
_pools_lock = threading.Lock()


def configured_size() -> int:
    """The workers of a pool: THRONE_AI_WORKERS, else one per core up to 4."""
    configured = os.environ.get("THRONE_AI_WORKERS")
    if configured:
        try:
            return max(1, int(configured))
        except ValueError:
            raise ValueError(f"THRONE_AI_WORKERS must be a whole number, not {configured!r}") from None
    return max(1, min(4, os.cpu_count() or 1))


def _warmup() -> tuple[str, ...]:
    from throne.ai.registry import game_names

    return tuple(m for g in game_names() for m in game_adapter(g).warmup)


def _shared(kind: type[P]) -> P:
    """This process's pool of `kind` (the blocking calls' or the event loops'), started on first use."""
    with _pools_lock:
        pool = _pools.get(kind)
        if pool is None:
            pool = _pools[kind] = kind(configured_size(), _warmup())
        return cast(P, pool)


def shutdown() -> None:
    """Stop the worker processes of every pool (a later request starts fresh ones)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown()


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
    outcome = _shared(WorkerPool).run(job, timeout)
    return _finish(outcome, legal, game, bot, seat, seed)


async def choose_move_async(game: str, state: Any, seat: int, bot: str, *, seed: int, timeout: float) -> str:
    """`choose_move` for an event loop: waits without blocking it; cancelling the task kills the search."""
    job, legal = _prepare(game, state, seat, bot, seed, timeout)
    outcome = await _shared(AsyncWorkerPool).run(job, timeout)
    return _finish(outcome, legal, game, bot, seat, seed)
