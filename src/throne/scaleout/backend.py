"""Map a pure, picklable function over job specs on a local process pool or a Ray cluster.

Every backend returns the results in the order of the jobs, and a job carries its own seed, so the results of
a run do not depend on the backend, the number of workers or the order in which workers finish.
`imap_unordered` hands each result over as soon as it is done, with its job's position. Stopping early
(Ctrl-C, an error, leaving the loop) kills the pool's workers and cancels the Ray tasks at once, and shuts
down a Ray runtime the run started itself.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from throne.extras import require

J = TypeVar("J")
R = TypeVar("R")

BACKENDS = ("pool", "ray", "serial")


class BackendError(ValueError):
    """An unknown backend, or options that do not fit the chosen backend."""


def default_workers() -> int:
    """Worker processes used when none are asked for: one per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def run_games(
    fn: Callable[[J], R],
    jobs: Sequence[J],
    backend: str = "pool",
    address: str | None = None,
    *,
    workers: int | None = None,
) -> list[R]:
    """`[fn(job) for job in jobs]`, computed by `backend`: `"pool"` (local processes, the default), `"ray"`
    (a Ray cluster at `address`, a local Ray runtime when `address` is None, or the runtime this process
    already started) or `"serial"` (this process; for debugging and tiny runs).

    `fn` must be a module-level function and every job and result picklable.
    """
    return list(imap_games(fn, jobs, backend, address, workers=workers))


def imap_games(
    fn: Callable[[J], R],
    jobs: Iterable[J],
    backend: str = "pool",
    address: str | None = None,
    *,
    workers: int | None = None,
) -> Iterator[R]:
    """Like `run_games`, but yields each result (in job order) as soon as it and those before it are done."""
    return _in_order(imap_unordered(fn, jobs, backend, address, workers=workers))


def imap_unordered(
    fn: Callable[[J], R],
    jobs: Iterable[J],
    backend: str = "pool",
    address: str | None = None,
    *,
    workers: int | None = None,
) -> Iterator[tuple[int, R]]:
    """`(position of the job, fn(job))` for every job, each as soon as it is done (any order)."""
    check_backend(backend, address, workers)
    jobs = list(jobs)
    if not jobs:
        return iter(())
    if backend == "serial":
        return ((i, fn(job)) for i, job in enumerate(jobs))
    if backend == "pool":
        return _run_pool(fn, jobs, workers)
    return _run_ray(fn, jobs, address, workers)


def check_backend(backend: str, address: str | None = None, workers: int | None = None) -> None:
    """Raise `BackendError` for settings no backend can run (so a run fails before any work starts)."""
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r} (choose one of: {', '.join(BACKENDS)})")
    if address is not None and backend != "ray":
        raise BackendError(f"an address names a Ray cluster; it needs backend 'ray', not {backend!r}")
    if workers is not None and workers < 1:
        raise BackendError(f"workers must be at least 1, got {workers}")


def _in_order(pairs: Iterator[tuple[int, R]]) -> Iterator[R]:
    waiting: dict[int, R] = {}
    following = 0
    for position, result in pairs:
        waiting[position] = result
        while following in waiting:
            yield waiting.pop(following)
            following += 1


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group; the parent alone decides what to keep and stops the workers.
    # A worker starts with SIGINT blocked (`_interrupts_held`), so one that comes during its start-up waits
    # here and is dropped instead of printing a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT is blocked in this thread while workers are started (they inherit the mask); the parent
    still gets a Ctrl-C that comes meanwhile, as soon as the block ends."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _run_pool(fn: Callable[[Any], Any], jobs: list[Any], workers: int | None) -> Iterator[tuple[int, Any]]:
    n = min(workers or default_workers(), len(jobs))
    if n == 1:
        yield from ((i, fn(job)) for i, job in enumerate(jobs))
        return
    # "spawn": workers start clean, without threads or locks inherited from the parent (Ray, a server).
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=n, mp_context=context, initializer=_ignore_interrupts)
    queue = iter(enumerate(jobs))
    pending: dict[Future[Any], int] = {}

    def fill() -> None:  # a few jobs ahead per worker, not all of them: submitting is not free
        with _interrupts_held():  # a submit may start a worker
            for i, job in itertools.islice(queue, max(0, 2 * n - len(pending))):
                pending[pool.submit(fn, job)] = i

    finished = False
    try:
        fill()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            ready = sorted((pending.pop(future), future) for future in done)
            fill()
            for i, future in ready:
                yield i, future.result()
        finished = True
    finally:
        if finished:
            pool.shutdown()
        else:
            _kill_pool(pool)


def _kill_pool(pool: ProcessPoolExecutor) -> None:
    """Stop at once: drop the queued jobs and kill the workers (a running game is not waited for)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(5)
    # The pool's manager thread closes its wake-up pipe as it ends; at interpreter exit `concurrent.futures`
    # writes to every pipe not yet closed, and a close racing that write prints an OSError traceback.
    if manager is not None:
        manager.join(5)


def _run_ray(
    fn: Callable[[Any], Any], jobs: list[Any], address: str | None, workers: int | None
) -> Iterator[tuple[int, Any]]:
    require("ray", "the Ray backend")
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        if address is None:
            ray.init(num_cpus=workers or default_workers(), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    remote = ray.remote(num_cpus=1)(_call)
    # small batches, so that progress is reported often; several per CPU, so that no worker waits long
    chunk = max(1, len(jobs) // (_ray_cpus(ray) * 8))
    refs = {remote.remote(fn, jobs[i : i + chunk]): i for i in range(0, len(jobs), chunk)}
    return _ray_results(ray, refs, started_here)


def _ray_results(ray: Any, refs: dict[Any, int], started_here: bool) -> Iterator[tuple[int, Any]]:
    finished = False
    try:
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            for ref in ready:
                first = refs.pop(ref)
                yield from enumerate(ray.get(ref), start=first)
        finished = True
    finally:
        if not finished:
            for ref in refs:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            if started_here:
                ray.shutdown()


def _ray_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _call(fn: Callable[[Any], Any], batch: list[Any]) -> list[Any]:
    return [fn(job) for job in batch]
