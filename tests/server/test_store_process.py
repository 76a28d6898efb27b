"""The store processes of `throne serve` (`throne.server.store_calls.StoreProcess`, `throne.store.service`):
calls answered as the repository answers them, a database that cannot be used reported as such, a killed
process replaced while the other goes on, group commits before the other writes, and nothing taken lost at
shutdown."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests import asyncrun
from throne.server.store_calls import StoreProcess, StoreTimeout
from throne.store.db import Database, default_sqlite_url
from throne.store.repo import NotFound, Repo, SeatSpec
from throne.store.service import STOP, ReadService, StoreProcessError, WriteService, frame, read_frame


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = default_sqlite_url(tmp_path)
    database = Database(url)
    database.upgrade()
    database.dispose()
    return url


def _store(url: str, **kwargs: Any) -> tuple[StoreProcess, Repo]:
    """A store process, and a repository whose bound methods name its calls (never used to run them)."""
    return StoreProcess(url, kwargs.pop("busy_timeout", 2.0), 2, **kwargs), Repo(Database(url))


def _table(repo: Repo, creator: int) -> tuple[tuple, dict]:
    seat = SeatSpec(seat=0, kind="human", name="Ann", user_id=creator, token_hash="h")
    options = {"game": "leaders", "players": 2, "options": {}, "rated": False, "private": False}
    return (), {**options, "invite": None, "creator_id": creator, "seats": [seat]}


def test_calls_are_answered_as_the_repository_answers_them(url: str) -> None:
    store, repo = _store(url)

    async def scenario() -> None:
        try:
            ann = await store.write(repo.create_user, ("Ann",), {})
            assert (ann.id, ann.name, ann.username) == (1, "Ann", None)
            assert (await store.read(repo.get_user, (ann.id,), {})).name == "Ann"
            args, kwargs = _table(repo, ann.id)
            info = await store.write(repo.create_game, args, kwargs)
            read, seat = await store.read(repo.game_and_seat, (info.id, "h"), {})
            assert read == info and seat is not None and seat.name == "Ann"
            with pytest.raises(NotFound, match="no game 99"):  # the store's refusals, as raised
                await store.read(repo.get_game, (99,), {})
            with pytest.raises(ValueError, match="not a write"):  # checked before anything is sent
                await store.write(repo.get_game, (1,), {})
            with pytest.raises(ValueError, match="not a repository method"):
                await store.write(print, ("Ann",), {})
            for child in (store.writer, store.reader):  # the URL goes over the socket
                assert child.process is not None and url not in " ".join(map(str, child.process.args))
        finally:
            await store.close()
        assert [c.process.returncode for c in (store.writer, store.reader)] == [0, 0]

    asyncrun.run(scenario())


def test_a_locked_database_is_reported_as_unusable_and_the_process_goes_on(url: str) -> None:
    store, repo = _store(url, busy_timeout=0.2)
    outside = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None, check_same_thread=False)

    async def scenario() -> None:
        try:
            await store.write(repo.create_user, ("Ann",), {})
            outside.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            with pytest.raises(StoreProcessError, match=r"OperationalError: .*locked"):
                await store.write(repo.create_user, ("Bob",), {})
            assert (await store.read(repo.get_user, (1,), {})).name == "Ann"  # reads go on
            outside.execute("ROLLBACK")
            assert (await store.write(repo.create_user, ("Bob",), {})).name == "Bob"
        finally:
            await store.close()

    try:
        asyncrun.run(scenario())
    finally:
        outside.close()


Call = Callable[[], Awaitable[Any]]


async def _both_answered(store: StoreProcess, repo: Repo, role: str) -> tuple[Call, Call, Any]:
    """Both store processes answered a call: a call for the `role` process, one for the other, and the
    `role` process's child."""
    write = partial(store.write, repo.create_user, ("Ann",), {})
    read = partial(store.read, repo.get_user, (1,), {})
    await write()
    await read()
    ours, other = (write, read) if role == "write" else (read, write)
    return ours, other, store.writer if role == "write" else store.reader


@pytest.mark.parametrize("role", ["write", "read"])
def test_a_killed_store_process_fails_its_calls_and_another_one_takes_over(url: str, role: str) -> None:
    store, repo = _store(url, restart_after=0.3)

    async def scenario() -> None:
        try:
            ours, other, child = await _both_answered(store, repo, role)
            first = child.process
            assert first is not None
            os.kill(first.pid, signal.SIGKILL)
            with pytest.raises(StoreProcessError, match="stopped"):
                for _ in range(200):  # until the loss is seen
                    await ours()
                    await asyncio.sleep(0.01)
            with pytest.raises(StoreProcessError, match="another starts in a moment"):
                await ours()  # no restart loop: failing fast meanwhile
            assert await other() is not None  # the other process goes on
            await asyncio.sleep(0.35)
            assert await ours() is not None
            assert child.process is not first and first.wait(5) == -signal.SIGKILL
        finally:
            await store.close()

    asyncrun.run(scenario())


def test_shutdown_runs_every_write_taken_before_the_process_stops(url: str) -> None:
    store, repo = _store(url)

    async def scenario() -> list[Any]:
        await store.write(repo.create_user, ("P0",), {})  # the process runs
        writes = [asyncio.ensure_future(store.write(repo.create_user, (f"P{i}",), {})) for i in range(1, 60)]
        await asyncio.sleep(0)  # every call is sent; none is answered yet
        started = time.monotonic()
        await store.close()
        assert time.monotonic() - started < 20
        return await asyncio.gather(*writes)

    users = asyncrun.run(scenario())
    assert sorted(u.name for u in users) == sorted(f"P{i}" for i in range(1, 60))
    assert store.writer.process is not None and store.writer.process.returncode == 0
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        assert db.execute("SELECT count(*) FROM users").fetchone() == (60,)


@pytest.mark.parametrize(
    ("service", "lane", "name"),
    [
        (WriteService, "write", "db"),  # an attribute of the repository, not a method
        (WriteService, "write", "_game_row"),  # private
        (WriteService, "write", "get_game"),  # a read asked for as a write: it would wait behind writes
        (WriteService, "read", "get_game"),  # a read sent to the write process
        (ReadService, "read", "create_user"),  # a write asked for as a read
        (ReadService, "write", "create_user"),  # a write sent to the read process
        (ReadService, "read", "no_such_call"),
    ],
)
def test_each_store_process_runs_only_the_repositorys_calls_of_its_lanes(
    url: str, service: type[WriteService] | type[ReadService], lane: str, name: str
) -> None:
    ours, theirs = socket.socketpair()
    database = Database(url)
    ours.sendall(frame((7, lane, name, (), {})) + frame((STOP, "", "", (), {})))
    try:
        service(theirs, Repo(database)).serve()
        ours.settimeout(5)
        call_id, ok, payload = read_frame(ours)
    finally:
        ours.close()
        database.dispose()
    assert (call_id, ok, type(payload)) == (7, False, RuntimeError)
    assert str(payload) == f"no {lane} call {name!r} in the store"


def test_the_write_process_runs_group_commits_before_the_writes_waiting(url: str) -> None:
    """Calls that arrived together: the urgent one (a group commit's lane) first, the others in order."""
    ours, theirs = socket.socketpair()
    database = Database(url)
    calls = [(1, "write", "A"), (2, "write", "B"), (3, "urgent", "C"), (4, "write", "D")]
    ours.sendall(b"".join(frame((n, lane, "create_user", (name,), {})) for n, lane, name in calls))
    ours.sendall(frame((STOP, "", "", (), {})))
    try:
        WriteService(theirs, Repo(database)).serve()
        ours.settimeout(5)
        answers = [read_frame(ours) for _ in calls]
        assert read_frame(ours) is None  # the process closed its end once every call ran
    finally:
        ours.close()
        database.dispose()
    assert [(call_id, ok, user.id, user.name) for call_id, ok, user in answers] == [
        (3, True, 1, "C"),
        (1, True, 2, "A"),
        (2, True, 3, "B"),
        (4, True, 4, "D"),
    ]


@pytest.mark.parametrize("role", ["write", "read"])
def test_a_store_process_that_stops_answering_fails_the_call_in_time_and_is_replaced(
    url: str, role: str
) -> None:
    """A stopped store process (as a hung disk or database leaves it) fails the call at its deadline, not
    never; it answered nothing meanwhile, so it is killed, and a call after the restart delay gets another."""
    store, repo = _store(url, restart_after=0.2, deadline=2.0)  # a new process starts well within it

    async def scenario() -> None:
        try:
            ours, other, child = await _both_answered(store, repo, role)
            stuck = child.process
            assert stuck is not None
            os.kill(stuck.pid, signal.SIGSTOP)
            started = time.monotonic()
            with pytest.raises(StoreTimeout, match=f"store {role} process did not answer within 2 s"):
                await ours()
            assert 1.9 < time.monotonic() - started < 6
            assert stuck.wait(5) == -signal.SIGKILL  # killed, not left stopped for ever
            assert await other() is not None  # the other process went on
            await asyncio.sleep(0.3)
            assert await ours() is not None and child.process is not stuck
        finally:
            await store.close()

    asyncrun.run(scenario())

