"""Table controls in a real browser: a running clock, resigning against a bot, and a draw offered by one
person and accepted by another (two browser contexts); screenshots in en/fa/ja at desktop and phone size."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import DESKTOP, PHONE, Contexts, screenshot
from tests.e2e.test_two_players_e2e import join_from_lobby

pytestmark = pytest.mark.e2e


def play_bot_with_clock(page: Page) -> None:
    page.goto("/")
    page.select_option("#quick-time", "2")  # 5 min + 3 s
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#clocks .clock")).to_have_count(2)


@pytest.mark.parametrize(
    ("lang", "viewport", "size"),
    [("en", DESKTOP, "desktop"), ("fa", PHONE, "phone"), ("ja", DESKTOP, "desktop")],
)
def test_a_running_clock_and_resigning_against_a_bot(
    contexts: Contexts, lang: str, viewport: dict, size: str
) -> None:
    page = contexts.page(lang=lang, viewport=viewport)
    play_bot_with_clock(page)
    running = page.locator("#clocks .clock.running .clock-time")
    expect(running).to_have_count(1)
    first = running.inner_text()
    expect(running).not_to_have_text(first, timeout=5_000)  # it counts down by itself
    assert re.fullmatch(r"\d:\d\d", running.inner_text())
    screenshot(page, f"controls-clock-{lang}-{size}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#ctl-resign")
    banner = page.locator("#result")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("data-termination", "resign")
    expect(page.locator("#ctl-resign")).to_be_hidden()
    expect(page.locator("#ctl-new")).to_be_visible()
    expect(page.locator("#clocks .clock.running")).to_have_count(0)
    screenshot(page, f"controls-resigned-{lang}-{size}")
    if lang == "en":  # the bot accepts a rematch at once: the page moves to the new game
        old = page.url
        page.click("#ctl-rematch")
        page.wait_for_url(lambda url: url != old and re.search(r"/games/\d+$", url) is not None)
        expect(page.locator("#clocks .clock")).to_have_count(2)


def test_a_draw_offer_accepted_by_the_other_player(contexts: Contexts) -> None:
    ann, bob = contexts.page(), contexts.page(viewport=PHONE)
    ann.goto("/")
    ann.select_option("#create-game", "leaders")
    ann.select_option('#seat-setup select[data-seat="1"]', "human")
    ann.select_option("#create-time", "3")  # 10 min + 5 s
    ann.fill("#create-name", "Ann")
    ann.click("#create-submit")
    ann.wait_for_url(re.compile(r"/games/\d+$"))
    join_from_lobby(bob, ann.url)
    for page in (ann, bob):
        expect(page.locator("#clocks .clock")).to_have_count(2)
    ann.click("#ctl-draw")
    expect(ann.locator("#ctl-draw-sent")).to_be_visible()
    expect(bob.locator("#ctl-draw-answer")).to_be_visible()
    expect(bob.locator("#ctl-draw-text")).to_contain_text("offers a draw")
    screenshot(bob, "controls-draw-offer-en-phone")
    bob.click("#ctl-accept")
    for page in (ann, bob):
        expect(page.locator("#result")).to_contain_text("Draw agreed.")
        expect(page.locator("#ctl-draw")).to_be_hidden()


def test_chat_is_text_only_and_shown_in_the_replay(contexts: Contexts) -> None:
    page = contexts.page(lang="ja")
    play_bot_with_clock(page)
    markup = "<img src=x onerror=alert(1)> <b>やあ</b>"
    page.fill("#chat-text", markup)
    page.click("#chat-send")
    line = page.locator("#chat-list li .chat-text")
    expect(line).to_have_text(markup)  # shown as the characters typed, not as markup
    assert page.locator("#chat-list img, #chat-list b").count() == 0
    screenshot(page, "controls-chat-ja-desktop")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#ctl-resign")
    expect(page.locator("#result")).to_have_attribute("data-termination", "resign")
    page.click("#replay-link")
    expect(page.locator("#replay-chat-list li .chat-text")).to_have_text(markup)
