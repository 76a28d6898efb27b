"""The database writer thread: urgent writes (group commits) run before the ordinary writes still waiting,
writes of one urgency run in order, failures reach whoever waits, shutdown ends cleanly."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError
from pathlib import Path

import pytest

from tests import asyncrun
from tests.server.helpers import live_games, store_hub
from throne.store.repo import NewMove
from throne.store.writer import WriterThread


def _blocked(writer: WriterThread) -> threading.Event:
    """Occupies the writer until the returned event is set, so that what is submitted next waits."""
    release, running = threading.Event(), threading.Event()

    def hold() -> str:
        running.set()
        release.wait(10)
        return "held"

    writer.submit(hold)
    assert running.wait(10)
    return release


def _recorder(done: list[str]) -> Callable[[str], Callable[[], str]]:
    def call(name: str) -> Callable[[], str]:
        def run() -> str:
            done.append(name)
            return name

        return run

    return call


@pytest.mark.parametrize(
    ("queued", "expected"),
    [
        # (urgent?, name) in the order submitted while the writer is busy -> the order they run in
        ([(False, "a"), (False, "b"), (False, "c")], ["a", "b", "c"]),
        ([(False, "a"), (True, "U"), (False, "b")], ["U", "a", "b"]),
        ([(False, "a"), (True, "U1"), (False, "b"), (True, "U2")], ["U1", "U2", "a", "b"]),
        ([(True, "U1"), (True, "U2")], ["U1", "U2"]),
    ],
)
def test_urgent_writes_overtake_waiting_ordinary_ones(
    queued: list[tuple[bool, str]], expected: list[str]
) -> None:
    writer = WriterThread("test-writer")
    done: list[str] = []
    call = _recorder(done)
    release = _blocked(writer)
    futures = [
        (writer.submit_urgent if urgent else writer.submit)(call(name)) for urgent, name in queued
    ]
    release.set()
    assert [f.result(10) for f in futures] == [name for _urgent, name in queued]
    assert done == expected
    writer.shutdown()


def test_a_failing_write_fails_alone() -> None:
    writer = WriterThread("test-writer")

    def broken() -> None:
        raise ValueError("disk full")

    failed = writer.submit(broken)
    fine = writer.submit(lambda: 7)
    with pytest.raises(ValueError, match="disk full"):
        failed.result(10)
    assert fine.result(10) == 7
    writer.shutdown()


def test_shutdown_runs_what_was_submitted_or_cancels_it_when_asked() -> None:
    writer = WriterThread("test-writer")
    release = _blocked(writer)
    kept = writer.submit(lambda: "kept")
    release.set()
    writer.shutdown(wait=True)
    assert kept.result(0) == "kept"
    with pytest.raises(RuntimeError, match="after shutdown"):
        writer.submit(lambda: None)

    writer = WriterThread("test-writer")
    release = _blocked(writer)
    dropped = writer.submit(lambda: "dropped")
    writer.shutdown(wait=False, cancel_futures=True)
    release.set()
    with pytest.raises(CancelledError):
        dropped.result(10)


def test_the_hubs_group_commit_goes_before_waiting_set_up_writes(tmp_path: Path) -> None:
    hub = store_hub(tmp_path)
    (game_id,) = live_games(hub.repo, 1)
    order: list[str] = []

    def set_up() -> None:
        order.append("set-up")

    async def scenario() -> None:
        release = _blocked(hub.store.writer)
        set_up_write = hub.db(set_up)
        commit = hub.commits.append(NewMove(game_id, 0, 0, "L:a1-b2", None, None, None, None))
        waiting = [asyncio.ensure_future(set_up_write), asyncio.ensure_future(commit)]
        await asyncio.sleep(0.05)  # both are queued behind the held write
        release.set()
        await asyncio.gather(*waiting)
        order.append("done")

    real_append = hub.repo.append_moves

    def append(moves: list[NewMove]) -> list[None]:
        order.append("commit")
        return [None for _ in moves]

    hub.repo.append_moves = append  # type: ignore[method-assign]
    try:
        asyncrun.run(scenario())
    finally:
        hub.repo.append_moves = real_append  # type: ignore[method-assign]
        hub.store.writer.shutdown()
    assert order == ["commit", "set-up", "done"]
