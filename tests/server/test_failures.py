"""Failure handling: commit-then-show, a read-only database, backoff and the circuit breaker, JSON errors."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from starlette.websockets import WebSocketDisconnect

from tests.server.helpers import as_guest, hello, read_until, server_settings, two_player_leaders
from throne.server import match as match_module
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.games import kind_of, rebuild
from throne.server.lobby import READY_PROBE_INTERVAL
from throne.server.resilience import Backoff, CircuitBreaker
from throne.server.store_calls import StoreProcess
from throne.store.repo import StoreUnavailable


def _committed_view(client: TestClient, game_id: int, moves: list[tuple[int, str]]) -> dict[str, Any]:
    info = client.app.state.hub.repo.get_game(game_id)
    kind = kind_of(info.game)
    return kind.view(rebuild(kind, info, moves), None)


def test_no_uncommitted_position_is_ever_visible(client: TestClient, monkeypatch) -> None:
    """While each move is being committed, every reader (the hub, HTTP, sockets) sees the position before
    it under the ply before it; afterwards the new position under the new ply, never a mix."""
    game_id, tokens = two_player_leaders(client)
    hub = client.app.state.hub
    repo = hub.repo
    real = repo.append_moves
    during: list[tuple[int, dict[str, Any], dict[str, Any], int]] = []

    def probing(moves: list[Any]) -> list[Any]:
        # Runs on the writer thread while the owner awaits the commit: read what others would read now.
        (move,) = moves
        message = client.portal.call(hub.current_state, game_id, None)
        summary = hub.summary(hub.matches[game_id].info)
        answer: dict[str, Any] = {}
        url = f"/api/games/{move.game_id}/view"
        reader = threading.Thread(target=lambda: answer.update(client.get(url).json()))
        reader.start()
        reader.join(10)  # reads have their own threads: they never queue behind this write
        assert not reader.is_alive(), "a read waited for a write"
        during.append((move.ply, message, answer, summary["ply"]))
        return real(moves)

    monkeypatch.setattr(repo, "append_moves", probing)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_json({"type": "hello", "spectate": True})
        read_until(ws, "state", 0)
        for ply in range(8):
            view = client.get(f"/api/games/{game_id}/view").json()
            assert view["ply"] == ply
            token = tokens[view["to_play"]]
            legal = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()
            r = client.post(
                f"/api/games/{game_id}/move",
                json={"move": legal["legal_moves"][0], "ply": ply},
                headers={"X-Seat-Token": token},
            )
            assert r.status_code == 200, r.text
            shown, _ = read_until(ws, "state", ply + 1)
            assert shown["view"] == _committed_view(client, game_id, repo.moves(game_id)[: ply + 1])
    moves = repo.moves(game_id)
    assert len(during) == 8
    for ply, message, answer, summary_ply in during:
        before = _committed_view(client, game_id, moves[:ply])
        assert message["ply"] == ply and message["view"] == before
        assert answer["ply"] == ply and answer["view"] == before
        assert summary_ply == ply


@pytest.fixture
def fragile(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path,
        secret_key="k",
        abandon_timeout=1.0,
        retry_base=0.05,
        retry_cap=0.4,
        breaker_threshold=3,
        breaker_cooldown=0.2,
    )


def test_a_read_only_database_costs_bounded_retries_and_the_server_recovers(
    fragile: Settings, caplog
) -> None:
    with TestClient(create_app(fragile), raise_server_exceptions=False) as client:
        hub = client.app.state.hub
        read_only = {"on": False}

        @event.listens_for(hub.repo.db.engine, "checkout")
        def _query_only(dbapi_conn, _record, _proxy) -> None:  # SQLite refuses every write while on
            cur = dbapi_conn.cursor()
            cur.execute(f"PRAGMA query_only={'ON' if read_only['on'] else 'OFF'}")
            cur.close()

        attempts = {"append_moves": 0, "takeover": 0}
        for name in attempts:
            real = getattr(hub.repo, name)

            def counted(*args: Any, _real=real, _name=name, **kwargs: Any) -> Any:
                attempts[_name] += 1
                return _real(*args, **kwargs)

            setattr(hub.repo, name, counted)
        gate = threading.Event()

        async def bot(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
            while not gate.is_set():
                await asyncio.sleep(0.01)
            return state.legal_moves()[0]

        hub.chooser = bot
        assert client.get("/api/ready").json() == {"ok": True}

        # Game 1: a person against a bot; the person moves so that the bot is to play.
        as_guest(client, "Ann")
        r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"}).json()
        bot_game, token, seat = r["game"]["id"], r["token"], r["seat"]
        view = client.get(f"/api/games/{bot_game}/view", headers={"X-Seat-Token": token}).json()
        if view["to_play"] == seat:
            move = {"move": view["legal_moves"][0], "ply": 0}
            r = client.post(f"/api/games/{bot_game}/move", json=move, headers={"X-Seat-Token": token})
            assert r.status_code == 200, r.text
        ply = client.get(f"/api/games/{bot_game}/view").json()["ply"]
        # Game 2: two people who never connect; a bot takes the seat to play over after 1 s.
        away_game, _tokens = two_player_leaders(client)

        read_only["on"] = True
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="throne"):
            gate.set()
            # 2.5 s of failing writes; longer only while the take-over (due 1 s after the table opened)
            # has not been tried yet, which a loaded machine can delay
            started = time.monotonic()
            while (waited := time.monotonic() - started) < 2.5 or (not attempts["takeover"] and waited < 10):
                time.sleep(0.1)
            ready = client.get("/api/ready")
            assert ready.status_code == 503 and ready.json()["error"]["code"] == "not_ready"
            # A write (a new guest and a table): refused with a JSON 503, not a text/plain 500.
            created = client.post("/api/games", json={"game": "leaders"})
            assert created.status_code == 503, created.text
            assert created.headers["content-type"] == "application/json"
            assert created.json()["error"]["code"] == "store_unavailable"
            assert client.get(f"/api/games/{bot_game}").status_code == 200  # reads are still served
            records = len(caplog.records)
        assert 1 <= attempts["append_moves"] <= 15, attempts  # not one per bot reply
        assert 1 <= attempts["takeover"] <= 15, attempts  # not re-armed with delay 0
        assert records <= 30, [r.getMessage() for r in caplog.records[:40]]
        assert client.get(f"/api/games/{bot_game}/view").json()["ply"] == ply

        read_only["on"] = False
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            game = client.get(f"/api/games/{away_game}").json()["game"]
            recovered = (
                client.get("/api/ready").status_code == 200
                and client.get(f"/api/games/{bot_game}/view").json()["ply"] > ply
                and any(s.get("takeover") for s in game["seats"])
            )
            if recovered:
                break
            time.sleep(0.1)
        assert recovered, "the server did not recover when the database became writable again"


def test_unexpected_errors_are_json(fragile: Settings, monkeypatch) -> None:
    with TestClient(create_app(fragile), raise_server_exceptions=False) as client:
        as_guest(client, "Ann")
        game_id = client.post("/api/games", json={"game": "leaders"}).json()["game"]["id"]
        hub = client.app.state.hub

        def broken(*_args: Any, **_kw: Any) -> None:
            raise RuntimeError("a bug")

        monkeypatch.setattr(hub, "summary", broken)
        r = client.get(f"/api/games/{game_id}")
        assert r.status_code == 500 and r.headers["content-type"] == "application/json"
        assert r.json() == {
            "error": {"code": "server_error", "message": "the server failed to answer this request"}
        }


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# (events, expected: allowed now?, is_open) — "f" failure, "s" success, "a" an allowed probe, "t+X" time
BREAKER_CASES = [
    ("f f", True, False),  # below the threshold: closed
    ("f f f", False, True),  # third failure in a row: open, calls fail fast
    ("f f s f", True, False),  # a success resets the count
    ("f f f t+1.0", True, True),  # cool-down over: one probe goes through (half-open)
    ("f f f f f t+1.0", True, True),  # calls already under way when it opened do not lengthen the cool-down
    ("f f f t+1.0 a", False, True),  # ... and only one
    ("f f f t+1.0 a s", True, False),  # the probe succeeded: closed
    ("f f f t+1.0 a f t+1.0", False, True),  # the probe failed: the cool-down doubled to 2 s
    ("f f f t+1.0 a f t+2.0", True, True),
]


@pytest.mark.parametrize(("events", "allowed", "is_open"), BREAKER_CASES)
def test_circuit_breaker(events: str, allowed: bool, is_open: bool) -> None:
    clock = _Clock()
    breaker = CircuitBreaker(threshold=3, cooldown=1.0, clock=clock)
    for e in events.split():
        if e == "f":
            breaker.failure()
        elif e == "s":
            breaker.success()
        elif e == "a":
            assert breaker.allow()
        else:
            clock.now += float(e[2:])
    assert breaker.allow() is allowed and breaker.is_open is is_open


def test_backoff_grows_with_jitter_up_to_the_cap() -> None:
    import random

    backoff = Backoff(base=0.1, cap=1.0, rng=random.Random(1))
    delays = [backoff.failed() for _ in range(8)]
    ceilings = [0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0, 1.0]
    assert all(c / 2 <= d <= c for d, c in zip(delays, ceilings, strict=True)), delays
    assert len(set(delays)) == len(delays)  # jittered: retries of many games do not line up
    logged = Backoff(0.1, 1.0)
    assert [n for n in range(1, 10) if logged.failed() and logged.worth_logging] == [1, 2, 4, 8]
    backoff.reset()
    assert backoff.failures == 0 and backoff.failed() <= 0.1


@pytest.mark.parametrize("store_process", [False, True], ids=["store threads", "store process"])
def test_a_lock_held_outside_fails_one_write_not_the_server(tmp_path: Path, store_process: bool) -> None:
    settings = Settings(data_dir=tmp_path, secret_key="k", busy_timeout=0.3, abandon_timeout=3600.0)
    settings.store_process = store_process
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        game_id, tokens = two_player_leaders(client)
        store = client.app.state.hub.store
        assert isinstance(store, StoreProcess) == store_process
        assert store_process is False or store.writer.process.poll() is None
        view = client.get(f"/api/games/{game_id}/view").json()
        token = tokens[view["to_play"]]
        move = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()[
            "legal_moves"
        ][0]
        outside = sqlite3.connect(tmp_path / "throne.sqlite3", isolation_level=None)
        outside.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            started = time.monotonic()
            r = client.post(
                f"/api/games/{game_id}/move", json={"move": move}, headers={"X-Seat-Token": token}
            )
            assert r.status_code == 503 and r.json()["error"]["code"] == "store_unavailable", r.text
            assert time.monotonic() - started < 5  # the busy timeout, not a frozen game
            started = time.monotonic()
            assert client.get(f"/api/games/{game_id}").status_code == 200  # reads go on meanwhile
            assert client.get(f"/api/games/{game_id}/view").json()["ply"] == 0
            assert time.monotonic() - started < 1
        finally:
            outside.execute("ROLLBACK")
            outside.close()
        r = client.post(f"/api/games/{game_id}/move", json={"move": move}, headers={"X-Seat-Token": token})
        assert r.status_code == 200 and r.json()["ply"] == 1, r.text


def test_readiness_checks_at_once_share_one_probe_write(client: TestClient) -> None:
    """A load balancer (or anyone: the route is public) asking many times costs one write a second."""
    hub = client.app.state.hub
    probes = 0
    probe = hub.repo.probe_write

    def counted() -> int:
        nonlocal probes
        probes += 1
        return probe()

    hub.repo.probe_write = counted

    async def burst() -> list[str | None]:
        return await asyncio.gather(*(hub.store_ready() for _ in range(50)))

    assert client.portal.call(burst) == [None] * 50 and probes == 1
    assert client.get("/api/ready").status_code == 200 and probes == 1  # the same answer, within the second
    time.sleep(READY_PROBE_INTERVAL)
    assert client.get("/api/ready").status_code == 200 and probes == 2


def test_a_store_that_hangs_at_shutdown_delays_it_by_a_bounded_wait(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shutdown stores the clocks of the timed games; a store that never answers (a hung disk) delays it
    by STOP_WAIT, not for ever."""
    monkeypatch.setattr(match_module, "STOP_WAIT", 0.5)
    client = TestClient(create_app(settings))
    client.__enter__()
    hub = client.app.state.hub
    as_guest(client, "Ann")
    fischer = {"kind": "fischer", "minutes": 5, "increment": 3}
    r = client.post("/api/games", json={"game": "leaders", "players": 2, "time_control": fischer})
    game_id = r.json()["game"]["id"]
    client.cookies.clear()
    as_guest(client, "Bob")
    assert client.post(f"/api/games/{game_id}/join", json={}).status_code == 200
    match = hub.matches[game_id]
    assert match.clock.timed
    db, asked = hub.db, []

    async def hung_clocks(fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn == hub.repo.save_clock:
            asked.append(fn)
            await asyncio.Event().wait()  # never answers
        return await db(fn, *args, **kwargs)

    hub.db = hung_clocks
    # The app's shutdown (Hub.close), on a thread of its own: a shutdown that hangs fails the test.
    shutdown = threading.Thread(target=client.__exit__, args=(None, None, None), daemon=True)
    shutdown.start()
    shutdown.join(10.0)
    assert not shutdown.is_alive(), "the shutdown waits for a store that never answers"
    assert asked and match.task is not None and match.task.done()


def _timed_game(client: TestClient) -> None:
    as_guest(client, "Ann")
    fischer = {"kind": "fischer", "minutes": 5, "increment": 3}
    r = client.post("/api/games", json={"game": "leaders", "players": 2, "time_control": fischer})
    game_id = r.json()["game"]["id"]
    as_guest(client, "Bob")
    assert client.post(f"/api/games/{game_id}/join", json={}).status_code == 200
    assert client.app.state.hub.matches[game_id].clock.timed


@pytest.mark.parametrize("store_process", [True, False], ids=["store process", "store threads"])
def test_a_shutdown_waits_at_most_stop_wait_for_a_store_that_does_not_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_process: bool
) -> None:
    """The store itself hangs (its write process stopped, or its writer thread stuck in the database call):
    the clocks' writes and the store's own stop share STOP_WAIT; then the write process is killed, or the
    stuck thread left to end with the process, without blocking the event loop."""
    monkeypatch.setattr(match_module, "STOP_WAIT", 1.0)
    settings = server_settings(tmp_path, clock_checkpoint=3600.0, store_process=store_process)
    client = TestClient(create_app(settings))
    client.__enter__()
    hub = client.app.state.hub
    _timed_game(client)
    release = threading.Event()
    if store_process:
        stuck = hub.store.writer.process
        os.kill(stuck.pid, signal.SIGSTOP)
    else:
        save_clock = hub.repo.save_clock

        def hung(*args: Any, **kwargs: Any) -> Any:
            release.wait(30)
            return save_clock(*args, **kwargs)

        hub.repo.save_clock = hung
    began = time.monotonic()
    shutdown = threading.Thread(target=client.__exit__, args=(None, None, None), daemon=True)
    shutdown.start()
    try:
        shutdown.join(20.0)
        took = time.monotonic() - began  # (a margin for a busy machine; unbounded, it took 35 s or more)
        assert not shutdown.is_alive() and took < 1.0 + 7.0, f"the shutdown took {took:.1f} s"
        if store_process:
            assert stuck.wait(5) == -signal.SIGKILL
    finally:
        release.set()
        if store_process:
            with contextlib.suppress(ProcessLookupError):
                os.kill(stuck.pid, signal.SIGCONT)
        shutdown.join(30.0)


def test_a_node_whose_games_stopped_late_gives_its_store_no_more_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cluster node hands its games over first; when the store did not answer their stops within
    STOP_WAIT, the store is not given a second more, as in a single process (it is stopped at once)."""
    monkeypatch.setattr(match_module, "STOP_WAIT", 0.1)
    client = TestClient(create_app(server_settings(tmp_path)))
    client.__enter__()
    hub = client.app.state.hub

    class LateNode:  # what `Hub.close` uses of a cluster node whose games' stops waited out STOP_WAIT
        async def stop(self) -> bool:
            await asyncio.sleep(0.2)
            return False

    hub.cluster = LateNode()
    given: list[float] = []
    close = hub.store.close

    async def timed_close(timeout: float) -> None:
        given.append(timeout)
        await close(timeout)

    hub.store.close = timed_close
    client.__exit__(None, None, None)
    assert given == [0.0]


@pytest.mark.parametrize("store_process", [True, False], ids=["store process", "store threads"])
def test_a_shutdown_runs_every_write_the_store_took(tmp_path: Path, store_process: bool) -> None:
    """A store that answers runs every write it took before the shutdown stops it."""
    settings = server_settings(tmp_path, store_process=store_process)
    with TestClient(create_app(settings)) as client:
        hub = client.app.state.hub
        writes: list[asyncio.Future[Any]] = []

        async def many_writes() -> int:
            writes.extend(asyncio.ensure_future(hub.db(hub.repo.create_user, f"P{i}")) for i in range(40))
            await asyncio.sleep(0)  # each is sent (or queued on the writer thread)
            return sum(write.done() for write in writes)

        assert client.portal.call(many_writes) < 40  # the shutdown begins with writes under way
    with sqlite3.connect(tmp_path / "throne.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM users WHERE name LIKE 'P%'").fetchone() == (40,)


def test_readiness_after_the_store_recovers_still_asks_redis(client: TestClient) -> None:
    hub = client.app.state.hub

    class RedisDown:  # what the hub asks of its cluster here
        async def ready(self) -> str | None:
            return "redis is unreachable"

    while not hub.breaker.is_open:  # the store failed: the breaker is open
        hub.breaker.failure()
    hub.cluster = RedisDown()
    try:
        ready = client.get("/api/ready")
    finally:
        hub.cluster = None
    assert not hub.breaker.is_open  # the probe found the store answering again
    assert ready.status_code == 503 and ready.json()["error"]["message"] == "redis is unreachable"


@pytest.mark.parametrize("store_process", [False, True], ids=["store threads", "store process"])
def test_a_store_that_stops_answering_fails_one_request_not_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_process: bool
) -> None:
    """A write the store never answers (a hung disk, a stopped database) fails its request at the store
    deadline with `store_unavailable`; reads and health answer meanwhile; once the store answers again the
    move is stored exactly once, whether or not the hung write had committed it."""
    settings = Settings(
        data_dir=tmp_path, secret_key="k", busy_timeout=0.3, store_deadline=1.5, abandon_timeout=3600.0
    )
    settings.store_process = store_process
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        game_id, tokens = two_player_leaders(client)
        hub = client.app.state.hub
        view = client.get(f"/api/games/{game_id}/view").json()
        token = tokens[view["to_play"]]
        headers = {"X-Seat-Token": token}
        move = client.get(f"/api/games/{game_id}/view", headers=headers).json()["legal_moves"][0]
        release = threading.Event()
        if store_process:  # the write process stops: it reads nothing and answers nothing
            stuck = hub.store.writer.process
            os.kill(stuck.pid, signal.SIGSTOP)
        else:  # the writer thread hangs in the write, which then commits once released
            append = hub.repo.append_moves

            def hung(moves: list[Any]) -> list[Any]:
                release.wait(30)
                return append(moves)

            monkeypatch.setattr(hub.repo, "append_moves", hung)
        try:
            started = time.monotonic()
            r = client.post(f"/api/games/{game_id}/move", json={"move": move, "ply": 0}, headers=headers)
            assert r.status_code == 503, r.text
            assert r.json()["error"]["code"] == "store_unavailable"
            assert 1.4 < time.monotonic() - started < 8
            started = time.monotonic()
            assert client.get("/api/health").status_code == 200
            assert client.get(f"/api/games/{game_id}/view").json()["ply"] == 0  # reads go on
            assert time.monotonic() - started < 1
            if store_process:
                assert stuck.wait(10) == -signal.SIGKILL  # the stuck process is replaced
        finally:
            release.set()
        for _ in range(100):  # the client sends the move again until the store answers
            r = client.post(f"/api/games/{game_id}/move", json={"move": move, "ply": 0}, headers=headers)
            if r.status_code != 503:
                break
            time.sleep(0.1)
        assert r.status_code in (200, 409), r.text  # stored now, or the hung write had stored it: stale
        assert len(hub.repo.moves(game_id)) == 1
        deadline = time.monotonic() + 10
        while client.get(f"/api/games/{game_id}/view").json()["ply"] != 1:
            assert time.monotonic() < deadline, "the game never showed the stored move"
            time.sleep(0.05)


# what fails: the spectator's read of the game (before the greeting), the seat's state (after it)
@pytest.mark.parametrize(("failing", "seat"), [("repo.get_game", None), ("current_state", 0)])
def test_a_hello_the_store_cannot_answer_is_told_so_and_closed_to_be_tried_again(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, failing: str, seat: int | None
) -> None:
    game_id, tokens = two_player_leaders(client)
    hub = client.app.state.hub
    owner, name = (hub.repo, "get_game") if failing == "repo.get_game" else (hub, "current_state")

    async def state_down(*_args: Any, **_kw: Any) -> Any:
        raise StoreUnavailable("the database is down")

    def read_down(*_args: Any, **_kw: Any) -> Any:
        raise StoreUnavailable("the database is down")

    token = None if seat is None else tokens[seat]
    with monkeypatch.context() as patch:
        patch.setattr(owner, name, read_down if owner is hub.repo else state_down)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            ws.send_json({"type": "hello", "token": token})
            error, _ = read_until(ws, "error")
            assert (error["code"], error["request"]) == ("store_unavailable", "hello")
            with pytest.raises(WebSocketDisconnect) as closed:
                read_until(ws, "state")
            assert closed.value.code == 1013  # try again later: the page connects again
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:  # the store is back: hello works
        hello(ws, token)
        assert read_until(ws, "state", 0)[0]["seat"] == seat
