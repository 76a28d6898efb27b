"""Forgotten Legends on the real Hidden Leaders table page: the third (Guardian) marker on the power track,
the secret leader pool's sizes, a Fate choice made by a click, and a skipped-turn chip.

As in test_leaders_actions_e2e, only the page's game WebSocket is answered by the test, from an engine state
(``view(seat)`` and ``legal_moves()``); the move the page sends is played on that engine state.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.helpers import Contexts
from tests.games.hidden_leaders.helpers import run_card
from throne.games import hidden_leaders as hl

pytestmark = pytest.mark.e2e
ALL = ("core", "kickstarter", "queens", "legends")


class EngineSocket:
    """Answers the page's game socket like the server does, from a Hidden Leaders state and a fixed seat."""

    def __init__(self, state: hl.State, seat: int) -> None:
        self.state, self.seat, self.ply = state, seat, 10
        self.moves: list[str] = []
        self.game_id = 0

    def handler(self, ws: WebSocketRoute) -> None:
        self.game_id = int(re.search(r"/ws/games/(\d+)", ws.url).group(1))
        ws.on_message(lambda message: self.on_message(ws, message))

    def state_message(self) -> dict[str, Any]:
        st = self.state
        view = st.view(self.seat)
        mine = view["to_play"] == self.seat
        return {"type": "state", "game_id": self.game_id, "status": "finished" if st.is_over else "live",
                "ply": self.ply, "seat": self.seat, "to_play": view["to_play"], "your_turn": mine,
                "legal_moves": view["legal_moves"], "last_move": view["last_move"], "view": view,
                "result": None}

    def on_message(self, ws: WebSocketRoute, message: str | bytes) -> None:
        msg = json.loads(message)
        if msg.get("type") == "hello":
            ws.send(json.dumps({"type": "welcome", "game_id": self.game_id, "seat": self.seat}))
            ws.send(json.dumps(self.state_message()))
        elif msg.get("type") == "move":
            self.moves.append(msg["move"])
            self.state.play(msg["move"])
            self.ply += 1
            ws.send(json.dumps(self.state_message()))


def open_table(contexts: Contexts, state: hl.State, seat: int, lang: str = "en") -> tuple[Page, EngineSocket]:
    engine = EngineSocket(state, seat)
    page = contexts.page(lang=lang)
    page.route_web_socket(re.compile(r"/ws/games/\d+$"), engine.handler)
    page.goto("/")
    page.click("#quick-advanced > summary")
    page.select_option("#quick-level", "random")
    page.click("#play-bot-hidden-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    return page, engine


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
    red = page.locator('#decision-options button[data-move="fate red-1"]')
    expect(red).to_have_text("Fate: Red marker −1")
    page.click('#fate-cards .fate-card[data-fate="guardian-2"]')  # the drawn card itself is clickable
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
    expect(page.locator("#decision")).to_be_hidden()
    assert "red-1" not in page.content() and "guardian-2" not in page.content()
