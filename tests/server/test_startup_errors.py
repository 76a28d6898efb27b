"""What `throne serve`, `throne db upgrade` and `throne cluster` say and do when they are misconfigured.

The promise: a misconfiguration (a bad data directory, a malformed or unreachable database or Redis URL, a bad
THRONE_* value, conflicting options, a newer schema) is one clear line on stderr and a non-zero exit status,
never a Python traceback, and never a server that starts and misbehaves later.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from alembic import command

from tests.processes import free_port, terminate
from tests.store.conftest import pg_cluster  # noqa: F401  (the throwaway PostgreSQL fixture)
from tests.store.pg import PgCluster
from throne.store.db import alembic_config

ROOT = Path(__file__).resolve().parents[2]
THRONE = [sys.executable, "-m", "throne.cli"]
TRACEBACK_MARKS = ("Traceback (most recent call last)", "Exception Group Traceback")


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("THRONE_")}
    env.update({"THRONE_AI_WORKERS": "1", "PYTHONPATH": str(ROOT / "src")})
    env.update(extra or {})
    return env


def _run(args: list[str], extra: dict[str, str] | None = None, timeout: float = 20) -> tuple[int, str]:
    done = subprocess.run(
        [*THRONE, *args], capture_output=True, text=True, timeout=timeout, env=_env(extra), cwd=ROOT
    )
    return done.returncode, done.stdout + done.stderr


def _assert_clear_failure(rc: int, out: str, *needles: str) -> None:
    """A non-zero exit status, no traceback, and a line naming what is wrong (each needle, ignoring case)."""
    tail = out[-1500:]
    assert rc != 0, f"exit status 0 for a misconfiguration:\n{tail}"
    marks = [m for m in TRACEBACK_MARKS if m in out]
    assert not marks, f"a Python traceback ({marks}) instead of one clear line (exit {rc}):\n{tail}"
    for needle in needles:
        assert needle.lower() in out.lower(), f"the error does not name {needle!r}:\n{tail}"


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def _serve_should_refuse(args: list[str], port: int, extra: dict[str, str] | None = None) -> str:
    """Starts `throne serve`; returns its output if it exits by itself within 15 s; fails the test if it
    answers /api/health on `port` instead (it accepted a configuration it should have refused)."""
    proc = subprocess.Popen(
        [*THRONE, "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=_env(extra),
        cwd=ROOT,
    )
    try:
        end = time.monotonic() + 15
        while time.monotonic() < end and proc.poll() is None:
            if _healthy(port):
                pytest.fail(
                    f"`throne serve {' '.join(args)}` {extra or ''} started and serves on port {port}"
                )
            time.sleep(0.2)
        assert proc.poll() is not None, "neither refused nor serving after 15 s"
        out = proc.stdout.read() if proc.stdout else ""
        _assert_clear_failure(proc.returncode, out)
        return out
    finally:
        terminate(proc, grace=10)
        if proc.stdout:
            proc.stdout.close()


# --- THRONE_* environment variables ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("THRONE_BUSY_TIMEOUT", "abc"),
        ("THRONE_MAX_SOCKETS_PER_IP", "many"),
        ("THRONE_SECURE_COOKIES", "maybe"),  # server-api.md: "refused at start"
        ("THRONE_STORE_DEADLINE", "1"),  # not longer than THRONE_BUSY_TIMEOUT (2)
        ("THRONE_SWITCH_INTERVAL", "0"),
    ],
)
def test_a_bad_throne_env_value_is_one_clear_line(tmp_path: Path, name: str, value: str) -> None:
    """A bad value in a THRONE_* variable stops `throne serve` with one line naming the variable (exit
    status non-zero)."""
    rc, out = _run(["serve", "--port", str(free_port()), "--data-dir", str(tmp_path / "data")], {name: value})
    _assert_clear_failure(rc, out, name)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("THRONE_AI_WORKERS", "abc"),  # read when the first bot moves
        ("THRONE_TAKEOVER_BOT", "nosuchbot"),  # read at the first take-over
    ],
)
def test_a_bad_bot_setting_is_refused_at_start_not_at_the_first_bot_move(
    tmp_path: Path, name: str, value: str
) -> None:
    """THRONE_AI_WORKERS=abc and THRONE_TAKEOVER_BOT=nosuchbot is refused when `throne serve` starts."""
    port = free_port()
    _serve_should_refuse(["--port", str(port), "--data-dir", str(tmp_path / "data")], port, {name: value})


# --- options ----------------------------------------------------------------------------------------------


def test_a_port_beyond_65535_is_refused_not_wrapped(tmp_path: Path) -> None:
    """`throne serve --port 70000` is a usage error (exit 2)."""
    port = free_port()
    _serve_should_refuse(["--port", str(65536 + port), "--data-dir", str(tmp_path / "data")], port)


@pytest.mark.parametrize(
    ("option", "value"),
    [("--log-level", "loud"), ("--log-format", "xml")],
)
def test_a_bad_log_option_is_a_usage_error(tmp_path: Path, option: str, value: str) -> None:
    """`--log-level loud` / `--log-format xml` is a usage error naming the choices."""
    rc, out = _run(["serve", "--port", str(free_port()), "--data-dir", str(tmp_path / "d"), option, value])
    _assert_clear_failure(rc, out, value)


def test_redis_without_postgresql_is_refused(tmp_path: Path) -> None:
    """`throne serve --redis URL` without a PostgreSQL --database is refused: the option's own help
    ("needs a shared PostgreSQL --database") and docs/deploy.md ("nodes ... that share one
    PostgreSQL database") say so, and nodes with a private SQLite each would each own games the others cannot
    see."""
    from tests.cluster.redisd import RedisServer

    redis_server = RedisServer()
    redis_server.start()
    try:
        port = free_port()
        args = ["--port", str(port), "--data-dir", str(tmp_path / "d"), "--redis", redis_server.url]
        assert "PostgreSQL" in _serve_should_refuse(args, port)
    finally:
        redis_server.stop()


# --- data directory ---------------------------------------------------------------------------------------


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "not-a-dir"
    path.write_text("x")
    return path


@pytest.mark.parametrize("command", ["serve", "db upgrade"])
@pytest.mark.parametrize("where", ["a file", "under a file", "in /proc"])
def test_an_unusable_data_dir_is_one_clear_line(a_file: Path, command: str, where: str) -> None:
    """A data directory that is a file or cannot be created is one line naming it."""
    data = {"a file": a_file, "under a file": a_file / "sub", "in /proc": Path("/proc/throne-data")}[where]
    args = [*command.split(), "--data-dir", str(data)]
    if command == "serve":
        args += ["--port", str(free_port())]
    rc, out = _run(args)
    _assert_clear_failure(rc, out, str(data))


# --- database URL -----------------------------------------------------------------------------------------


def _db_urls() -> dict[str, str]:
    return {
        "malformed": "not a url",
        "wrong scheme": "mysql://user@127.0.0.1/throne",
        "unreachable": f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/throne",
    }


@pytest.mark.parametrize("command", ["serve", "db upgrade"])
@pytest.mark.parametrize("kind", ["malformed", "wrong scheme", "unreachable"])
def test_a_bad_database_url_is_one_clear_line(tmp_path: Path, command: str, kind: str) -> None:
    """A malformed URL, an unsupported scheme (mysql://: "ModuleNotFoundError: No module named 'MySQLdb'")
    or an unreachable PostgreSQL is one line (exit non-zero), the URL shown without credentials."""
    url = _db_urls()[kind]
    args = [*command.split(), "--database", url, "--data-dir", str(tmp_path / "d")]
    if command == "serve":
        args += ["--port", str(free_port())]
    rc, out = _run(args)
    _assert_clear_failure(rc, out)


def _newer_sqlite(data: Path) -> None:
    rc, out = _run(["db", "upgrade", "--data-dir", str(data)])
    assert rc == 0, out
    with sqlite3.connect(data / "throne.sqlite3") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")


def test_a_migration_blocked_by_the_data_is_one_clear_line(tmp_path: Path) -> None:
    """A database at 0011 holding two usernames that differ only in case: the upgrade (migration 0012) is
    refused with one line naming the twins and what to do, and the database is left at 0011."""
    data = tmp_path / "d"
    data.mkdir()
    url = f"sqlite:///{data / 'throne.sqlite3'}"
    command.upgrade(alembic_config(url), "0011")
    with sqlite3.connect(data / "throne.sqlite3") as conn:
        row = "INSERT INTO users (name, username, session_epoch, created_at) VALUES (?, ?, 0, '2026-01-01')"
        conn.executemany(row, [("Bo", "Bo"), ("bo", "bo")])
    rc, out = _run(["db", "upgrade", "--data-dir", str(data)])
    _assert_clear_failure(rc, out, "bo", "rename")
    with sqlite3.connect(data / "throne.sqlite3") as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0011",)


@pytest.mark.parametrize("command", ["serve", "db upgrade"])
def test_a_database_of_a_newer_schema_is_one_clear_line(tmp_path: Path, command: str) -> None:
    """A database migrated by a newer Throne (its alembic revision unknown here) is refused with one line
    saying so ("the database's schema 9999 is newer than this Throne's ...")."""
    data = tmp_path / "d"
    _newer_sqlite(data)
    args = [*command.split(), "--data-dir", str(data)]
    if command == "serve":
        args += ["--port", str(free_port())]
    rc, out = _run(args)
    _assert_clear_failure(rc, out, "9999")


def test_a_postgresql_database_of_a_newer_schema_is_one_clear_line(pg_cluster: PgCluster) -> None:  # noqa: F811
    """The same on PostgreSQL, as a node would meet it during a rolling upgrade: `throne serve --database
    postgresql+psycopg://...` on a database a newer Throne migrated exits non-zero with one line."""
    import psycopg

    url = pg_cluster.new_database()
    rc, out = _run(["db", "upgrade", "--database", url])
    assert rc == 0, out
    from sqlalchemy import make_url

    parts = make_url(url)
    host, name = parts.query["host"], parts.database
    with psycopg.connect(
        host=host, port=pg_cluster.port, user="postgres", dbname=name, autocommit=True
    ) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    rc, out = _run(["serve", "--database", url, "--port", str(free_port()), "--data-dir", "/tmp"])
    _assert_clear_failure(rc, out, "9999")


# --- Redis URL --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["malformed", "unreachable"])
def test_a_bad_redis_url_is_one_clear_line(
    pg_cluster: PgCluster,  # noqa: F811
    tmp_path: Path,
    kind: str,
) -> None:
    """`--redis notaurl` or a Redis nobody listens on is one line and a non-zero exit."""
    url = {"malformed": "notaurl", "unreachable": f"redis://127.0.0.1:{free_port()}/0"}[kind]
    args = ["serve", "--port", str(free_port()), "--data-dir", str(tmp_path / "d"), "--redis", url]
    rc, out = _run([*args, "--database", pg_cluster.new_database()])
    _assert_clear_failure(rc, out, "redis")


# --- throne cluster ---------------------------------------------------------------------------------------


def test_cluster_with_an_unusable_data_dir_is_one_clear_line(a_file: Path) -> None:
    """`throne cluster --data-dir FILE` is one line "throne cluster: ..." (exit 1) like every other
    ClusterError."""
    rc, out = _run(["cluster", "--data-dir", str(a_file), "--nodes", "1", "--port", str(free_port())])
    _assert_clear_failure(rc, out, str(a_file))


# --- signals ----------------------------------------------------------------------------------------------


def test_ctrl_c_stops_serve_without_a_traceback(tmp_path: Path) -> None:
    """Ctrl-C in the terminal (SIGINT to the whole foreground process group) stops `throne serve`
    cleanly, as SIGTERM does: the bot workers ignore it and leave the shutdown to the server."""
    import signal

    port = free_port()
    proc = subprocess.Popen(
        [*THRONE, "serve", "--port", str(port), "--data-dir", str(tmp_path / "d")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=_env(),
        cwd=ROOT,
        start_new_session=True,  # its own process group, as a shell's foreground job
    )
    try:
        end = time.monotonic() + 15
        while not _healthy(port):
            assert proc.poll() is None and time.monotonic() < end, "throne serve did not start"
            time.sleep(0.2)
        body = b'{"game": "leaders", "bot": "easy", "side": 1}'  # the bot moves first: the workers start
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/play-bot",
            data=body,
            headers={"content-type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 201
        time.sleep(2)
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    finally:
        terminate(proc, grace=10)
    marks = [m for m in TRACEBACK_MARKS if m in out]
    assert not marks, f"Ctrl-C printed a traceback:\n{out[-2500:]}"
