"""The lobby and both tables as a player sees them, light and dark, at 1366×800 and 390×844, in English,
Persian and Japanese (``THRONE_SCREENSHOTS=docs/screenshots`` keeps them: ``overview-<page>-<lang>-<size>``
and ``…-dark``); nothing on these pages is wider than the screen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER, LeadersClicker, data, is_over, ply
from tests.e2e.helpers import LAPTOP, PHONE, Contexts, screenshot

pytestmark = pytest.mark.e2e

WIDER_THAN_SCREEN = "document.scrollingElement.scrollWidth - window.innerWidth"


def shoot(page: Page, name: str) -> None:
    assert page.evaluate(WIDER_THAN_SCREEN) <= 1, f"{name}: wider than the screen"
    screenshot(page, name, dark=True)


def play_bot(page: Page, button: str) -> None:
    page.goto("/", wait_until="networkidle")  # the lobby script has its handlers
    page.click(button)
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")
    page.wait_for_function(MY_TURN_OR_OVER)


def play_turns(page: Page, turns: int) -> None:
    """Our side plays `turns` whole turns by clicking, then stops at the start of the next one."""
    player = LeadersClicker(page)
    tried: set[str] = set()
    while turns and not is_over(page):
        page.wait_for_function(MY_TURN_OR_OVER)
        before, phase = ply(page), data(page, "phase")
        if phase == "recruit":
            page.click("#market .market-card.clickable")
            player.finish(before)
        elif phase == "reaction":
            player.click_cell(player.cells("#board .cell.clickable")[0])
            player.finish(before)
        elif not player.act_once(tried, before):
            player.end_actions(before)
            tried, turns = set(), turns - 1
    page.wait_for_function(MY_TURN_OR_OVER)


@pytest.mark.parametrize(("size", "viewport"), [("desktop", LAPTOP), ("phone", PHONE)])
@pytest.mark.parametrize("lang", ["en", "fa", "ja"])
def test_lobby_and_tables_light_and_dark(contexts: Contexts, lang: str, size: str, viewport: dict) -> None:
    page = contexts.page(lang=lang, viewport=viewport, has_touch=size == "phone")
    page.goto(f"/lang/{lang}?next=/", wait_until="networkidle")
    expect(page.locator("#quick-levels input")).to_have_count(3)
    shoot(page, f"overview-lobby-{lang}-{size}")

    play_bot(page, "#play-bot-leaders")
    play_turns(page, 2)  # the log, the move list, the opponent's marks
    if not is_over(page) and data(page, "phase") == "action":  # a piece selected: where it may go
        page.locator("#board .cell.clickable").first.click()
        expect(page.locator("#board .cell.dest, #board .cell.target").first).to_be_visible()
    elif not is_over(page) and data(page, "phase") == "recruit":  # a card picked: where it may come in
        page.locator("#market .market-card.clickable").first.click()
        expect(page.locator("#board .cell.clickable").first).to_be_visible()
    shoot(page, f"overview-leaders-{lang}-{size}")

    play_bot(page, "#play-bot-hidden-leaders")
    expect(page.locator("#power-track .space")).to_have_count(12)
    expect(page.locator("#decision")).to_be_visible()
    page.locator("#decision").scroll_into_view_if_needed()
    shoot(page, f"overview-hidden-leaders-{lang}-{size}")
