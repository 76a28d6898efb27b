"""Forgotten Legends on the real Hidden Leaders table page: the third (Guardian) marker on the power track,
the secret leader pool's sizes, a Fate choice made by a click, and a skipped-turn chip.

As in test_leaders_actions_e2e, only the page's game WebSocket is answered by the test, from an engine state
(``view(seat)`` and ``legal_moves()``); the move the page sends is played on that engine state.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.drivers import open_table
from tests.e2e.helpers import Contexts
from tests.games.hidden_leaders.helpers import run_card
from throne import i18n
from throne.games import hidden_leaders as hl

pytestmark = pytest.mark.e2e
ALL = ("core", "kickstarter", "queens", "legends")


def fate_position() -> hl.State:
    """Seat 0 has played Baneful Beacon and buried Huggable Hulk: it must choose a Fate; seat 2 skips."""
    st = run_card("baneful-beacon", {"modules": ALL, "parties": {1: "huggable-hulk"}, "guardian": 6,
                                     "skips": [2]}, ["R-1", "1:huggable-hulk"])
    st.stack[-1] = {**st.stack[-1], "hid": ["guardian-2", "red-1"]}
    st.changed()
    return st


def test_guardian_marker_and_a_fate_choice_by_click(contexts: Contexts) -> None:
    state = fate_position()
    page, engine = open_table(contexts, state, 0)
    expect(page.locator('#power-track .space[data-space="6"] .marker.guardian')).to_have_count(1)
    expect(page.locator("#power-track .marker")).to_have_count(3)
    expect(page.locator("#track-now")).to_have_text("Red 3 · Green 4 · Guardian 6")
    expect(page.locator("#leader-pool")).to_contain_text("3 base and 1 Guardian leaders")
    expect(page.locator('#parties .party[data-seat="2"] .skip-chip')).to_have_count(1)
    expect(page.locator("#fate-cards .fate-card")).to_have_count(2)
    # the two drawn cards are the options: clicked on the table, never repeated as buttons
    red = page.locator('#fate-cards .fate-card[data-fate="red-1"]')
    expect(red).to_have_attribute("title", "Fate: Red marker −1")
    expect(page.locator("#fate-cards .fate-card.pickable")).to_have_count(2)
    expect(page.locator("#decision-options button")).to_have_count(0)
    page.click('#fate-cards .fate-card[data-fate="guardian-2"]')
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    assert engine.moves == ["fate guardian-2"]
    # the Fate moved the Guardian marker −2; the Beacon may bury a second Guardian card, or skip
    assert engine.state.guardian == 4
    expect(page.locator('#power-track .space[data-space="4"] .marker.guardian')).to_have_count(1)
    page.click('#decision-options button[data-move="skip"]')
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    assert engine.state.guardian == 6  # the Beacon resolved: +2


def test_the_other_seats_see_no_fate_card(contexts: Contexts) -> None:
    page, _ = open_table(contexts, fate_position(), 1, lang="fa")
    expect(page.locator("#power-track .marker.guardian")).to_have_count(1)
    expect(page.locator("#fate-cards")).to_have_count(0)
    expect(page.locator("#decision")).to_have_class(re.compile(r"\bwaiting\b"))  # in view, but not yours
    # who decides, the card being resolved and what for, worded for an onlooker
    expect(page.locator("#decision-title")).not_to_have_text(i18n.t("fa", "ui.hl.decision"))
    card = i18n.t("fa", "hl.card.huggable-hulk.name")  # the buried Guardian card that brought the Fate
    prompt = i18n.t("fa", "ui.hl.prompt_card", card=card, text=i18n.t("fa", "hl.purpose.fate"))
    expect(page.locator("#decision-prompt")).to_have_text(prompt)
    expect(page.locator("#decision-options > *")).to_have_count(0)
    assert "red-1" not in page.content() and "guardian-2" not in page.content()
