"""Real-browser fixtures: a real Throne server (uvicorn in a thread, temp data dir, free port) and Debian's
Chromium driven by Playwright. Screenshots go to docs/screenshots/."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from throne.server.app import create_app
from throne.server.config import Settings

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("throne-data")
    app = create_app(Settings(data_dir=data, abandon_timeout=3600, bot_timeout=5.0))
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
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=15)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


class Contexts:
    """Opens browser contexts (separate cookie jars = separate players) and closes them afterwards."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.browser = browser
        self.base = base
        self.opened: list[BrowserContext] = []
        self.errors: list[str] = []

    def page(self, *, lang: str = "en", viewport: dict | None = None) -> Page:
        locale = {"en": "en-US", "fa": "fa-IR", "ja": "ja-JP"}[lang]
        context = self.browser.new_context(base_url=self.base, viewport=viewport or DESKTOP, locale=locale)
        context.set_default_timeout(20_000)
        self.opened.append(context)
        page = context.new_page()
        page.on("pageerror", lambda err: self.errors.append(str(err)))
        return page

    def close(self) -> None:
        for context in self.opened:
            context.close()


@pytest.fixture
def contexts(browser: Browser, server: str) -> Iterator[Contexts]:
    c = Contexts(browser, server)
    yield c
    c.close()
    assert c.errors == [], f"script errors in the page: {c.errors}"


def screenshot(page: Page, name: str) -> None:
    """Save a PNG of the viewport, reduced to a 256-colour palette when Pillow is there (smaller files)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    png = page.screenshot(full_page=False)
    try:
        from PIL import Image
    except ImportError:
        path.write_bytes(png)
        return
    with Image.open(io.BytesIO(png)) as image:
        image.convert("RGB").quantize(colors=256).save(path, optimize=True)
