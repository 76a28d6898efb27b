"""One node on PostgreSQL under database failures: what players and operators see must match SQLite's."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import make_url

from tests.server.helpers import two_player_leaders
from tests.store.pg import PgCluster
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.lobby import READY_PROBE_INTERVAL

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]


def _admin(cluster: PgCluster) -> psycopg.Connection:
    return psycopg.connect(
        host=str(cluster.root), port=cluster.port, user="postgres", dbname="postgres", autocommit=True
    )


@contextmanager
def _read_only(cluster: PgCluster, url: str) -> Iterator[None]:
    """The database refuses every write (a standby after a failover, `default_transaction_read_only` set by
    an operator, a full-disk guard): new sessions are read-only, and the old ones are ended."""
    name = make_url(url).database
    with _admin(cluster) as admin:
        admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
    try:
        yield
    finally:
        with _admin(cluster) as admin:
            admin.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
            )


def _timed_game_after_one_move(client: TestClient) -> int:
    """A live two-person Leaders game with a 1-minute clock, its first move played (the clock runs)."""
    control = {"kind": "fischer", "minutes": 1, "increment": 2}
    tokens = []
    for name in ("Ann", "Bob"):
        client.cookies.clear()
        client.post("/api/accounts/guest", json={"name": name})
        if name == "Ann":
            r = client.post("/api/games", json={"game": "leaders", "players": 2, "time_control": control})
            game_id = r.json()["game"]["id"]
        else:
            r = client.post(f"/api/games/{game_id}/join", json={})
        tokens.append(r.json()["token"])
    client.cookies.clear()
    for token in tokens:
        view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()
        if view["to_play"] == view["seat"]:
            move = {"move": view["legal_moves"][0], "ply": 0}
            r = client.post(f"/api/games/{game_id}/move", json=move, headers={"X-Seat-Token": token})
            assert r.status_code == 200, r.text
            return game_id
    raise AssertionError("nobody is to play")


def _settings(tmp_path: Path, url: str, **extra) -> Settings:
    return Settings(
        data_dir=tmp_path,
        database_url=url,
        secret_key="k",
        ws_rate_per_s=1000.0,
        breaker_threshold=3,
        breaker_cooldown=0.2,
        **extra,
    )


@pytest.mark.parametrize("store_process", [False, True], ids=["threads", "store-process"])
def test_a_read_only_postgres_is_not_ready_and_refuses_writes_as_unavailable(
    pg_cluster: PgCluster, tmp_path: Path, store_process: bool
) -> None:
    """A PostgreSQL that refuses writes answers SQLSTATE 25006 (read_only_sql_transaction), which the driver
    raises as InternalError, not OperationalError: readiness must still say 503, and a move or a new table
    must be refused as `store_unavailable` (503, retry), as on a read-only SQLite."""
    url = pg_cluster.new_database()
    settings = _settings(tmp_path, url, store_process=store_process)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        game_id, tokens = two_player_leaders(client)
        assert client.get("/api/ready").status_code == 200
        view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[0]}).json()
        mover = tokens[view["to_play"]]
        legal = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": mover}).json()
        move = {"move": legal["legal_moves"][0], "ply": 0}
        with _read_only(pg_cluster, url):
            time.sleep(READY_PROBE_INTERVAL + 0.1)  # a new readiness probe, not the last one's answer
            ready = client.get("/api/ready")
            r = client.post(f"/api/games/{game_id}/move", json=move, headers={"X-Seat-Token": mover})
            client.post("/api/accounts/guest", json={"name": "Cy"})
            table = client.post("/api/games", json={"game": "leaders", "players": 2})
            assert (ready.status_code, r.status_code, table.status_code) == (503, 503, 503), (
                ready.text,
                r.text,
                table.text,
            )
            assert r.json()["error"]["code"] == "store_unavailable"
        # once the database takes writes again, the server is ready and the same move is played
        deadline = time.monotonic() + 10
        while client.get("/api/ready").status_code != 200 and time.monotonic() < deadline:
            time.sleep(READY_PROBE_INTERVAL + 0.1)
        r = client.post(f"/api/games/{game_id}/move", json=move, headers={"X-Seat-Token": mover})
        assert r.status_code == 200, r.text


def test_a_game_id_beyond_32_bits_is_refused_on_postgres_too(pg_cluster: PgCluster, tmp_path: Path) -> None:
    """PostgreSQL's id columns are 32-bit integers: an id beyond them names nothing, and is refused as out of
    range (422) before the database sees it (it failed there with DataError: a 500)."""
    settings = _settings(tmp_path, pg_cluster.new_database())
    big = 2**31
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        answers = {
            path: client.get(path).status_code
            for path in (f"/api/games/{big}", f"/api/games/{big}/record", f"/api/players/{big}")
        }
        assert answers == dict.fromkeys(answers, 422), answers
        with client.websocket_connect(f"/ws/games/{big}") as ws:
            ws.send_json({"type": "hello", "spectate": True})
            assert ws.receive_json()["code"] == "unknown_game"


def test_times_are_utc_whatever_the_postgres_time_zone(pg_cluster: PgCluster, tmp_path: Path) -> None:
    """Every time the API sends is UTC ("2026-11-29T17:10:00Z", docs/server-api.md). PostgreSQL hands back
    a timestamptz in the session's TimeZone (a server configured in local time: Debian's initdb copies the
    system's zone); the API converts it (it sent "+05:30" times)."""
    url = pg_cluster.new_database()
    with _admin(pg_cluster) as admin:
        admin.execute(f"ALTER DATABASE \"{make_url(url).database}\" SET timezone = 'Asia/Kolkata'")
    with TestClient(create_app(_settings(tmp_path, url)), raise_server_exceptions=False) as client:
        client.post("/api/accounts/guest", json={"name": "Ann"})
        game_id = client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]
        created = client.get(f"/api/games/{game_id}").json()["game"]["created_at"]
        assert created.endswith("Z"), created


def test_a_flag_that_falls_while_postgres_is_away_does_not_flood_the_log(
    pg_cluster: PgCluster, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A timed game whose running clock runs out while the database refuses connections: ending the game
    fails, and the owner tries again after a growing delay like every other retry (it re-armed the flag at
    once: "ran out of time" about 100 times a second per game for as long as the outage lasted)."""
    url = pg_cluster.new_database()
    name = make_url(url).database
    with TestClient(create_app(_settings(tmp_path, url)), raise_server_exceptions=False) as client:
        hub = client.app.state.hub
        now = {"ms": 1_000_000}
        hub.now_ms = lambda: now["ms"]
        game_id = _timed_game_after_one_move(client)
        match = hub.matches[game_id]
        with _admin(pg_cluster) as admin:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
            )
        try:
            now["ms"] += 10 * 60_000  # the running clock is long out
            caplog.clear()
            with caplog.at_level(logging.INFO, logger="throne"):
                client.portal.call(match.poke)
                time.sleep(2.0)
                flagged = [r for r in caplog.records if "ran out of time" in r.getMessage()]
                lines = len(caplog.records)
        finally:
            with _admin(pg_cluster) as admin:
                admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        assert len(flagged) <= 10 and lines <= 30, (len(flagged), lines)
