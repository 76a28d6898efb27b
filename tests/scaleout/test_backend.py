"""run_games: the same results, in job order, whichever local backend computes them."""

from __future__ import annotations

import pytest

from throne.scaleout.backend import BackendError, imap_games, run_games


def square_plus_seed(job: tuple[int, int]) -> tuple[int, int]:
    index, seed = job
    return index, index * index + seed


JOBS = [(i, 7) for i in range(12)]


@pytest.mark.parametrize(("backend", "workers"), [("serial", None), ("pool", 1), ("pool", 2)])
def test_results_in_job_order(backend: str, workers: int | None) -> None:
    assert run_games(square_plus_seed, JOBS, backend, workers=workers) == [square_plus_seed(j) for j in JOBS]


def test_imap_streams_in_order() -> None:
    assert [r[0] for r in imap_games(square_plus_seed, JOBS, "pool", workers=2)] == list(range(12))


def test_no_jobs() -> None:
    assert run_games(square_plus_seed, [], "pool") == []


@pytest.mark.parametrize(
    ("backend", "address", "workers", "message"),
    [
        ("cluster", None, None, "unknown backend"),
        ("pool", "ray://head:10001", None, "needs backend 'ray'"),
        ("serial", None, 0, "at least 1"),
    ],
)
def test_bad_settings(backend: str, address: str | None, workers: int | None, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        run_games(square_plus_seed, JOBS, backend, address, workers=workers)


def test_a_pool_stopped_early_leaves_no_open_wakeup_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupted run kills its pool and waits for the pool's manager thread, which closes its wake-up
    pipe: at interpreter exit `concurrent.futures` writes to every pipe still open, and a close racing that
    write printed an OSError traceback after Ctrl-C."""
    import concurrent.futures

    from throne.scaleout import backend

    wakeups: list[object] = []

    class RecordedPool(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            wakeups.append(self._executor_manager_thread_wakeup)  # shutdown() forgets it

    monkeypatch.setattr(backend, "ProcessPoolExecutor", RecordedPool)
    results = imap_games(square_plus_seed, JOBS, "pool", workers=2)
    next(results)
    results.close()  # as a KeyboardInterrupt in the consumer does: the pool is killed, not drained
    (wakeup,) = wakeups
    assert wakeup._closed  # type: ignore[attr-defined]
