"""Rematch offers are stored with the game: a server restart between two asks keeps the first one, the
finished game's state shows who asked, once the rematch is made any later ask names it, and an ask made
while it is being made waits for it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import hello, next_of_kinds, read_until, two_seats
from tests.server.test_controls import FakeTime, table
from throne.server.app import create_app
from throne.server.config import Settings


def _finished_state(ws) -> dict:
    state = read_until(ws, "state")[0]
    while state["status"] != "finished":
        state = read_until(ws, "state")[0]
    return state


def test_a_rematch_offer_survives_a_restart(settings: Settings) -> None:
    settings.time_source = FakeTime()
    with TestClient(create_app(settings)) as client:
        game_id, tokens = table(client, None)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws0:
            hello(ws0, tokens[0])
            ws0.send_json({"type": "resign"})
            _finished_state(ws0)
            ws0.send_json({"type": "rematch"})
            assert read_until(ws0, "rematch_pending")[0]["seats"] == [0]
    with TestClient(create_app(settings)) as client:  # a restart: nothing of the ask is in memory
        with two_seats(client, game_id, tokens) as (ws0, ws1):
            shown = read_until(ws1, "state")[0]
            assert shown["status"] == "finished"
            assert shown["offers"]["rematch"] == [0] and shown["offers"]["rematch_game"] is None
            ws0.send_json({"type": "rematch"})
            assert read_until(ws0, "error")[0]["code"] == "rematch_pending"  # the ask was kept
            ws1.send_json({"type": "rematch"})
            offers = {seat: read_until(ws, "rematch")[0] for seat, ws in ((0, ws0), (1, ws1))}
        new_id = offers[0]["new_game_id"]
        assert offers[1]["new_game_id"] == new_id != game_id
        for seat, offer in offers.items():
            view = client.get(f"/api/games/{new_id}/view", headers={"X-Seat-Token": offer["token"]}).json()
            assert view["status"] == "live" and view["seat"] == 1 - seat
    with TestClient(create_app(settings)) as client, client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[1])
        assert read_until(ws, "state")[0]["offers"]["rematch_game"] == new_id
        ws.send_json({"type": "rematch"})  # no second rematch after a restart either
        error = read_until(ws, "error")[0]
        assert error["code"] == "rematch_done" and error["new_game_id"] == new_id
        assert list(client.app.state.hub.matches) == [new_id]  # the one rematch, resumed


def test_an_ask_from_a_second_tab_while_the_rematch_is_made_waits_for_it(settings: Settings) -> None:
    """Ann asked; Bob asks from two tabs at once (a double click, two devices), the second while the first
    is writing the new table. The second tab is told the rematch is on its way (`rematch_pending`) and then
    gets the `rematch` message with the new game, never a `rematch_done` naming no game (`new_game_id` 0,
    the mark of a table being made)."""
    with TestClient(create_app(settings)) as client:
        hub = client.app.state.hub
        game_id, tokens = table(client, None)
        with (
            client.websocket_connect(f"/ws/games/{game_id}") as ws0,
            client.websocket_connect(f"/ws/games/{game_id}") as ws1,
            client.websocket_connect(f"/ws/games/{game_id}") as tab,
        ):
            for ws, seat in ((ws0, 0), (ws1, 1), (tab, 1)):
                hello(ws, tokens[seat])
            ws0.send_json({"type": "resign"})
            for ws in (ws0, ws1, tab):
                _finished_state(ws)
            ws0.send_json({"type": "rematch"})
            for ws in (ws1, tab):
                read_until(ws, "rematch_pending")
            db = hub.db

            async def slow_table(fn: Any, *args: Any, **kwargs: Any) -> Any:  # the store writes it slowly
                if fn == hub.repo.create_game and kwargs.get("rematch_of") is not None:
                    await asyncio.sleep(0.5)
                return await db(fn, *args, **kwargs)

            hub.db = slow_table
            try:
                ws1.send_json({"type": "rematch"})
                time.sleep(0.1)
                tab.send_json({"type": "rematch"})
                made = read_until(ws1, "rematch")[0]
                answers = [next_of_kinds(tab, ("rematch", "error"))]
                while answers[-1]["type"] != "rematch":
                    answers.append(next_of_kinds(tab, ("rematch", "error")))
            finally:
                hub.db = db
    errors = [(m["code"], m.get("new_game_id")) for m in answers if m["type"] == "error"]
    assert errors == [("rematch_pending", None)], errors
    assert answers[-1]["new_game_id"] == made["new_game_id"]
