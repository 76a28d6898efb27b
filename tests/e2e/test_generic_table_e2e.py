"""A game with no renderer of its own (the toy Sum Duel, GameSpec.renderer "generic") plays by clicks on its
table page: the seat's view shown as data, the legal moves as buttons, the moves listed, the result shown."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Route, WebSocketRoute, expect

from tests.e2e.conftest import serve
from tests.e2e.helpers import Contexts, screenshot
from tests.games import toy_game
from throne import games
from throne.server.config import Settings


@pytest.fixture(scope="module")
def toy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    games.register(toy_game.SPEC)
    try:
        settings = Settings(data_dir=Path(tmp_path_factory.mktemp("toy-data")), abandon_timeout=3600,
                            bot_timeout=5.0, rate_limits={})
        with serve(settings) as base:
            yield base
    finally:
        games.unregister(toy_game.GAME)


def test_a_generic_game_plays_by_clicks_against_a_bot(browser: Browser, toy_server: str) -> None:
    contexts = Contexts(browser, toy_server)
    try:
        page = contexts.page()
        page.goto("/")
        page.click("#play-bot-sum-duel")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        expect(page.locator("#generic-ui")).to_be_visible()
        expect(page.locator("#table-root")).to_have_attribute("data-renderer", "generic")
        expect(page.locator("#leaders-ui")).to_be_hidden()
        expect(page.locator("#hidden-ui")).to_be_hidden()
        clicks = 0
        for _ in range(40):
            if page.locator("#table-root").get_attribute("data-status") == "finished":
                break
            button = page.locator("#generic-moves button").first
            try:
                button.wait_for(timeout=5_000)
            except Exception:  # the bot's turn or the end: look again
                continue
            expect(page.locator("#generic-view [data-key]").first).to_be_visible()
            move = button.get_attribute("data-move")
            assert move and move.startswith("play ")
            button.click()
            clicks += 1
            expect(page.locator("#generic-log")).to_contain_text(move)
        expect(page.locator("#table-root")).to_have_attribute("data-status", "finished")
        assert clicks >= 1
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#generic-moves button")).to_have_count(0)
        expect(page.locator("#generic-view")).to_contain_text("played")
        expect(page.locator("#generic-log li")).to_have_count(6)
        entries = page.locator("#generic-log li").all_inner_texts()
        assert all(re.fullmatch(r"\S.*: play \d", e) for e in entries), entries
        assert "undefined" not in " ".join(entries)
        screenshot(page, "generic-table")
        page.click("#replay-link")
        page.wait_for_url(re.compile(r"/games/\d+/replay$"))
        expect(page.locator("#generic-ui")).to_be_visible()
        expect(page.locator("#generic-ui .replay-moves button")).to_have_count(6)
        expect(page.locator("#result")).to_be_visible()
        page.locator("#generic-ui .replay-moves button").first.click()
        expect(page.locator("#replay-move")).to_contain_text(": play ")
        expect(page.locator("#generic-view")).to_contain_text("played")
        assert contexts.errors == [], contexts.errors
    finally:
        contexts.close()


def _live_states(ws: WebSocketRoute) -> None:
    """A socket that answers hello with two live states: ply 2 (seat 1 to play), then ply 3 after seat 1's
    move, given as a bare string, as the engine's view gives it, with no events."""

    def state(ply: int, to_play: int, last: str) -> str:
        view = {"played": [], "last_move": last}
        return json.dumps({"type": "state", "game_id": 0, "status": "live", "ply": ply, "seat": 0,
                           "to_play": to_play, "your_turn": False, "legal_moves": [], "last_move": last,
                           "view": view, "result": None, "left": None, "events": [], "clocks": None})

    def on_message(message: str | bytes) -> None:
        if json.loads(message).get("type") == "hello":
            ws.send(state(2, 1, "play 1"))
            ws.send(state(3, 0, "play 4"))

    ws.on_message(on_message)


def test_a_move_seen_live_names_its_player_while_the_earlier_moves_are_still_loading(
    browser: Browser, toy_server: str
) -> None:
    """The log of a table joined mid-game fills from the record; a move that arrives before the record does
    is listed with the seat that was to play before it (a bare move string names none)."""
    contexts = Contexts(browser, toy_server)
    try:
        page = contexts.page()
        held: list[Route] = []
        page.route(re.compile(r"/api/games/\d+/replay"), lambda route: held.append(route))  # never answered
        page.route_web_socket(re.compile(r"/ws/games/\d+$"), _live_states)
        page.goto("/")
        page.click("#play-bot-sum-duel")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        expect(page.locator("#table-root")).to_have_attribute("data-ply", "3")
        expect(page.locator("#generic-log li")).to_have_count(1)
        entry = page.locator("#generic-log li").inner_text()
        assert re.fullmatch(r"\S.*: play 4", entry), entry
        assert held, "the table asked for the record"
    finally:
        contexts.close()
