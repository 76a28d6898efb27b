"""Rules pages and help in a real browser: they render in every language (Persian right to left), under
the site's Content-Security-Policy (the fixture fails on any blocked script or style), and are linked."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import DESKTOP, PHONE, Contexts, screenshot

CASES = [
    ("en", "/rules/leaders", "Leaders — rules", "ltr"),
    ("fa", "/rules/leaders", "رهبران — قوانین", "rtl"),
    ("ja", "/rules/leaders", "リーダーズ — ルール", "ltr"),
    ("en", "/rules/hidden-leaders", "Hidden Leaders — rules", "ltr"),
    ("fa", "/rules/hidden-leaders", "رهبران مخفی — قوانین", "rtl"),
    ("ja", "/rules/hidden-leaders", "ヒドゥンリーダーズ — ルール", "ltr"),
]


@pytest.mark.parametrize(("lang", "path", "title", "direction"), CASES)
def test_rules_pages_render_in_each_language(contexts: Contexts, lang: str, path: str, title: str,
                                             direction: str) -> None:
    page = contexts.page(lang=lang, viewport=PHONE)
    page.goto(path)
    expect(page.locator("h1")).to_have_text(title)
    assert page.evaluate("document.documentElement.dir") == direction
    # the diagrams and card lists are drawn (SVG boards with marked cells, every faction's heroes)
    if path == "/rules/leaders":
        expect(page.locator("section.champion")).to_have_count(17)
        assert page.locator("svg.rules-board .rhex.dest").count() > 20
        assert page.locator("[data-diagram='capture-two'] .rhex.zone").count() == 6
    else:
        assert page.locator(".rules-card").count() > 100
        expect(page.locator("#win-examples li")).to_have_count(7)
    # nothing is wider than the phone screen
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    name = "leaders" if path == "/rules/leaders" else "hidden-leaders"
    screenshot(page, f"rules-{name}-{lang}-phone")
    page.set_viewport_size(DESKTOP)
    page.locator("#champions, #cards").first.scroll_into_view_if_needed()
    screenshot(page, f"rules-{name}-{lang}-desktop")


def test_rules_and_help_are_linked_from_the_lobby(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/")
    page.locator("#nav-rules").click()
    page.locator("#rules-hl-link").click()
    expect(page.locator("#faction-undead")).to_be_visible()
    page.locator("#nav-help").click()
    expect(page.locator("#help-notation")).to_contain_text("c3-c4")
