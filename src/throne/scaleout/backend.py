"""Map a pure, picklable function over job specs on a local process pool or a Ray cluster.

Every backend returns the results in the order of the jobs, and a job carries its own seed, so the results of
a run do not depend on the backend, the number of workers or the order in which workers finish.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
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
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r} (choose one of: {', '.join(BACKENDS)})")
    if address is not None and backend != "ray":
        raise BackendError(f"an address names a Ray cluster; it needs backend 'ray', not {backend!r}")
    if workers is not None and workers < 1:
        raise BackendError(f"workers must be at least 1, got {workers}")
    jobs = list(jobs)
    if not jobs:
        return iter(())
    if backend == "serial":
        return (fn(job) for job in jobs)
    if backend == "pool":
        return _run_pool(fn, jobs, workers)
    return _run_ray(fn, jobs, address, workers)


def _run_pool(fn: Callable[[Any], Any], jobs: list[Any], workers: int | None) -> Iterator[Any]:
    n = min(workers or default_workers(), len(jobs))
    if n == 1:
        yield from (fn(job) for job in jobs)
        return
    # "spawn": workers start clean, without threads or locks inherited from the parent (Ray, a server).
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=n, mp_context=context) as pool:
        yield from pool.map(fn, jobs, chunksize=1)


def _run_ray(
    fn: Callable[[Any], Any], jobs: list[Any], address: str | None, workers: int | None
) -> Iterator[Any]:
    require("ray", "the Ray backend")
    import ray
    if not ray.is_initialized():
        if address is None:
            ray.init(num_cpus=workers or default_workers(), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    remote = ray.remote(num_cpus=1)(_call)
    chunk = max(1, len(jobs) // (_ray_cpus(ray) * 4))
    batches = [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]
    refs = [remote.remote(fn, batch) for batch in batches]
    return _ray_results(ray, refs)


def _ray_results(ray: Any, refs: list[Any]) -> Iterator[Any]:
    for ref in refs:
        yield from ray.get(ref)


def _ray_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _call(fn: Callable[[Any], Any], batch: list[Any]) -> list[Any]:
    return [fn(job) for job in batch]
