"""`throne serve`: the app on uvicorn, migrations first; `throne db upgrade`. Both check what they need
before they start (`prepare_database`, `check_services`), so that a misconfiguration is one line that says
what to fix, not a traceback from inside the app's start-up."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from throne.server.config import Settings


def make_settings(
    database: str | None, data_dir: Path | None, abandon_timeout: float | None = None
) -> Settings:
    settings = Settings()
    if data_dir is not None:
        settings.data_dir = Path(data_dir)
    if database:
        settings.database_url = database
    if abandon_timeout is not None:
        settings.abandon_timeout = abandon_timeout
    return settings


def serve(
    host: str, port: int, settings: Settings, log_level: str = "info", log_format: str | None = None
) -> None:
    import uvicorn

    from throne import logs
    from throne.server.app import create_app
    from throne.server.slow_headers import header_deadline_protocol
    from throne.server.socket_protocol import GameSocketProtocol

    logs.configure(log_level, log_format)
    # The database threads wait for the interpreter lock after every SQLite call; with the default 5 ms
    # switch interval a busy event loop kept a group commit of ~40 moves waiting ~100 ms, and every owner
    # task waits for its commit. A shorter interval cut that about threefold (docs/BENCHMARKS.md).
    sys.setswitchinterval(settings.switch_interval)
    app = create_app(settings)
    tune_gc(settings.gc_threshold)
    # Game messages are small; compressing each one cost more CPU than the rest of a move (measured).
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=None,  # the levels too are logs.configure's (no frames logged, whatever the level)
        log_config=None,  # our handlers (logs.configure): one format for every line
        ws_max_size=64 * 1024,
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=5,
        http=header_deadline_protocol(settings.header_timeout),
        # uvicorn's sans-I/O binding of the `websockets` library: a frame received is parsed in the socket's
        # callback and queued for the app, a frame sent is written at once; the older binding read every
        # message through stream reads and a task of its own per connection: 5–8% more of the server's CPU
        # per move (docs/BENCHMARKS.md). Ours cuts off a peer that stopped reading (`socket_protocol`).
        ws=GameSocketProtocol,
    )


def tune_gc(threshold: int) -> None:
    """Collects garbage less often, and never walks what the server loaded at start (modules, routes,
    metadata: most of its objects, none of them garbage)."""
    gc.collect()
    gc.freeze()
    _gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(threshold, gen1, gen2)


class StartupError(Exception):
    """A setting or a service that keeps the server from starting; its message is for the operator."""


def prepare_database(settings: Settings) -> str:
    """The database's URL, its schema migrated to head (`throne db upgrade`; `throne serve` before it
    listens)."""
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from throne.store.db import MigrationBlocked, SchemaTooNew, shown_url, upgrade

    try:
        url = settings.url  # SQLite's default: a file in the data directory, made here
    except OSError as exc:
        raise StartupError(f"cannot use the data directory {settings.data_dir}: {exc.strerror}") from None
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError:
        raise StartupError(
            "the database URL cannot be read: sqlite:///PATH or postgresql+psycopg://USER@HOST/NAME"
        ) from None
    if backend not in ("sqlite", "postgresql"):
        raise StartupError(f"Throne runs on SQLite or PostgreSQL, not {backend} ({shown_url(url)})")
    try:
        upgrade(url)
    except (SchemaTooNew, MigrationBlocked) as exc:
        raise StartupError(str(exc)) from None
    except (SQLAlchemyError, ImportError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise StartupError(f"cannot open the database {shown_url(url)}: {reason}") from None
    return url


def check_services(settings: Settings) -> None:
    """What `throne serve` needs besides the database: the data directory (the cookie key), Redis for a
    cluster node, and the bots' settings, which are read only at the first bot move."""
    from sqlalchemy import make_url

    from throne import games
    from throne.ai import registry, worker
    from throne.ai.base import UnknownBotError

    try:
        settings.resolved_secret()
    except OSError as exc:
        raise StartupError(f"cannot use the data directory {settings.data_dir}: {exc.strerror}") from None
    try:
        worker.configured_size()
        for game in games.ids():  # the games this server serves
            registry.bot_entry(game, settings.takeover_bot)
    except UnknownBotError as exc:
        raise StartupError(f"THRONE_TAKEOVER_BOT: {exc}") from None
    except ValueError as exc:
        raise StartupError(str(exc)) from None
    if settings.redis_url is None:
        return
    if make_url(settings.url).get_backend_name() != "postgresql":
        raise StartupError(
            "--redis needs a shared PostgreSQL --database: nodes on SQLite files of their own would not see "
            "each other's games"
        )
    _ping_redis(settings.redis_url, settings.redis_timeout)


def _ping_redis(url: str, timeout: float) -> None:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    except ValueError as exc:
        raise StartupError(f"the --redis URL cannot be read: {exc}") from None
    where = client.connection_pool.connection_kwargs
    shown = where.get("path") or f"{where.get('host')}:{where.get('port')}"
    try:
        client.ping()
    except redis.RedisError as exc:
        raise StartupError(f"cannot reach Redis at {shown}: {exc}") from None
    finally:
        client.close()
