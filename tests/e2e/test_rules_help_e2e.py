"""Rules pages and help in a real browser: they render in every language (Persian right to left), under
the site's Content-Security-Policy (the fixture fails on any blocked script or style), and are linked."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER
from tests.e2e.helpers import DESKTOP, PHONE, Contexts, choose_named_bot, screenshot

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


def _start_vs_bot(page: Page, game: str) -> None:
    page.goto("/")
    choose_named_bot(page, "random")
    page.click(f"#play-bot-{game}")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")


def test_help_opens_by_tap_on_a_champion_at_phone_width(contexts: Contexts) -> None:
    page = contexts.page(viewport=PHONE, has_touch=True)
    page.emulate_media(reduced_motion="reduce")
    _start_vs_bot(page, "leaders")
    page.wait_for_function(MY_TURN_OR_OVER)  # the bot's first turn (if it is South) is drawn and done
    expect(page.locator("#leaders-goal")).to_be_visible()
    # a market card that cannot be taken now (or can: then the Help toggle comes first)
    card = page.locator("#market .market-card[data-code]").first
    if "clickable" in (card.get_attribute("class") or ""):
        page.tap("#help-toggle")
    name = card.locator("strong").inner_text().strip()
    card.tap(force=True)  # aria-disabled (not a move now), which Playwright would wait on; a finger does not
    dialog = page.locator("#help-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text(name)
    expect(dialog.locator("svg.rules-board")).to_be_visible()  # the rules page's diagram of the champion
    box = dialog.bounding_box()
    assert box and box["width"] <= PHONE["width"]
    screenshot(page, "help-champion-phone-en")
    page.tap("#help-close")
    expect(dialog).to_be_hidden()
    # the own Leader can move, so a plain tap selects it; with the toggle the tap opens its help instead
    side = int(page.eval_on_selector("#table-root", "r => r.dataset.seat"))
    leader = f'.cell:has(.piece[data-piece="L"][data-side="{side}"])'
    mine = page.eval_on_selector(leader, "g => g.dataset.cell")
    page.tap("#help-toggle")
    page.tap(f'#board .cell[data-cell="{mine}"]')
    expect(dialog.locator("h2")).to_have_text(re.compile("South" if side == 0 else "North"))
    expect(page.locator("#help-toggle")).to_have_attribute("aria-pressed", "false")


def test_help_opens_by_tap_on_a_card_and_the_track_says_who_would_win(contexts: Contexts) -> None:
    page = contexts.page(lang="fa", viewport=PHONE, has_touch=True)
    _start_vs_bot(page, "hidden-leaders")
    expect(page.locator("#track-names")).to_contain_text("نشانگر قرمز")
    expect(page.locator("#live-faction")).to_have_attribute("data-faction", "water-folk")  # both markers on 4
    tavern = page.locator("#tavern .hl-card[data-card]").first
    card = tavern.get_attribute("data-card")
    page.tap("#help-toggle")
    tavern.tap()
    dialog = page.locator("#help-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#help-rules")).to_have_attribute("href", f"/rules/hidden-leaders#card-{card}")
    screenshot(page, "help-card-phone-fa")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


# (cells or market cards clicked, in order) for each lesson of the Leaders tutorial
LEADERS_LESSON_CLICKS = [["d1", "d2"], ["d3", "d5"], ["+AS", "a1"], ["d2", "d4"], ["a1", "a3"]]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_leaders_tutorial_is_completed_by_clicks(contexts: Contexts, lang: str) -> None:
    page = contexts.page(lang=lang, viewport=PHONE if lang == "ja" else DESKTOP)
    page.goto("/")
    page.click("#tutorial-link")
    page.click("#tutorial-leaders-link")
    root = page.locator("#table-root")
    for step, clicks in enumerate(LEADERS_LESSON_CLICKS):
        expect(root).to_have_attribute("data-step", str(step))
        for i, click in enumerate(clicks):
            if click.startswith("+"):
                page.click(f'#market .market-card[data-code="{click[1:]}"]')
            else:
                page.click(f'#board .cell[data-cell="{click}"]')
            if step == 3 and i == 0:  # the Rider selected: its destinations are highlighted
                page.locator("#tutorial").scroll_into_view_if_needed()
                screenshot(page, f"tutorial-leaders-capture-{lang}")
        expect(root).to_have_attribute("data-step-done", str(step))
        expect(page.locator("#tutorial-feedback")).to_have_attribute("data-state", "done")
        if step < len(LEADERS_LESSON_CLICKS) - 1:
            page.click("#tutorial-next")
    expect(root).to_have_attribute("data-finished", "true")
    expect(page.locator("#result")).to_be_visible()  # the engine's own end of game: South surrounded North
    page.locator("#tutorial").scroll_into_view_if_needed()
    screenshot(page, f"tutorial-leaders-end-{lang}")


def test_a_legal_move_that_misses_the_lesson_is_refused_and_the_lesson_restarts(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/tutorial/leaders")
    root = page.locator("#table-root")
    expect(root).to_have_attribute("data-step", "0")
    page.click("#end-actions")  # legal, but the lesson asks for a Leader step
    page.click("#end-confirm-yes")  # the Leader could still move: the table asks first
    expect(page.locator("#tutorial-feedback")).to_have_attribute("data-state", "retry")
    expect(page.locator('#board .cell[data-cell="d1"] .piece[data-piece="L"]')).to_have_count(1)


def test_the_hidden_leaders_tutorial_turn_is_completed_by_clicks(contexts: Contexts) -> None:
    page = contexts.page(lang="fa", viewport=PHONE)
    page.goto("/tutorial/hidden-leaders")
    root = page.locator("#table-root")
    expect(root).to_have_attribute("data-lesson", "action")
    page.locator("#my-hand .play-card").first.click()
    for _ in range(12):  # resolve the card's choices, draw to 4, discard to 3: each time the first option
        if root.get_attribute("data-finished") == "true":
            break
        made = root.get_attribute("data-moves")
        options = page.locator("#decision-options button[data-move], #my-hand .play-card")
        if options.count():
            options.first.click()
        else:
            page.locator(".pickable").first.click()
        page.wait_for_function("(before) => document.querySelector('#table-root').dataset.moves !== before",
                               arg=made)
    expect(root).to_have_attribute("data-finished", "true")
    screenshot(page, "tutorial-hidden-leaders-fa-phone")
