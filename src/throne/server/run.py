"""`throne serve`: the app on uvicorn, migrations first; `throne db upgrade`."""

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

    from throne.server import logs
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
        log_level=log_level,
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


def db_upgrade(settings: Settings) -> str:
    from throne.store.db import upgrade

    upgrade(settings.url)
    return settings.url
