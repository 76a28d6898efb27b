"""Helpers of the browser tests: browser contexts per player, screenshots, viewport sizes."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

#: Where the browser tests put their screenshots: a temporary folder unless THRONE_SCREENSHOTS names one
#: (``THRONE_SCREENSHOTS=docs/screenshots make test`` refreshes the committed pictures on purpose).
SCREENSHOTS = Path(os.environ.get("THRONE_SCREENSHOTS") or Path(tempfile.gettempdir()) / "throne-screenshots")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LAPTOP = {"width": 1366, "height": 800}


class Contexts:
    """Opens browser contexts (separate cookie jars = separate players) and closes them afterwards."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.browser = browser
        self.base = base
        self.opened: list[BrowserContext] = []
        self.errors: list[str] = []

    def page(
        self,
        *,
        lang: str = "en",
        viewport: dict | None = None,
        has_touch: bool = False,
        color_scheme: str = "light",
        bypass_csp: bool = False,
    ) -> Page:
        """A page of a fresh context; `bypass_csp` only for tests that inject their own scripts (axe-core)."""
        locale = {"en": "en-US", "fa": "fa-IR", "ja": "ja-JP"}[lang]
        context = self.browser.new_context(
            base_url=self.base,
            viewport=viewport or DESKTOP,
            locale=locale,
            has_touch=has_touch,
            color_scheme=color_scheme,
            bypass_csp=bypass_csp,
        )
        context.set_default_timeout(20_000)
        self.opened.append(context)
        page = context.new_page()
        page.on("pageerror", lambda err: self.errors.append(str(err)))
        page.on("console", self._csp_violation)
        return page

    def _csp_violation(self, message) -> None:
        """Anything the Content-Security-Policy blocked is a page error too."""
        if message.type == "error" and "Content Security Policy" in message.text:
            self.errors.append(message.text)

    def close(self) -> None:
        for context in self.opened:
            context.close()


#: The dark theme on the page, as the header's switch sets it (restored by passing the previous value).
SET_THEME = """(theme) => {
  const root = document.documentElement, before = root.dataset.theme || null;
  if (theme) root.dataset.theme = theme; else delete root.dataset.theme;
  const select = document.getElementById('theme-select');
  if (select) select.value = theme || 'system';
  return before;
}"""


def choose_named_bot(page: Page, bot: str) -> None:
    """On the lobby, the named bot under "Advanced", once the lobby's script has laid the page out: the level
    radios it adds above "Advanced" would move the summary under a click."""
    expect(page.locator("#play-bot-leaders")).to_be_enabled()  # enabled last, after the radios
    page.click("#quick-advanced > summary")
    page.select_option("#quick-level", bot)


def screenshot(page: Page, name: str, *, dark: bool = False) -> None:
    """Save a PNG of the viewport as NAME.png; with `dark`, also NAME-dark.png in the dark theme."""
    _save(page, name)
    if dark:
        before = page.evaluate(SET_THEME, "dark")
        _save(page, f"{name}-dark")
        page.evaluate(SET_THEME, before)


def _save(page: Page, name: str) -> None:
    """A PNG of the viewport, reduced to a 256-colour palette when Pillow is there (smaller files)."""
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
