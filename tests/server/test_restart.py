"""A server stopped and started again on the same data directory (in-process restarts: the lifespan's
shutdown, then a new app over the same SQLite file): what a finished game shows, a full table whose start
failed, a rematch whose making failed, and the last move's events all come back as they were; no clock runs
while the games are rebuilt."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from tests.server.helpers import (
    as_guest,
    hello,
    locked_write,
    next_of_kinds,
    read_until,
    server_settings,
    two_player_leaders,
    two_seats,
    until_finished,
)
from tests.server.test_controls import FISCHER, FakeTime, table
from throne.server import lobby
from throne.server.app import create_app
from throne.server.config import Settings
from throne.store.repo import Repo


def _first_state(client: TestClient, game_id: int, token: str) -> dict[str, Any]:
    """The first `state` a fresh socket greeted with `token` gets."""
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        return read_until(ws, "state")[0]


def _forget_start_retries(client: TestClient) -> None:
    """Cancels the background retries of failed starts, as a node that died takes them with it."""

    async def forget() -> None:
        for task in list(client.app.state.hub._background):
            task.cancel()

    client.portal.call(forget)


def _sweep(client: TestClient) -> int:
    """One sweep of the open tables (`Caps.sweep`); the tables it aborted."""

    async def sweep() -> int:
        return await client.app.state.caps.sweep(client.app.state.hub)

    return client.portal.call(sweep)


def test_a_finished_timed_game_shows_the_same_clocks_before_and_after_a_restart(settings: Settings) -> None:
    """A timed game ends (the seat to move resigns after 5 s). The final broadcast shows its clock at 55 s,
    and so does a hello afterwards, before a restart (the finished game kept in memory) and after it (read
    from the store)."""
    now = FakeTime()
    settings.time_source = now
    with TestClient(create_app(settings)) as client:
        game_id, tokens = table(client, FISCHER)
        mover = client.get(f"/api/games/{game_id}/view").json()["to_play"]
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, tokens[mover])
            read_until(ws, "state", 0)
            now.ms += 5_000
            ws.send_json({"type": "resign"})
            final = until_finished(ws)
        assert final["clocks"]["remaining_ms"][mover] == 55_000  # the broadcast of the end is right
        before = _first_state(client, game_id, tokens[0])
    with TestClient(create_app(settings)) as client:
        after = _first_state(client, game_id, tokens[0])
    assert after["clocks"]["remaining_ms"] == final["clocks"]["remaining_ms"]  # the store is right too
    assert before["clocks"]["remaining_ms"] == after["clocks"]["remaining_ms"], (
        f"before the restart a finished game shows {before['clocks']['remaining_ms']}, "
        f"after it {after['clocks']['remaining_ms']}"
    )


def test_a_full_table_whose_start_failed_starts_after_a_restart(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob takes the last seat (committed: he gets his token) but the start fails while the database is
    locked; the server retries in the background, and is restarted before a retry succeeds (a `kill -9`
    between the join's and the start's transactions leaves the same rows). The restarted server starts the
    full table."""
    with TestClient(create_app(settings)) as client:
        as_guest(client, "Ann")
        r = client.post("/api/games", json={"game": "leaders", "players": 2})
        assert r.status_code == 201, r.text
        game_id = r.json()["game"]["id"]
        monkeypatch.setattr(Repo, "start_game", locked_write)
        as_guest(client, "Bob")
        r = client.post(f"/api/games/{game_id}/join", json={})
        assert r.status_code == 200, r.text  # the seat is Bob's, the start is retried later
        bob = r.json()["token"]
    monkeypatch.undo()  # the database works again
    with TestClient(create_app(settings)) as client:
        deadline = time.monotonic() + 5
        game = client.get(f"/api/games/{game_id}").json()["game"]
        while game["status"] == "open" and time.monotonic() < deadline:
            time.sleep(0.1)
            game = client.get(f"/api/games/{game_id}").json()["game"]
        assert [s["kind"] for s in game["seats"]] == ["human", "human"]
        r = client.post(
            f"/api/games/{game_id}/move", json={"move": "x", "ply": 0}, headers={"X-Seat-Token": bob}
        )
        assert game["status"] == "live", (
            f"the full table is still {game['status']} after the restart (a move: {r.json()})"
        )


def test_a_rematch_everyone_asked_for_is_made_after_a_restart(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both seats ask for a rematch; the second ask is stored but making the new game fails (the database
    is locked for a moment), and the server is restarted. The asks survive the restart (docs/server-api.md)
    and an ask after it makes the rematch: everyone asked and none was made."""
    settings.time_source = FakeTime()
    with TestClient(create_app(settings)) as client:
        game_id, tokens = table(client, None)
        with two_seats(client, game_id, tokens) as (ws0, ws1):
            ws0.send_json({"type": "resign"})
            until_finished(ws0)
            until_finished(ws1)
            ws0.send_json({"type": "rematch"})
            assert read_until(ws1, "rematch_pending")[0]["seats"] == [0]
            monkeypatch.setattr(Repo, "create_game", locked_write)
            ws1.send_json({"type": "rematch"})
            with contextlib.suppress(Exception):  # (the socket may get an error or be dropped)
                next_of_kinds(ws1, ("error", "rematch"))
    monkeypatch.undo()  # the database works again
    with TestClient(create_app(settings)) as client, two_seats(client, game_id, tokens) as (ws0, ws1):
        shown = read_until(ws1, "state")[0]
        assert shown["offers"]["rematch"] == [0, 1] and shown["offers"]["rematch_game"] is None
        ws1.send_json({"type": "rematch"})
        answer = next_of_kinds(ws1, ("error", "rematch"))
        assert answer["type"] == "rematch", f"asked again after the restart: {answer}"


def test_the_first_state_after_a_restart_carries_the_last_moves_events(settings: Settings) -> None:
    """docs/server-api.md: a connection's first `state` carries the last move's events, after a restart as
    before it."""
    with TestClient(create_app(settings)) as client:
        game_id, tokens = table(client, None)
        mover = client.get(f"/api/games/{game_id}/view").json()["to_play"]
        move = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[mover]}).json()
        r = client.post(
            f"/api/games/{game_id}/move",
            json={"move": move["legal_moves"][0], "ply": 0},
            headers={"X-Seat-Token": tokens[mover]},
        )
        assert r.status_code == 200, r.text
        before = _first_state(client, game_id, tokens[0])
        assert before["ply"] == 1 and before["events"]
    with TestClient(create_app(settings)) as client:
        after = _first_state(client, game_id, tokens[0])
    assert after["ply"] == 1
    assert after["events"] == before["events"], f"after the restart: {after['events']}"


def test_a_table_of_bots_whose_start_failed_is_answered_and_starts_soon(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/api/play-bot` makes the table and then starts it. The table is committed with its seats: when the
    start fails (the database locked for a moment) the request still answers with the person's seat token,
    and the start is retried until it goes through."""
    with TestClient(create_app(settings)) as client:
        as_guest(client, "Ann")
        monkeypatch.setattr(Repo, "start_game", locked_write)
        r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
        assert r.status_code == 201, r.text
        game_id, token = r.json()["game"]["id"], r.json()["token"]
        assert r.json()["game"]["status"] == "open"
        monkeypatch.undo()
        deadline = time.monotonic() + 10
        while client.get(f"/api/games/{game_id}").json()["game"]["status"] != "live":
            assert time.monotonic() < deadline, "the table of bots never started"
            time.sleep(0.05)
        assert _first_state(client, game_id, token)["status"] == "live"


def test_the_sweep_of_open_tables_starts_a_full_one(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full table whose start failed and was not retried (another node's retries, lost with it) is started
    by the next sweep of open tables, on any node."""
    with TestClient(create_app(settings)) as client:
        as_guest(client, "Ann")
        game_id = client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]
        monkeypatch.setattr(Repo, "start_game", locked_write)
        as_guest(client, "Bob")
        assert client.post(f"/api/games/{game_id}/join", json={}).status_code == 200
        _forget_start_retries(client)
        monkeypatch.undo()
        assert client.get(f"/api/games/{game_id}").json()["game"]["status"] == "open"
        assert _sweep(client) == 0  # nothing aborted
        assert client.get(f"/api/games/{game_id}").json()["game"]["status"] == "live"


def test_a_full_table_that_cannot_start_does_not_keep_the_others(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two full tables left open; starting the first fails unexpectedly (a bug, a table the engine cannot
    set up). The sweep still starts the second, and ends normally."""
    with TestClient(create_app(settings)) as client:
        hub = client.app.state.hub
        monkeypatch.setattr(Repo, "start_game", locked_write)
        games = []
        for n in range(2):
            as_guest(client, f"Ann{n}")
            games.append(
                client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]
            )
            as_guest(client, f"Bob{n}")
            assert client.post(f"/api/games/{games[-1]}/join", json={}).status_code == 200
        _forget_start_retries(client)
        monkeypatch.undo()
        start = hub.maybe_start

        async def broken_first(info: Any, order: Any = None) -> Any:
            if info.id == games[0]:
                raise RuntimeError("this table cannot be set up")
            return await start(info, order)

        monkeypatch.setattr(hub, "maybe_start", broken_first)
        assert _sweep(client) == 0  # nothing aborted
        statuses = [client.get(f"/api/games/{g}").json()["game"]["status"] for g in games]
        assert statuses == ["open", "live"]


def test_a_clock_does_not_run_while_the_restarted_server_is_still_resuming_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server stopped with SIGTERM stores each running clock exactly; started again, it resumes every
    game with that time, since nobody can reach a game before the server listens (`Clock.restore`: the time
    the server was down is not charged). The clocks start once every game is rebuilt, so the first games'
    players are not charged the later rebuilds. Here each rebuild takes 3 s (a loaded machine, long logs,
    many games): the player to move in the first game, stopped at 55 s, finds 55 s."""
    now = FakeTime()
    settings = server_settings(tmp_path, time_source=now)
    with TestClient(create_app(settings)) as client:
        first, tokens = table(client, FISCHER)
        for _ in range(2):
            table(client, FISCHER)
        mover = client.get(f"/api/games/{first}/view").json()["to_play"]
        now.ms += 5_000  # the seat to move thinks 5 s; then SIGTERM (the lifespan's shutdown)
    rebuild = lobby.rebuild_with_last

    def slow_rebuild(*args: Any, **kwargs: Any) -> Any:
        now.ms += 3_000
        return rebuild(*args, **kwargs)

    monkeypatch.setattr(lobby, "rebuild_with_last", slow_rebuild)
    # the restart: it listens once every game is resumed
    with TestClient(create_app(settings)) as client, client.websocket_connect(f"/ws/games/{first}") as ws:
        hello(ws, tokens[mover])
        state = read_until(ws, "state")[0]
    assert state["clocks"]["remaining_ms"][mover] == 55_000, (
        f"seat {mover} stopped with 55 s and, before any socket could reach the restarted server, has "
        f"{state['clocks']['remaining_ms'][mover] / 1000:g} s"
    )


def test_a_live_game_whose_record_could_not_be_read_at_start_up_is_read_again_soon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store is busy for a moment while the server starts, and one live game's move log cannot be read
    (`store_unavailable`): the game is read again with backoff and goes on, its moves refused
    `503 store_unavailable` meanwhile (before: left out until the next restart, its moves `409 not_live`)."""
    settings = server_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        game_id, tokens = two_player_leaders(client)
        seat = client.get(f"/api/games/{game_id}/view").json()["to_play"]
        headers = {"X-Seat-Token": tokens[seat]}
        move = client.get(f"/api/games/{game_id}/view", headers=headers).json()["legal_moves"][0]
    moves = Repo.moves
    failed: list[int] = []

    def flaky(self: Repo, gid: int) -> Any:
        if not failed:  # the first read of a move log at start-up: the database is busy for a moment
            failed.append(gid)
            raise OperationalError("SELECT moves", {}, Exception("database is locked"))
        return moves(self, gid)

    flaky.store_reads = True  # type: ignore[attr-defined]
    monkeypatch.setattr(Repo, "moves", flaky)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        assert failed == [game_id]
        deadline = time.monotonic() + 15
        answers = []
        while True:
            r = client.post(f"/api/games/{game_id}/move", json={"move": move, "ply": 0}, headers=headers)
            answers.append((r.status_code, r.json().get("error", {}).get("code")))
            if r.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert r.status_code == 200, answers
        assert set(answers[:-1]) <= {(503, "store_unavailable")}, answers
