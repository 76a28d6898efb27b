"""Dark mode in the browser: the page follows the system's colour scheme until the player picks a theme in
the header; the choice is kept in localStorage and applied by a blocking script in <head> before the first
paint."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import Contexts

pytestmark = pytest.mark.e2e

LIGHT_BG = "rgb(246, 243, 236)"
DARK_BG = "rgb(23, 21, 15)"
PAGES = ["/", "/rules", "/help", "/leaderboard", "/login", "/tutorial"]


def page_background(page: Page) -> str:
    return page.evaluate("getComputedStyle(document.documentElement).backgroundColor")


def test_system_scheme_then_choice_kept_across_pages(contexts: Contexts) -> None:
    page = contexts.page()
    page.emulate_media(color_scheme="dark")
    page.goto("/")
    expect(page.locator("#theme-select")).to_have_value("system")
    assert page.evaluate("document.documentElement.dataset.theme") is None
    assert page_background(page) == DARK_BG
    page.emulate_media(color_scheme="light")
    assert page_background(page) == LIGHT_BG

    page.select_option("#theme-select", "dark")  # the choice overrides the system's light scheme
    assert page_background(page) == DARK_BG
    assert page.evaluate("localStorage.getItem('throne.theme')") == "dark"
    for path in PAGES:
        page.goto(path)
        assert page.evaluate("document.documentElement.dataset.theme") == "dark", path
        assert page_background(page) == DARK_BG, path
        expect(page.locator("#theme-select")).to_have_value("dark")

    page.select_option("#theme-select", "system")
    assert page.evaluate("localStorage.getItem('throne.theme')") is None
    assert page_background(page) == LIGHT_BG
    page.reload()
    assert page_background(page) == LIGHT_BG


def test_theme_applied_before_first_paint(contexts: Contexts) -> None:
    """The stored theme is on <html> while the parser is still in <head>: a classic blocking script, loaded
    before the stylesheets, sets it (an inline script would be refused by the CSP)."""
    page = contexts.page()
    page.goto("/")
    page.evaluate("localStorage.setItem('throne.theme', 'dark')")
    # Record the theme as the first stylesheet is parsed: nothing has been painted yet.
    page.add_init_script(
        """new MutationObserver((changes, obs) => {
             if (document.querySelector('link[rel=stylesheet]')) {
               window.__themeAtFirstStyle = document.documentElement.dataset.theme || null; obs.disconnect();
             }
           }).observe(document, {childList: true, subtree: true});"""
    )
    page.goto("/rules")
    assert page.evaluate("window.__themeAtFirstStyle") == "dark"
    script = page.locator('head script[src="/static/js/theme-init.js"]')
    expect(script).to_have_count(1)
    assert script.evaluate("s => !s.async && !s.defer && s.type === ''")
