"""The Hidden Leaders table played by direct manipulation: a whole reproducible game clicked to the end (every
decision kind it meets, a multi-card discard and setup among them), prompts naming the card and the purpose,
only the engine's options offered, and one screen at 1366×800 for 4 players with the decision always in view.

The page's game socket is answered from an engine state (tests/e2e/drivers.py ``EngineSocket``): the page,
its scripts and the engine's views and legal moves are the real ones; the other seats play seeded moves.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import GameSocket, HiddenClicker, is_over, open_table
from tests.e2e.helpers import PHONE, Contexts, screenshot
from tests.games.hidden_leaders.helpers import build, run_card
from throne.games import hidden_leaders as hl

pytestmark = pytest.mark.e2e
WIDE = {"width": 1366, "height": 800}
ALL = ("core", "kickstarter", "queens", "legends")
SEED = 36  # seat 0 meets the turn's four decisions and 7 kinds of decisions inside cards (REQUIRED)
REQUIRED = {"setup", "action", "draw", "discard", "marker", "faction", "fate", "pick-card", "pick-hero",
            "pick-seat", "pick-tavern"}

ONE_SCREEN = """() => {
  window.scrollTo(0, 0);
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const parts = { decision: "#decision", track: "#power-track", tavern: "#tavern", hand: "#my-hand" };
  const out = {};
  for (const [name, sel] of Object.entries(parts)) out[name] = box(document.querySelector(sel));
  document.querySelectorAll("#parties .party").forEach((e, i) => { out[`party ${i}`] = box(e); });
  const scrollWidth = document.documentElement.scrollWidth;
  return { parts: out, width: innerWidth, height: innerHeight, scrollWidth };
}"""


def assert_one_screen(page: Page) -> None:
    """Decision, power track, Tavern, hand and every party inside the viewport without scrolling."""
    got = page.evaluate(ONE_SCREEN)
    outside = {
        name: [round(v) for v in (left, top, right, bottom)]
        for name, (left, top, right, bottom) in got["parts"].items()
        if left < 0 or top < 0 or right > got["width"] + 0.5 or bottom > got["height"] + 0.5
    }
    if outside:
        screenshot(page, "hidden-leaders-layout-failure")
    assert outside == {}, f"outside the {got['width']}×{got['height']} viewport: {outside}"
    assert got["scrollWidth"] <= got["width"]
    assert len([k for k in got["parts"] if k.startswith("party")]) == page.evaluate(
        "() => document.querySelectorAll('#parties .party').length") >= 4


def assert_decision_in_view_after_scrolling(page: Page) -> None:
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    top, bottom = page.eval_on_selector("#decision", "e => [e.getBoundingClientRect().top,"
                                                     " e.getBoundingClientRect().bottom]")
    assert page.evaluate("() => window.scrollY") > 0, "the page does not scroll: nothing to check"
    assert top >= 0 and bottom <= page.viewport_size["height"], (top, bottom)
    page.evaluate("() => window.scrollTo(0, 0)")


def check_every_language(page: Page) -> None:
    """This decision in en, fa and ja: one screen at 1366×800, the decision in view on a phone (scrolled to
    the bottom); back to English desktop. (The pictures for docs/ come from the game against real bots.)"""
    for lang in ("en", "fa", "ja"):
        if lang != "en":
            page.click(f'.lang-switch a[data-lang="{lang}"]')
            expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "true")
        page.set_viewport_size(WIDE)
        assert_one_screen(page)
        page.set_viewport_size(PHONE)
        expect(page.locator("#decision")).to_be_visible()
        assert_decision_in_view_after_scrolling(page)
    page.click('.lang-switch a[data-lang="en"]')
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.set_viewport_size(WIDE)
    expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "true")


def test_a_whole_game_clicked_to_the_end_meets_every_decision_kind(contexts: Contexts) -> None:
    state = hl.new_game(4, seed=SEED, modules=ALL)
    engine = GameSocket(state, 0, SEED)
    page, _ = open_table(contexts, state, 0, viewport=WIDE, engine=engine)
    player = HiddenClicker(page)
    shots = {"setup", "action", "draw", "pick-hero"}
    decisions = 0
    while True:
        kind = page.get_attribute("#table-root", "data-kind") if not is_over(page) else None
        if kind and page.get_attribute("#table-root", "data-my-turn") == "true":
            assert_one_screen(page)
            if kind in shots and (kind != "action" or player.actions == 1):
                shots.discard(kind)
                check_every_language(page)
        if not player.decide():
            break
        decisions += 1
        assert decisions < 400, "the game did not end"
        if decisions == 1:  # the setup discard is listed with where it is
            expect(page.locator("#known .known-entry .where").first).to_have_text("in the Wilderness")
    assert state.is_over and is_over(page)
    assert set(player.met) >= REQUIRED, f"met {sorted(player.met)}"
    assert player.multi_discards == 1 and player.met["setup"] == 1
    # the engine received exactly the moves of the clicks: a setup pair and a 2-card discard among them
    mine = [m for s, m in state.history if s == 0]
    assert mine[0].startswith("keep ") and re.fullmatch(r"discard \S+ \S+", mine[1])
    expect(page.locator("#scores tr")).to_have_count(4)
    expect(page.locator("#decision")).to_be_hidden()


def _targets(page: Page) -> list[str]:
    return sorted(page.eval_on_selector_all("#hidden-ui .pickable",
                                            "es => es.map(e => e.dataset.move || e.dataset.pick)"))


def test_a_bury_names_the_card_and_offers_only_eligible_heroes(contexts: Contexts) -> None:
    sss, pig = "short-sighted-soldier", "pigmented-war-pig"
    state = run_card("shaky-sharpshooter", {"players": 4, "parties": {1: f"{sss} {pig}", 2: "~leery-lizard"}},
                     [])
    page, engine = open_table(contexts, state, 0, viewport=WIDE)
    # the marker choice first: each option shows where the markers end up
    expect(page.locator("#decision-prompt")).to_have_text("Shaky Sharpshooter: choose how the markers move.")
    buttons = page.locator("#decision-options button.marker-option")
    expect(buttons).to_have_count(2)
    result = '#decision-options button[data-move="{}"] .result'
    expect(page.locator(result.format("R+1"))).to_have_text("then Red 5 · Green 4")
    expect(page.locator(result.format("G-1"))).to_have_text("then Red 4 · Green 3")
    page.click('#decision-options button[data-move="R+1"]')
    expect(page.locator("#decision-prompt")).to_have_text("Shaky Sharpshooter: choose a hero to bury.")
    # only the face-up Imperial hero is offered: not the War Pig, not a face-down hero, no button for it
    assert _targets(page) == [f"1:{sss}"]
    expect(page.locator(f'#parties [data-pick="1:{pig}"]')).not_to_have_class(re.compile("pickable"))
    expect(page.locator("#decision-options button")).to_have_count(0)
    expect(page.locator("#decision-hint")).to_have_text("Click one of the highlighted cards.")
    page.click(f'#parties [data-pick="1:{sss}"]')
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    assert engine.moves == ["R+1", f"1:{sss}"]


def test_a_choice_of_player_is_made_on_their_party(contexts: Contexts) -> None:
    state = run_card("overworked-amazon", {"players": 4, "parties": {1: "pigmented-war-pig leery-lizard"}},
                     ["G-1"])
    page, engine = open_table(contexts, state, 0, viewport=WIDE)
    expect(page.locator("#decision-prompt")).to_have_text(
        "Overworked Amazon: choose a player; they bury 1 of their own face-up heroes.")
    assert _targets(page) == ["seat 0", "seat 1"]  # players without a face-up hero are not offered
    page.click('#parties .party[data-seat="1"] h3')
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    assert engine.moves == ["seat 1"]


def test_setup_by_two_clicks_with_nothing_preselected(contexts: Contexts) -> None:
    state = hl.new_game(4, seed=SEED, modules=ALL)
    hand = list(state.hands[0])
    page, engine = open_table(contexts, state, 0, viewport=WIDE)
    prompt = "Choose the card to keep face down in your party and the card to discard."
    expect(page.locator("#decision-prompt")).to_have_text(prompt)
    assert page.inner_text("#decision").count(prompt) == 1  # printed once
    expect(page.locator("#decision select")).to_have_count(0)
    expect(page.locator("#my-hand .hl-card.chosen")).to_have_count(0)
    expect(page.locator("#setup-confirm")).to_be_disabled()
    page.click(f'#my-hand [data-card="{hand[2]}"] .name')
    expect(page.locator(f'#my-hand [data-card="{hand[2]}"] .chosen-tag')).to_have_text("Keep face down")
    page.click(f'#my-hand [data-card="{hand[0]}"] .name')
    expect(page.locator(f'#my-hand [data-card="{hand[0]}"] .chosen-tag')).to_have_text("Discard")
    page.click(f'#my-hand [data-card="{hand[0]}"] .name')  # a second click takes a choice back
    expect(page.locator("#setup-confirm")).to_be_disabled()
    page.click(f'#my-hand [data-card="{hand[4]}"] .name')
    page.click("#setup-confirm")
    expect(page.locator("#known .known-entry")).to_have_count(1)
    assert engine.moves == [f"keep {hand[2]} discard {hand[4]}"]


def test_the_main_action_discards_selected_cards_without_combination_buttons(contexts: Contexts) -> None:
    hand = ["leery-lizard", "furious-frog", "keen-koi"]
    state = build({"players": 4, "hands": {0: " ".join(hand)}, "tavern": "ace-fighter - -",
                   "harbor": "short-sighted-soldier rotting-orangutan flailing-knight"})
    combinations = [m for m in state.legal_moves() if m.startswith("discard")]
    assert len(combinations) == 7  # what the page must not list
    page, engine = open_table(contexts, state, 0, viewport=WIDE)
    expect(page.locator("#decision-options button")).to_have_count(2)  # the confirm and pass
    expect(page.locator("#discard-confirm")).to_be_disabled()
    expect(page.locator("#my-hand .play-card")).to_have_count(3)
    page.click('#my-hand [data-card="keen-koi"] .name')
    page.click('#my-hand [data-card="furious-frog"] .name')
    expect(page.locator("#discard-confirm")).to_have_text("Discard 2: Keen Koi, Furious Frog")
    page.click("#discard-confirm")
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    assert engine.moves == ["discard furious-frog keen-koi"]
    # then the draw: the Tavern card and the Harbor are clicked on the table
    expect(page.locator("#decision-prompt")).to_have_text(
        "Draw until you hold 4 cards: take a Tavern card or draw from the Harbor.")
    assert _targets(page) == ["draw harbor", "draw tavern ace-fighter"]
    page.click('#tavern [data-card="ace-fighter"]')
    page.click('#piles [data-pile="harbor"]')
    expect(page.locator("#decision-prompt")).to_contain_text("Draw until you hold 4 cards")
    page.click('#piles [data-pile="harbor"]')
    expect(page.locator("#decision-prompt")).to_have_text("Discard 1 card to hold 3.")
    page.click('#my-hand [data-card="leery-lizard"] .name')
    assert engine.moves[-1] == "discard leery-lizard"


@pytest.mark.parametrize("players", [4, 6])
def test_a_crowded_table_fits_or_keeps_the_decision_in_view(contexts: Contexts, players: int) -> None:
    """Big parties (6 heroes each), a 4-card hand and a full Tavern: one screen at 1366×800 for 4 players;
    with 6 players, and on a phone, the page scrolls and the decision stays in view."""
    deck = [c for c in hl.CARDS if c != "deceased-emperor"]
    parties = {p: " ".join(("~" if k % 3 == 2 else "") + deck[6 * p + k] for k in range(6))
               for p in range(players)}
    rest = deck[6 * players:]
    state = build({"players": players, "parties": parties, "hands": {0: " ".join(rest[:3])},
                   "tavern": " ".join(rest[3:6]), "harbor": " ".join(rest[6:10]), "phase": "draw"})
    page, _ = open_table(contexts, state, 0, viewport=WIDE)
    expect(page.locator("#parties .party")).to_have_count(players)
    if players == 4:
        assert_one_screen(page)
    else:
        assert_decision_in_view_after_scrolling(page)
    page.set_viewport_size(PHONE)
    assert_decision_in_view_after_scrolling(page)
