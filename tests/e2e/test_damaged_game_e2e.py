"""The table page of a live game whose stored record no longer rebuilds (docs/server-api.md, *Damaged
records*): it says so in the player's language, and the lobby does not offer the game to watch."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import serve
from tests.e2e.helpers import PHONE, Contexts, screenshot
from tests.server.helpers import server_settings, two_player_leaders
from throne.server.app import create_app

pytestmark = pytest.mark.e2e
CATALOGUES = Path(__file__).resolve().parents[2] / "src/throne/i18n"


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, int]]:
    """A server whose data holds two live Leaders games, the first with a malformed second move: its base
    URL, the damaged game and the healthy one."""
    settings = server_settings(tmp_path_factory.mktemp("damaged"))
    with TestClient(create_app(settings)) as client:
        games = []
        for _ in range(2):
            game_id, tokens = two_player_leaders(client)
            for _ in range(2):
                seat = client.get(f"/api/games/{game_id}/view").json()["to_play"]
                headers = {"X-Seat-Token": tokens[seat]}
                mine = client.get(f"/api/games/{game_id}/view", headers=headers).json()
                body = {"move": mine["legal_moves"][0], "ply": mine["ply"]}
                r = client.post(f"/api/games/{game_id}/move", json=body, headers=headers)
                assert r.status_code == 200, r.text
            games.append(game_id)
    with sqlite3.connect(Path(settings.data_dir) / "throne.sqlite3") as c:
        c.execute("UPDATE moves SET move = 'zz9' WHERE game_id = ? AND ply = 1", (games[0],))
    with serve(settings) as base:
        yield base, games[0], games[1]


@pytest.mark.parametrize("lang", ["en", "fa", "ja"])
def test_the_table_of_a_damaged_game_says_so_and_the_lobby_leaves_it_out(
    browser: Browser, damaged: tuple[str, int, int], lang: str
) -> None:
    base, game_id, healthy = damaged
    said = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))["ui.error.game_unavailable"]
    contexts = Contexts(browser, base)
    try:
        for width, viewport in (("desktop", None), ("phone", PHONE)):
            page = contexts.page(lang=lang, viewport=viewport)
            page.goto(f"/games/{game_id}")
            expect(page.locator("#flash")).to_have_text(said)
            expect(page.locator("#away-notice")).to_be_hidden()  # no countdown: no bot will take a seat
            screenshot(page, f"damaged-game-{width}-{lang}")
        lobby = contexts.page(lang=lang)
        lobby.goto("/")
        expect(lobby.locator(f'#live-tables a[href="/games/{healthy}"]')).to_have_count(1)
        expect(lobby.locator(f'#live-tables a[href="/games/{game_id}"]')).to_have_count(0)
        assert contexts.errors == [], f"script errors in the page: {contexts.errors}"
    finally:
        contexts.close()
