"""Operations when things go wrong (one process, SQLite): what /metrics, /api/ready and the structured logs
say about sockets that never greet, a store that answers too late, a data directory removed under the server,
a store process restarted, and a client that stops reading; and what the logs must never hold."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from tests.server.helpers import as_guest, json_log_lines, read_until, two_player_leaders, two_seats
from tests.server.test_controls import table
from throne import logs
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.conn import OUTBOX, Conn
from throne.server.lobby import READY_PROBE_INTERVAL
from throne.store.repo import Repo


def _scrape(client: TestClient) -> dict[str, float]:
    r = client.get("/metrics")
    assert r.status_code == 200
    return {
        sample.name + "".join(f"[{v}]" for v in sample.labels.values()): sample.value
        for family in text_string_to_metric_families(r.text)
        for sample in family.samples
    }


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """The `throne` loggers' lines, as `throne serve --log-format json` writes them."""
    with json_log_lines("throne") as stream:
        yield stream


def _records(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


# ---- /metrics --------------------------------------------------------------------------------------------


def test_the_sockets_gauge_counts_open_sockets_that_have_not_said_hello(settings: Settings) -> None:
    """`throne_sockets` counts the open game WebSockets, greeted or not: a socket waiting for its `hello` (up
    to `hello_timeout`) already holds one of its address's `max_sockets_per_ip` slots."""
    settings.max_sockets_per_ip = 2
    with TestClient(create_app(settings)) as client:
        as_guest(client, "Ann")
        game_id = client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]
        path = f"/ws/games/{game_id}"
        with client.websocket_connect(path) as one, client.websocket_connect(path) as two:
            for ws in (one, two):
                ws.send_json({"type": "ping"})
                assert ws.receive_json()["type"] == "pong"
            with client.websocket_connect(path) as third:  # the address's cap is full: both sockets count
                assert third.receive_json()["code"] == "too_many_sockets"
            assert _scrape(client)["throne_sockets"] == 2


def test_a_move_committed_after_its_store_call_timed_out_is_counted(tmp_path: Path, monkeypatch) -> None:
    """A move whose write outlived the store deadline but committed is refused `store_unavailable`; sent
    again it is refused `stale`, and the owner reads the committed move back and shows it. It was committed
    and shown, so `throne_moves_total` counts it (once)."""
    settings = Settings(
        data_dir=tmp_path, secret_key="k", busy_timeout=0.3, store_deadline=1.0, abandon_timeout=3600.0
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        game_id, tokens = two_player_leaders(client)
        hub = client.app.state.hub
        view = client.get(f"/api/games/{game_id}/view").json()
        headers = {"X-Seat-Token": tokens[view["to_play"]]}
        move = client.get(f"/api/games/{game_id}/view", headers=headers).json()["legal_moves"][0]
        release = threading.Event()
        append = hub.repo.append_moves

        def slow(moves: list[Any]) -> list[Any]:  # a slow disk: the write commits, after the deadline
            release.wait(10)
            return append(moves)

        monkeypatch.setattr(hub.repo, "append_moves", slow)
        try:
            body = {"move": move, "ply": 0}
            r = client.post(f"/api/games/{game_id}/move", json=body, headers=headers)
            assert r.status_code == 503, r.text
        finally:
            release.set()
        for _ in range(100):  # the client sends it again until the store answers
            r = client.post(f"/api/games/{game_id}/move", json={"move": move, "ply": 0}, headers=headers)
            if r.status_code != 503:
                break
            time.sleep(0.05)
        deadline = time.monotonic() + 10
        while client.get(f"/api/games/{game_id}/view").json()["ply"] != 1:
            assert time.monotonic() < deadline, "the committed move was never shown"
            time.sleep(0.05)
        assert len(hub.repo.moves(game_id)) == 1  # one move committed, and shown
        assert _scrape(client).get("throne_moves_total[leaders]", 0) == 1


# ---- /api/ready ------------------------------------------------------------------------------------------


def test_ready_fails_once_the_database_directory_is_removed(tmp_path: Path) -> None:
    """With the data directory (the SQLite file, its WAL) deleted under the server, its pooled connections
    still hold the deleted file open: a write there would be lost at the next start. /api/ready answers 503
    and a write is refused as the store being unavailable, instead of being accepted and lost."""
    data = tmp_path / "data"
    data.mkdir()
    with TestClient(
        create_app(Settings(data_dir=data, secret_key="k")), raise_server_exceptions=False
    ) as client:
        assert client.get("/api/ready").status_code == 200
        shutil.rmtree(data)
        time.sleep(READY_PROBE_INTERVAL + 0.1)  # past the shared answer of the probe before
        ready = client.get("/api/ready")
        assert ready.status_code == 503, ready.text
        client.cookies.clear()
        guest = client.post("/api/accounts/guest", json={"name": "Ann"})
        assert guest.status_code == 503, guest.text


# ---- logs ------------------------------------------------------------------------------------------------


def test_a_failed_write_does_not_log_the_password_hash(settings: Settings, json_lines: io.StringIO) -> None:
    """A write the database refuses is logged (`store: a write failed: <exception>`) without the statement's
    parameters: a registration while the database is read-only must not put the new account's argon2
    password hash in the log (nor seat token hashes or private tables' invites)."""
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        read_only = {"on": False}

        @event.listens_for(client.app.state.hub.repo.db.engine, "checkout")
        def _query_only(dbapi_conn, _record, _proxy) -> None:
            cur = dbapi_conn.cursor()
            cur.execute(f"PRAGMA query_only={'ON' if read_only['on'] else 'OFF'}")
            cur.close()

        read_only["on"] = True
        client.cookies.clear()
        body = {"username": "alice", "password": "correct horse battery staple"}
        r = client.post("/api/accounts/register", json=body)
        assert r.status_code == 503, r.text
    lines = _records(json_lines)
    assert any("write failed" in line["message"] for line in lines), lines
    leaked = [line["message"] for line in lines if "$argon2" in line["message"]]
    assert not leaked, leaked


def test_store_process_lines_do_not_carry_the_game_that_restarted_it(
    tmp_path: Path, json_lines: io.StringIO
) -> None:
    """A store process that stopped is started again by the next call, whoever makes it. When a game's socket
    made that call, the lines of the new process's answer-reading task (the process stopping, an unreadable
    answer) still concern the whole process: they carry no game id."""
    settings = Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=3600.0)
    settings.store_process = True
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        game_id, _tokens = two_player_leaders(client)
        reader = client.app.state.hub.store.reader

        def kill_reader() -> None:
            process = reader.process
            assert process is not None
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)
            deadline = time.monotonic() + 10
            while reader._out is not None:  # the hub saw it stop
                assert time.monotonic() < deadline
                time.sleep(0.02)

        kill_reader()
        time.sleep(reader.restart_after + 0.2)
        first = reader.process
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:  # the hello's read starts another
            ws.send_json({"type": "hello", "spectate": True})
            read_until(ws, "state")
        assert reader.process is not first
        json_lines.truncate(0)
        json_lines.seek(0)
        kill_reader()
    stopped = [line for line in _records(json_lines) if "read process stopped" in line["message"]]
    assert stopped, _records(json_lines)
    assert [line.get("game_id") for line in stopped] == [None]


def test_a_connection_closed_for_not_reading_is_logged_with_its_game_id(
    client: TestClient, json_lines: io.StringIO
) -> None:
    """`closing a connection to game N that does not read its messages` carries game N's id whoever sent the
    message that overflowed the outbox: here an HTTP join (it broadcasts the table), which runs with no
    game id of its own."""
    hub = client.app.state.hub
    as_guest(client, "Ann")
    game_id = client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]

    class _NotReading:  # a client that stopped reading: a send never completes
        async def send_text(self, _text: str) -> None:
            await asyncio.Event().wait()

        async def close(self, _code: int = 1000) -> None:
            return None

    holder: dict[str, Conn] = {}

    async def spectator_that_stops_reading() -> None:
        logs.GAME_ID.set(game_id)  # as the game's socket runs (ws._serve)
        conn = holder["conn"] = Conn(_NotReading(), game_id)  # type: ignore[arg-type]
        hub.add_conn(conn)
        for _ in range(OUTBOX):  # its outbox is full: the next message closes it
            conn.send({"type": "pong"})

    client.portal.call(spectator_that_stops_reading)
    conn = holder["conn"]
    try:
        client.cookies.clear()
        as_guest(client, "Bob")
        assert client.post(f"/api/games/{game_id}/join", json={}).status_code == 200
        assert conn.closed
    finally:

        async def gone() -> None:
            hub.remove_conn(conn)

        client.portal.call(gone)
    closing = [line for line in _records(json_lines) if "does not read" in line["message"]]
    assert closing, _records(json_lines)
    assert all(line.get("game_id") == game_id for line in closing), closing


def test_the_accepted_line_of_a_game_socket_carries_its_game_id(settings: Settings) -> None:
    """uvicorn logs `"WebSocket /ws/games/N" [accepted]` from the socket's own task when the app accepts it:
    that line carries game N's id like every other line of the socket."""
    import uvicorn
    from websockets.sync.client import connect

    from tests.processes import free_port

    app = create_app(settings)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, ws="websockets-sansio", log_config=None)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    with json_log_lines("uvicorn.error", logging.INFO) as stream:
        thread.start()
        try:
            deadline = time.monotonic() + 15
            while not server.started:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.02)
            with connect(f"ws://127.0.0.1:{port}/ws/games/7") as ws:
                ws.send(json.dumps({"type": "ping"}))
                assert json.loads(ws.recv())["type"] == "pong"
        finally:
            server.should_exit = True
            thread.join(15)
    accepted = [line for line in _records(stream) if "/ws/games/7" in line["message"]]
    assert accepted, _records(stream)
    assert [line.get("game_id") for line in accepted] == [7] * len(accepted), accepted


# ---- a store that fails one request ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [{"type": "rematch"}, {"type": "move", "move": "x", "ply": 1}],
    ids=["rematch", "move"],
)
def test_a_socket_request_the_store_fails_is_refused_and_the_socket_lives_on(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, message: dict[str, Any]
) -> None:
    """A request on a finished game's socket reads the game from the store; a store that fails then answers
    `store_unavailable` (the request may be sent again) and the socket goes on answering."""
    with TestClient(create_app(settings)) as client:
        game_id, tokens = table(client, None)
        with two_seats(client, game_id, tokens) as (ws0, _ws1):
            read_until(ws0, "state")
            ws0.send_json({"type": "resign"})
            while read_until(ws0, "state")[0]["status"] != "finished":
                pass

            def locked(*_args: Any, **_kwargs: Any) -> None:
                raise OperationalError("SELECT games", {}, Exception("database is locked"))

            monkeypatch.setattr(Repo, "get_game", locked)
            ws0.send_json(message)
            assert read_until(ws0, "error")[0]["code"] == "store_unavailable"
            monkeypatch.undo()
            ws0.send_json({"type": "ping"})
            assert read_until(ws0, "pong")
