"""The lobby in the browser: bot levels up front (named bots under "Advanced"), the side you play, rated
constraints shown while the form is filled, guests told before joining a rated table, Persian digits;
screenshots of the lobby at desktop and phone width in English, Persian and Japanese."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import PHONE, Contexts, choose_named_bot, screenshot
from tests.e2e.test_accounts_e2e import sign_up

pytestmark = pytest.mark.e2e


def my_seat(page: Page, game_id: str) -> int:
    return page.evaluate(
        "async (id) => (await (await fetch(`/api/games/${id}`)).json()).game.you.seat", game_id
    )


def test_level_and_side_up_front(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/")
    levels = page.locator('#quick-levels input[name="quick-tier"]')
    expect(levels).to_have_count(3)
    expect(page.locator('#quick-levels input[value="easy"]')).to_be_checked()
    expect(page.locator("#quick-level")).to_be_hidden()  # named bots wait under "Advanced"
    expect(page.locator("#quick-levels")).to_be_visible()
    above = page.locator("#quick-levels").bounding_box()
    button = page.locator("#play-bot-leaders").bounding_box()
    assert above and button and above["y"] < button["y"], "the level picker sits above the play buttons"
    side = page.locator("#quick-side-leaders option")
    expect(side).to_have_text(["Random", "South", "North"])
    expect(page.locator("#quick-side-hidden-leaders option").nth(1)).to_have_text("Seat 1")
    page.check('#quick-levels input[value="medium"]')
    page.select_option("#quick-side-leaders", "1")
    choose_named_bot(page, "random")  # a named bot overrides the level
    with page.expect_request(lambda r: r.url.endswith("/api/play-bot")) as sent:
        page.click("#play-bot-leaders")
    assert sent.value.post_data_json["bot"] == "random" and sent.value.post_data_json["side"] == 1
    page.wait_for_url(re.compile(r"/games/\d+$"))
    assert my_seat(page, page.url.rsplit("/", 1)[1]) == 1


def test_the_play_buttons_wait_for_the_page_to_act_on_them(contexts: Contexts) -> None:
    """A click on Play or Create before the lobby's script can act on it must not be lost without a word:
    the buttons are disabled until then (and a click waits for them)."""
    page = contexts.page()
    held = []
    page.route("**/api/meta", lambda route: held.append(route))  # the games' facts come late
    page.goto("/")
    for _ in range(200):  # until the lobby's script asks for them (after its translations)
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the lobby never asked for the games' facts"
    play = page.locator("#play-bot-leaders")
    expect(play).to_be_disabled()
    expect(page.locator("#create-submit")).to_be_disabled()  # and Enter in its form sends nothing
    held[0].continue_()
    expect(page.locator("#create-submit")).to_be_enabled()
    play.click()
    page.wait_for_url(re.compile(r"/games/\d+$"))


def test_rated_constraints_and_guests_told_before_joining(contexts: Contexts) -> None:
    guest = contexts.page()
    guest.goto("/")
    guest.check("#create-rated")
    expect(guest.locator("#create-reason")).to_have_text(re.compile("registered account"))
    expect(guest.locator("#create-submit")).to_be_disabled()
    guest.uncheck("#create-rated")
    expect(guest.locator("#create-reason")).to_be_hidden()
    expect(guest.locator("#create-submit")).to_be_enabled()

    host = contexts.page()
    sign_up(host, f"u{uuid.uuid4().hex[:10]}", "correct horse", "Rita")
    host.goto("/")
    host.select_option("#create-game", "leaders")
    host.check("#create-rated")
    expect(host.locator("#create-reason")).to_have_text(re.compile("people only"))
    expect(host.locator("#create-submit")).to_be_disabled()
    host.select_option('#seat-setup select[data-seat="1"]', "human")
    expect(host.locator("#create-reason")).to_be_hidden()
    host.select_option("#create-side", "0")
    host.click("#create-submit")
    host.wait_for_url(re.compile(r"/games/\d+"))
    game_id = re.search(r"/games/(\d+)", host.url).group(1)

    guest.click("#refresh")
    row = guest.locator(f'#open-tables li[data-game-id="{game_id}"]')
    expect(row.locator('[data-action="join"]')).to_be_disabled()
    expect(row.locator(".reason")).to_have_text(re.compile("log in with a registered account"))
    expect(row.locator("bdi")).to_have_text("Rita")


def test_persian_digits_and_screenshots(contexts: Contexts) -> None:
    host = contexts.page()
    host.goto("/")
    host.select_option("#create-game", "hidden-leaders")
    host.select_option('#seat-setup select[data-seat="1"]', "human")  # a seat left open: listed in the lobby
    host.click("#create-submit")
    host.wait_for_url(re.compile(r"/games/\d+"))
    for lang in ("en", "fa", "ja"):
        for width, viewport in (("desktop", None), ("phone", PHONE)):
            page = contexts.page(lang=lang, viewport=viewport)
            page.goto("/")
            expect(page.locator("#open-tables li").first).to_be_visible()
            if lang == "fa":
                title = page.locator("#open-tables li strong").first.inner_text()
                assert re.search("[۰-۹]", title) and not re.search("[0-9]", title), title
                expect(page.locator("#quick-side-hidden-leaders option").nth(1)).to_have_text(
                    re.compile("[۰-۹]")
                )
            if lang == "ja" and viewport is None:  # the default guest name and the modules, translated
                expect(page.locator("#live-tables")).to_contain_text("ゲスト")
                page.select_option("#create-game", "hidden-leaders")
                modules = page.locator('#game-options fieldset[data-option="modules"]')
                expect(modules).to_contain_text("基本セット")
                page.select_option("#create-game", "leaders")
            screenshot(page, f"lobby-{lang}-{width}")
    table = contexts.page(lang="fa")  # the table's seat list in Persian digits too
    table.goto(host.url)
    expect(table.locator("#seats li").nth(1)).to_have_text(re.compile("[۰-۹]"))
    assert not re.search("[0-9]", table.locator("#seats").inner_text())
