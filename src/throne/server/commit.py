"""Group commit: the moves that owner tasks append within one short window are committed in one transaction.

An owner task awaits `GroupCommit.append(move)`; it returns once the transaction holding that move has
committed (so the owner shows the move only then: commit, then show), or raises what the store said about
that move: StalePly for that move alone, StoreUnavailable (a fresh instance each) for every move of a group
whose transaction failed — nothing of such a group is stored. While one group is being written on the
writer thread, the next one gathers: under load a group holds every move that arrived during the previous
commit, at no extra latency; an idle server commits a lone move at once (after `window` seconds, 0 by
default).

A group that fails for a reason other than the store being unavailable (a bug, a rating hook that raises) is
retried move by move, so one bad move fails alone with its own error and the others are stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from throne.store.repo import NewMove, StalePly, StoreUnavailable

log = logging.getLogger(__name__)

MAX_GROUP = 256  # moves per transaction at most (a bounded write, a bounded wait for the last of them)

Writer = Callable[[list[NewMove]], Awaitable[list[StalePly | None]]]


class GroupCommit:
    """Owns one background task that writes the queued moves in groups through `write` (which runs
    `Repo.append_moves` off the event loop, behind the store's circuit breaker)."""

    def __init__(
        self,
        write: Writer,
        window: float = 0.0,
        max_group: int = MAX_GROUP,
        observe: Callable[[int, float], None] | None = None,
    ) -> None:
        self.write = write
        self.window = window
        self.max_group = max_group
        self.observe = observe  # called with (group size, seconds the commit took) after each commit
        self._queue: list[tuple[NewMove, asyncio.Future[None]]] = []
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self.groups = 0  # transactions committed (tests and metrics)

    @property
    def waiting(self) -> int:
        """Moves queued and not yet in a transaction."""
        return len(self._queue)

    async def append(self, move: NewMove) -> None:
        """Stores `move` in the next group; returns once its transaction committed."""
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            # A context of its own: started by some game's task, it must not log as that game.
            self._task = loop.create_task(self._run(), name="group-commit", context=contextvars.Context())
        done: asyncio.Future[None] = loop.create_future()
        self._queue.append((move, done))
        assert self._wake is not None
        self._wake.set()
        await done

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for _move, done in self._queue:
            if not done.done():
                done.set_exception(StoreUnavailable("the server is shutting down"))
        self._queue.clear()

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self.window > 0:
                await asyncio.sleep(self.window)
            while self._queue:
                group = self._queue[: self.max_group]
                del self._queue[: self.max_group]
                await self._commit(group)

    async def _commit(self, group: list[tuple[NewMove, asyncio.Future[None]]]) -> None:
        moves = [m for m, _ in group]
        started = time.perf_counter()
        try:
            answers = await self.write(moves)
        except asyncio.CancelledError:
            for _m, done in group:
                if not done.done():
                    done.set_exception(StoreUnavailable("the server is shutting down"))
            raise
        except StoreUnavailable as exc:
            for _m, done in group:
                _fail(done, StoreUnavailable(exc.message))
            return
        except Exception as exc:
            if len(group) == 1:  # the owner handles it as it handles any unexpected error
                _fail(group[0][1], exc)
                return
            log.warning("a group of %d moves failed; storing them one by one", len(group), exc_info=True)
            for one in group:
                await self._commit([one])
            return
        self.groups += 1
        if self.observe is not None:
            self.observe(len(group), time.perf_counter() - started)
        for (_m, done), answer in zip(group, answers, strict=True):
            if done.done():
                continue
            if answer is None:
                done.set_result(None)
            else:
                done.set_exception(answer)


def _fail(done: asyncio.Future[Any], exc: BaseException) -> None:
    if not done.done():
        done.set_exception(exc)
