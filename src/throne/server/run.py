"""`throne serve`: the app on uvicorn, migrations first; `throne db upgrade`."""

from __future__ import annotations

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

    logs.configure(log_level, log_format)
    app = create_app(settings)
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
    )


def db_upgrade(settings: Settings) -> str:
    from throne.store.db import upgrade

    upgrade(settings.url)
    return settings.url
