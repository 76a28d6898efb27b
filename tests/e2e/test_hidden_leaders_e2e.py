"""A whole 4-player Hidden Leaders game against three bots, played by clicks only, watched by a spectator who
never sees a hand or a face-down hero; screenshots of the table in English, Persian and Japanese."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER, HiddenClicker, data, is_over
from tests.e2e.helpers import PHONE, Contexts, choose_named_bot, screenshot

pytestmark = pytest.mark.e2e
MAX_DECISIONS = 400
WIDE = {"width": 1366, "height": 800}
TURN_KINDS = {"setup", "action", "draw", "discard"}


def start_hidden_vs_bots(page: Page) -> None:
    page.goto("/")
    choose_named_bot(page, "random")
    page.click("#play-bot-hidden-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")
    expect(page.locator("#power-track .space")).to_have_count(12)


def secrets_of(page: Page) -> set[str]:
    """Cards only this player may know: its hand and its face-down heroes."""
    cards = page.eval_on_selector_all(
        "#my-hand [data-card], #parties .down-own[data-card]", "es => es.map(e => e.dataset.card)"
    )
    return set(cards)


def face_down_heroes(page: Page) -> int:
    """The face-down heroes of every party on a page: a card the page's seat knows, or a card back."""
    return page.locator("#parties .down-own, #parties .hl-card.back").count()


def assert_spectator_sees_no_secret(spectator: Page, secrets: set[str], face_down: int) -> None:
    shown = set(spectator.eval_on_selector_all("#hidden-ui [data-card]", "es => es.map(e => e.dataset.card)"))
    assert shown & secrets == set()
    assert spectator.locator("#hidden-ui .down-own").count() == 0
    assert spectator.locator("#my-hand [data-card]").count() == 0
    expect(spectator.locator("#mine-panel")).to_be_hidden()
    # Every face-down hero is a card back for the spectator (late in a game there may be none left).
    assert spectator.locator("#parties .hl-card.back").count() == face_down


def compare_with_spectator(page: Page, spectator: Page) -> int:
    """While the game waits on the player, both pages show the same position: compare them there. Returns
    how many face-down heroes the parties held (0 once the game is over)."""
    page.wait_for_function(MY_TURN_OR_OVER)
    if is_over(page):
        return 0
    ply = int(page.get_attribute("#table-root", "data-ply"))
    spectator.wait_for_function(
        "(p) => Number(document.querySelector('#table-root').dataset.ply) === p", arg=ply
    )
    face_down = face_down_heroes(page)
    assert_spectator_sees_no_secret(spectator, secrets_of(page), face_down)
    return face_down


LAST_LOG = """() => {
  const li = document.querySelector('#log li:last-child');
  return li ? { seat: li.dataset.seat, fresh: li.classList.contains('fresh'), text: li.textContent } : null;
}"""


def shoot(page: Page) -> None:
    """The table at this decision in English, Persian and Japanese, at 1366×800 and on a phone (390×844)."""
    for lang in ("en", "fa", "ja"):
        if lang != "en":
            page.click(f'.lang-switch a[data-lang="{lang}"]')
            expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("#decision")).to_be_visible()
        expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "true")
        page.set_viewport_size(WIDE)
        page.evaluate("() => window.scrollTo(0, 0)")
        screenshot(page, f"hidden-leaders-{lang}")
        page.set_viewport_size(PHONE)
        page.evaluate("() => window.scrollTo(0, 0)")
        screenshot(page, f"hidden-leaders-{lang}-phone")
    page.click('.lang-switch a[data-lang="en"]')
    page.set_viewport_size(WIDE)
    expect(page.locator("#decision")).to_be_visible()


def test_whole_hidden_leaders_game_against_bots_with_a_spectator(contexts: Contexts) -> None:
    page = contexts.page(viewport=WIDE)
    start_hidden_vs_bots(page)
    expect(page.locator("#my-leader .leader-name")).not_to_have_text("?")
    expect(page.locator("#my-leader .faction-chip")).to_have_count(2)
    spectator = contexts.page()
    spectator.goto("/")
    game_id = page.url.rsplit("/", 1)[1]
    spectator.click(f'#live-tables li[data-game-id="{game_id}"] a[data-action="spectate"]')
    spectator.wait_for_url(page.url)
    expect(spectator.locator("#net-status")).to_have_attribute("data-state", "online")
    expect(spectator.locator("#table-root")).to_have_attribute("data-seat", "")
    player = HiddenClicker(page)
    decisions = 0
    marked = 0
    most_face_down = 0  # the most face-down heroes a comparison with the spectator saw
    shot = False
    while player.decide():
        decisions += 1
        # when the others acted since your last decision, their sentences are marked until you act
        last = page.evaluate(LAST_LOG)
        if last and last["seat"] not in ("", page.get_attribute("#table-root", "data-seat")):
            assert last["fresh"], last
            marked += 1
        assert decisions < MAX_DECISIONS, "the game did not end"
        if decisions % 6 == 1:
            most_face_down = max(most_face_down, compare_with_spectator(page, spectator))
        # a decision inside a card (its prompt names it) is pictured in every language, else the 12th decision
        page.wait_for_function(MY_TURN_OR_OVER, timeout=60_000)
        kind = data(page, "kind")
        if not shot and not is_over(page) and data(page, "myTurn") == "true" and (
                kind not in TURN_KINDS or decisions >= 12):
            shot = True
            shoot(page)
    assert shot
    assert most_face_down >= 1  # set-up step 4 puts one into every party; the spectator saw them as backs
    assert set(player.met) >= TURN_KINDS and player.multi_discards == 1
    assert marked >= 1
    scores = page.locator("#scores tr")
    expect(scores).to_have_count(4)
    leaders = page.eval_on_selector_all("#scores td[data-leader]", "tds => tds.map(td => td.dataset.leader)")
    assert len(set(leaders)) == 4 and all(leaders)
    expect(page.locator("#tiebreak")).to_contain_text("How the winner was decided")
    expect(page.locator("#result")).to_be_visible()
    # the log narrates the card plays, and the end says which faction won and why
    expect(page.locator('#log li[data-type="play"]').first).to_contain_text(" played ")
    expect(page.locator("#end-why")).to_contain_text(" win: ")
    assert page.locator('#log li[data-type="game-end"]').count() == 1
    # Once over, everything is revealed to everyone: the spectator sees the same leaders.
    spectator.reload()
    expect(spectator.locator("#scores tr")).to_have_count(4)
    expect(spectator.locator("#end-why")).to_contain_text(" win: ")
    assert (
        spectator.eval_on_selector_all("#scores td[data-leader]", "tds => tds.map(td => td.dataset.leader)")
        == leaders
    )
    page.set_viewport_size(PHONE)
    screenshot(page, "hidden-leaders-en-phone-end")
    page.click("#replay-link")
    expect(page.locator("#replay-step")).to_contain_text("of")
    expect(page.locator("#parties .hl-card.back")).to_have_count(0)
    # the last step's events, narrated: the game's end says which faction won and why
    expect(page.locator('#replay-events li[data-type="game-end"]')).to_contain_text(" win: ")
    screenshot(page, "hidden-leaders-replay-en-phone")
    page.click("#replay-prev")
    expect(page.locator("#power-track .space")).to_have_count(12)
