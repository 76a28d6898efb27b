"""Real-browser fixtures: a real Throne server (uvicorn in a thread, temp data dir, free port) and Debian's
Chromium driven by Playwright."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn
from playwright.sync_api import Browser, sync_playwright

from tests.e2e.helpers import Contexts
from throne.server.app import create_app
from throne.server.config import Settings

CHROMIUM = "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(settings: Settings) -> Iterator[str]:
    """A Throne server on a free port in a thread of this process (games registered here are served)."""
    app = create_app(settings)
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws_ping_interval=None)
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the Throne server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=15)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("throne-data")
    # One address plays every browser test against this one server: rate limits and caps are tested elsewhere.
    many = 10_000
    settings = Settings(
        data_dir=data,
        abandon_timeout=3600,
        bot_timeout=5.0,
        rate_limits={},
        max_open_tables_per_user=many,
        max_open_tables_per_ip=many,
        max_bot_games_per_user=many,
        max_bot_games_per_ip=many,
        max_sockets_per_ip=many,
    )
    with serve(settings) as base:
        yield base


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def contexts(browser: Browser, server: str) -> Iterator[Contexts]:
    c = Contexts(browser, server)
    yield c
    c.close()
    assert c.errors == [], f"script errors in the page: {c.errors}"
