"""A whole Leaders game against the weakest bot, played by clicks only; language switching (Persian right to
left) and screenshots of the table in English, Persian and Japanese."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER, LeadersClicker, data, is_over
from tests.e2e.helpers import PHONE, Contexts, screenshot

pytestmark = pytest.mark.e2e
MAX_TURNS = 150


def start_leaders_vs_bot(page: Page) -> None:
    page.goto("/")
    page.click("#quick-advanced > summary")
    page.select_option("#quick-level", "random")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")


def switch_language(page: Page, lang: str) -> None:
    page.click(f'.lang-switch a[data-lang="{lang}"]')
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")


def shoot_in_every_language(page: Page) -> None:
    """Screenshots of the table in English (a piece selected in our action phase), Persian and Japanese."""
    if data(page, "myTurn") == "true" and data(page, "phase") == "action":
        page.click("#board .cell.clickable")
        expect(page.locator("#board .cell.dest, #board .cell.target").first).to_be_visible()
    screenshot(page, "leaders-en")
    page.keyboard.press("Escape")
    for lang in ("fa", "ja"):
        switch_language(page, lang)
        expect(page.locator("#board .cell")).to_have_count(37)
        expect(page.locator("#moves .mv").first).to_be_visible()
        screenshot(page, f"leaders-{lang}")
    switch_language(page, "en")


def test_whole_leaders_game_against_a_bot_by_clicking(contexts: Contexts) -> None:
    page = contexts.page()
    start_leaders_vs_bot(page)
    player = LeadersClicker(page)
    turns, shot = 0, False
    while player.take_turn():
        turns += 1
        assert turns < MAX_TURNS, "the game did not end"
        page.wait_for_function(MY_TURN_OR_OVER)
        if not shot and not is_over(page):
            shoot_in_every_language(page)
            shot = True
    if not shot:
        shoot_in_every_language(page)
    result = page.locator("#result")
    expect(result).to_be_visible()
    expect(result).to_have_text(re.compile(r"You won!|You lost\.|Draw"))
    assert page.locator("#moves .mv").count() > 2 * turns
    if "Draw" not in result.inner_text():
        expect(page.locator("#board .lost-mark")).to_have_count(1)
    page.set_viewport_size(PHONE)
    screenshot(page, "leaders-en-phone-end")
    page.click("#replay-link")
    expect(page.locator("#replay-step")).to_contain_text("of")
    page.click("#replay-first")
    expect(page.locator("#replay-step")).to_have_text("Start position")
    expect(page.locator("#board .piece")).to_have_count(2)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-step")).to_have_text(re.compile(r"Move 1 of \d+"))
    page.locator("#replay-moves button").nth(2).click()
    expect(page.locator("#replay-step")).to_have_text(re.compile(r"Move 3 of \d+"))
    expect(page.locator('#replay-moves button[aria-current="true"]')).to_have_count(1)
    # in the replay nothing is a move: a click on a piece opens its help
    page.click('#board .cell:has(.piece[data-piece="L"][data-side="0"])')
    expect(page.locator("#help-dialog h2")).to_have_text(re.compile("South"))


def test_persian_is_right_to_left_and_remembered(contexts: Contexts) -> None:
    page = contexts.page(lang="en")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    page.click('.lang-switch a[data-lang="fa"]')
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("html")).to_have_attribute("lang", "fa")
    expect(page.locator("#play-bot-leaders")).to_have_text("رهبران در برابر ربات")
    page.goto("/leaderboard")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("h1")).to_have_text("جدول رده‌بندی")


def test_browser_language_is_used_without_a_cookie(contexts: Contexts) -> None:
    page = contexts.page(lang="ja")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("#play-bot-leaders")).to_have_text("リーダーズ vs ボット")
