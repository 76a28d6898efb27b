"""Accounts in the browser: sign up, log out, log in, guest name; the player's game history; leaderboards;
keyboard-only play on the Leaders board."""

from __future__ import annotations

import re
import uuid
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Route, expect

from tests.e2e.helpers import Contexts, choose_named_bot

pytestmark = pytest.mark.e2e


def sign_up(page: Page, username: str, password: str, name: str) -> None:
    page.goto("/signup")
    page.fill("#username", username)
    page.fill("#password", password)
    page.fill("#display-name", name)
    page.click("#account-submit")
    page.wait_for_url(re.compile(r"/players/\d+$"))


def test_sign_up_log_in_history_and_leaderboards(contexts: Contexts) -> None:
    page = contexts.page()
    username = f"u{uuid.uuid4().hex[:10]}"
    sign_up(page, username, "correct horse", "Carol")
    expect(page.locator("#player-title")).to_contain_text("Carol")
    expect(page.locator("#user-badge")).to_contain_text("Carol")
    page.click("#logout")
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator("#user-badge")).to_have_count(0)

    page.goto("/login")
    page.fill("#username", username)
    page.fill("#password", "wrong password")
    page.click("#account-submit")
    expect(page.locator("#flash")).to_contain_text("Not accepted:")
    page.fill("#password", "correct horse")
    page.click("#account-submit")
    page.wait_for_url(re.compile(r"/players/\d+$"))

    # A game played while logged in shows up in the history.
    page.goto("/")
    choose_named_bot(page, "random")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    game_id = page.url.rsplit("/", 1)[1]
    page.click("text=My games")
    expect(page.locator("#history tbody tr")).to_have_count(1)
    expect(page.locator("#history tbody tr td").first).to_have_text(game_id)

    page.goto("/leaderboard")
    for game in ("leaders", "hidden-leaders"):
        expect(page.locator(f'table.leaderboard[data-game="{game}"]')).to_have_count(1)


def test_guest_name(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/login")
    page.fill("#guest-name", "Dana")
    page.click("#guest-submit")
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator("#user-badge")).to_contain_text("Dana")


def test_leaders_board_by_keyboard(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/")
    choose_named_bot(page, "random")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    page.wait_for_function("() => document.querySelector('#table-root').dataset.myTurn === 'true'")
    expect(page.locator("#board .cell.clickable").first).to_be_visible()
    before = page.get_attribute("#table-root", "data-ply")
    # Focus a piece, Enter selects it, Escape drops the selection; Enter on a highlighted cell moves.
    page.locator("#board .cell.clickable").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#board .cell.selected")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(page.locator("#board .cell.selected")).to_have_count(0)
    if page.get_attribute("#table-root", "data-phase") == "action":
        page.locator("#board .cell.clickable").first.focus()
        page.keyboard.press("Enter")
        page.locator("#board .cell.dest, #board .cell.target").first.focus()
        page.keyboard.press("Enter")
        if page.is_visible("#finish-step"):
            page.focus("#finish-step")
            page.keyboard.press("Enter")
        page.wait_for_function("(b) => document.querySelector('#table-root').dataset.ply !== b", arg=before)


FORMS = [  # (page, its form's submit button, the fields to fill); "mine": the signed-in player's own page
    ("/signup", "#account-submit", {"#username": "early", "#password": "correct horse"}),
    ("/login", "#account-submit", {"#username": "early", "#password": "correct horse"}),
    ("/signup", "#guest-submit", {"#guest-name": "Early"}),
    ("mine", "#password-submit", {"#current-password": "correct horse", "#new-password": "battery staple"}),
]


@pytest.mark.parametrize(("path", "submit", "fields"), FORMS)
def test_an_account_form_is_sent_only_by_its_script(
    contexts: Contexts, path: str, submit: str, fields: dict[str, str]
) -> None:
    """Before the page's script can act on a form (it waits for its translations), its button is disabled and
    Enter sends nothing: the browser itself would have sent the form as a GET, the password in the address."""
    page = contexts.page()
    if path == "mine":
        sign_up(page, f"u{uuid.uuid4().hex[:10]}", "correct horse", "Early")
        path = urlsplit(page.url).path
    held: list[Route] = []
    page.route(re.compile(r"/i18n/\w+\.json$"), lambda route: held.append(route))
    page.goto(path)
    for _ in range(200):  # until the page's script asks for its translations
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page never asked for its translations"
    expect(page.locator(submit)).to_be_disabled()
    for selector, value in fields.items():
        page.fill(selector, value)
    page.press(list(fields)[-1], "Enter")
    page.wait_for_timeout(300)
    assert page.url.endswith(path), page.url  # nothing sent: no query string, no other page
    for route in held:
        route.continue_()
    page.unroute(re.compile(r"/i18n/\w+\.json$"))
    expect(page.locator(submit)).to_be_enabled()
    assert page.locator("form[method='get'], form:not([method])").count() == 0  # never a GET, whatever runs
