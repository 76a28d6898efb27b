"""A whole Leaders game against the weakest bot, played by clicks only (pieces, cells, market cards, End
actions and its confirmation); language switching (Persian right to left). The screenshots of the table at
1366×800 and 390×844 in English, Persian and Japanese are taken in test_leaders_table_e2e.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER, LeadersClicker, data, is_over
from tests.e2e.helpers import PHONE, Contexts, choose_named_bot, screenshot

pytestmark = pytest.mark.e2e
MAX_TURNS = 150
WIDE = {"width": 1366, "height": 800}


def start_leaders_vs_bot(page: Page) -> None:
    page.goto("/")
    choose_named_bot(page, "random")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")


def switch_language(page: Page, lang: str) -> None:
    page.click(f'.lang-switch a[data-lang="{lang}"]')
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")


def switch_back_and_forth(page: Page) -> None:
    """Persian and back to English in the middle of the game: the table is drawn again, right to left."""
    switch_language(page, "fa")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#board .cell")).to_have_count(37)
    expect(page.locator("#moves .mv").first).to_be_visible()
    switch_language(page, "en")
    expect(page.locator("#board .cell")).to_have_count(37)


OPACITY = """els => els.map(el => {
  let o = 1;
  for (let n = el; n && n.tagName !== 'svg'; n = n.parentElement) o *= Number(getComputedStyle(n).opacity);
  return o;
})"""


def test_whole_leaders_game_against_a_bot_by_clicking(contexts: Contexts) -> None:
    page = contexts.page(viewport=WIDE)
    start_leaders_vs_bot(page)
    player = LeadersClicker(page, bot_reacts=True)  # take_turn returns once the turn truly passed
    page.wait_for_function(MY_TURN_OR_OVER)
    # 'End actions' while the Leader could still move asks first; "Keep playing" changes nothing
    page.click("#end-actions")
    expect(page.locator("#end-confirm-text")).to_have_text("Leader can still act. End your actions anyway?")
    page.click("#end-confirm-no")
    expect(page.locator("#end-confirm")).to_be_hidden()
    turns, switched = 0, False
    while player.take_turn():
        turns += 1
        assert turns < MAX_TURNS, "the game did not end"
        # while the opponent plays, none of its pieces is listed as "already acted"
        assert page.evaluate(
            "() => { const r = document.querySelector('#table-root');"
            " return r.dataset.myTurn === 'true' || r.dataset.over === 'true'"
            " || document.querySelector('#acted').hidden; }"
        )
        page.wait_for_function(MY_TURN_OR_OVER)
        if not switched and not is_over(page) and data(page, "phase") == "action":
            before = page.eval_on_selector("#table-root", "r => Number(r.dataset.ply)")
            if player.act_once(set(), before) and not is_over(page):  # a piece acted: badged, listed as yours
                acted = page.locator("#board .piece.acted")
                expect(acted.first).to_be_visible()
                badged = sorted(acted.evaluate_all("ps => ps.map(p => p.dataset.piece)"))
                assert len(badged) == 1 or badged == ["CU", "HE"], badged  # the Hermit and its Cub act as one
                expect(page.locator("#acted")).to_contain_text("Already acted: ")
            switch_back_and_forth(page)
            switched = True
    result = page.locator("#result")
    expect(result).to_be_visible()
    expect(result).to_have_text(re.compile(r"You won!|You lost\.|Draw"))
    assert page.locator("#moves .mv").count() > 2 * turns
    if "Draw" not in result.inner_text():
        expect(page.locator("#board .lost-mark")).to_have_count(1)
    # at the end no piece looks spent: no badge, nothing faded (once the last turn's animations are over: a
    # recruited piece flies in from the market, fading in)
    expect(page.locator("#board .acted-mark")).to_have_count(0)
    page.wait_for_function("() => !document.querySelector('#board').getAnimations({subtree: true}).length")
    assert set(page.eval_on_selector_all("#board .piece .body, #board .piece use", OPACITY)) == {1.0}
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
