"""Takebacks in a real browser: a move taken back against a bot (which accepts in an unrated game) and an
undo within one's own turn, both by clicking the table's buttons."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER, LeadersClicker, data, ply
from tests.e2e.helpers import Contexts, screenshot

pytestmark = pytest.mark.e2e


def _one_move(page: Page) -> int:
    """Moves one piece on this seat's turn, the Leader only when nothing else can move (a Leader's move may
    make the bot's Nemesis react, and then the last move is not this seat's); returns the ply before it."""
    page.wait_for_function(MY_TURN_OR_OVER, timeout=60_000)
    assert data(page, "phase") not in ("recruit", "reaction")
    before = ply(page)
    clicker = LeadersClicker(page)
    leader = page.eval_on_selector(
        f'.cell:has(.piece[data-piece="L"][data-side="{clicker.seat()}"])', "g => g.dataset.cell"
    )
    assert clicker.act_once({leader}, before) or clicker.act_once(set(), before)
    return before


def _wait_ply(page: Page, want: int) -> None:
    page.wait_for_function(
        "(want) => Number(document.querySelector('#table-root').dataset.ply) === want", arg=want
    )


def test_a_takeback_and_an_undo_against_a_bot(contexts: Contexts) -> None:
    page = contexts.page(lang="en")
    sent: list[dict] = []  # what the table's socket sends
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(json.loads(frame))))
    page.goto("/", wait_until="networkidle")  # the lobby script has its game facts and its handlers
    # South opens: the bot has no Nemesis on the board during our first turn, which could react to our
    # Leader's move (leaders.md) and make the last move the bot's, with nothing of ours left to undo
    page.select_option("#quick-side-leaders", "0")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    before = _one_move(page)
    assert data(page, "myTurn") == "true"  # a Leaders turn has several decisions
    expect(page.locator("#ctl-takeback")).to_be_visible()
    page.click("#ctl-takeback")
    _wait_ply(page, before)  # the bot accepted: the move is taken back
    expect(page.locator("#ctl-takeback-sent")).to_be_hidden()
    before = _one_move(page)
    expect(page.locator("#ctl-undo")).to_be_visible()
    screenshot(page, "controls-undo-en-desktop")
    page.click("#ctl-undo")
    _wait_ply(page, before)
    assert data(page, "myTurn") == "true"
    # each request names the ply it was asked at: one sent again after it was granted is refused, not applied
    asked = [(m["type"], m.get("ply")) for m in sent if m["type"] in ("takeback_request", "undo")]
    assert asked == [("takeback_request", before + 1), ("undo", before + 1)], asked
