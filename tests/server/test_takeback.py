"""Takebacks and undos over real WebSockets, with a fake time: asked, declined and accepted by a person,
accepted by a bot, refused past a market refill (Leaders) or a revealed card (Hidden Leaders) and while
another seat decides, an undo within one's own turn, and the position kept across a restart."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, first_legal_bots, hello, read_until, two_seats
from tests.server.test_controls import FISCHER, FakeTime, fake, table
from throne.server.app import create_app
from throne.server.config import Settings

__all__ = ["fake"]  # the fixture, shared with the controls tests


def _settled(ws: Any, ply: int, until: Any) -> dict[str, Any]:
    state = read_until(ws, "state", ply)[0]
    while not until(state):
        state = read_until(ws, "state", ply)[0]
    return state


def _piece_move(state: dict[str, Any]) -> str:
    """A Leaders move that recruits nothing (it reveals nothing): a piece's move or the end of the actions."""
    return next(m for m in state["legal_moves"] if not m.startswith("+"))


def _opening(ws0: Any, ws1: Any) -> tuple[dict[int, dict[str, Any]], int, Any, Any]:
    """Each seat's first state, the seat to play first, its socket and the other seat's socket."""
    sockets = {0: ws0, 1: ws1}
    states = {seat: read_until(ws, "state", 0)[0] for seat, ws in sockets.items()}
    first = states[0]["to_play"]
    return states, first, sockets[first], sockets[1 - first]


def test_a_person_declines_then_accepts_a_takeback(client: TestClient, fake: FakeTime) -> None:
    game_id, tokens = table(client, None, rated=True)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        states, first, me, other = _opening(ws0, ws1)
        other.send_json({"type": "takeback_request"})
        assert read_until(other, "error")[0]["code"] == "nothing_to_take_back"
        me.send_json({"type": "undo"})
        assert read_until(me, "error")[0]["code"] == "undo_unavailable"  # a rated game
        me.send_json({"type": "move", "move": _piece_move(states[first]), "ply": 0})
        moved = read_until(other, "state", 1)[0]
        me.send_json({"type": "takeback_request"})
        asked = _settled(other, 1, lambda s: s["offers"]["takeback"] == first)
        assert asked["ply"] == 1 and not asked["offers"]["undo_allowed"]
        me.send_json({"type": "takeback_request"})
        assert read_until(me, "error")[0]["code"] == "offer_pending"
        me.send_json({"type": "takeback_answer", "accept": True})
        assert read_until(me, "error")[0]["code"] == "no_offer"  # one's own request is not answered
        other.send_json({"type": "takeback_answer"})
        assert read_until(other, "error")[0]["code"] == "bad_message"
        other.send_json({"type": "takeback_answer", "accept": False})
        declined = _settled(me, 1, lambda s: s["offers"]["takeback"] is None)
        assert declined["status"] == "live"
        me.send_json({"type": "takeback_request"})
        _settled(other, 1, lambda s: s["offers"]["takeback"] == first)
        other.send_json({"type": "takeback_answer", "accept": True})
        back = read_until(me, "state", 0)[0]
        assert back["legal_moves"] == states[first]["legal_moves"] and back["to_play"] == first
        assert read_until(other, "state", 0)[0]["view"] == states[1 - first]["view"]
        assert moved["ply"] == 1
    assert client.get(f"/api/games/{game_id}").json()["game"]["ply"] == 0


def test_no_takeback_past_a_market_refill(client: TestClient, fake: FakeTime) -> None:
    game_id, tokens = table(client, None)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        sockets = {0: ws0, 1: ws1}
        state = {seat: read_until(ws, "state", 0)[0] for seat, ws in sockets.items()}[0]
        first, ply, played = state["to_play"], 0, []
        view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[first]}).json()
        while view["to_play"] == first:  # the whole first turn: it ends with a recruit from the market
            move = view["legal_moves"][0]
            sockets[first].send_json({"type": "move", "move": move, "ply": ply})
            ply += 1
            played.append(move)
            read_until(sockets[first], "state", ply)
            view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[first]}).json()
        assert any(m.startswith("+") for m in played)
        sockets[first].send_json({"type": "takeback_request"})
        error = read_until(sockets[first], "error")[0]
        assert error["code"] == "revealed" and error["request"] == "takeback_request"
    assert client.get(f"/api/games/{game_id}").json()["game"]["ply"] == ply


def test_undo_within_ones_own_turn(client: TestClient, fake: FakeTime) -> None:
    game_id, tokens = table(client, FISCHER)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        states, first, me, other = _opening(ws0, ws1)
        assert states[first]["offers"]["undo_allowed"]
        fake.ms += 5_000
        me.send_json({"type": "move", "move": _piece_move(states[first]), "ply": 0})
        moved = read_until(me, "state", 1)[0]
        assert moved["to_play"] == first and moved["clocks"]["remaining_ms"][first] == 55_000
        other.send_json({"type": "undo"})
        assert read_until(other, "error")[0]["code"] == "not_your_turn"
        fake.ms += 3_000
        me.send_json({"type": "undo"})
        back = read_until(me, "state", 0)[0]
        assert back["legal_moves"] == states[first]["legal_moves"]
        assert back["clocks"]["remaining_ms"] == [60_000, 60_000]  # the clock of the position kept
        me.send_json({"type": "undo"})
        assert read_until(me, "error")[0]["code"] == "nothing_to_undo"


def test_an_undo_or_takeback_sent_again_with_its_ply_is_refused_stale(
    client: TestClient, fake: FakeTime
) -> None:
    """A client that sends its request again (its first answer lost, e.g. `owner_unavailable` in a
    cluster) takes back one move, not two: the ply it was asked at is gone."""
    game_id, tokens = table(client, None)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        states, first, me, other = _opening(ws0, ws1)
        state = states[first]
        for ply in (0, 1):  # two decisions of the first turn, both mine
            me.send_json({"type": "move", "move": _piece_move(state), "ply": ply})
            state = read_until(me, "state", ply + 1)[0]
        assert state["to_play"] == first
        read_until(other, "state", 2)
        me.send_json({"type": "undo", "ply": 2})
        read_until(me, "state", 1)
        for again in ({"type": "undo", "ply": 2}, {"type": "takeback_request", "ply": 2}):
            me.send_json(again)
            me.send_json({"type": "dance"})  # answered bad_message: the first error answers `again`
            error = read_until(me, "error")[0]
            assert (error["code"], error.get("request")) == ("stale", again["type"]), error
            assert read_until(me, "error")[0]["code"] == "bad_message"
        me.send_json({"type": "takeback_request", "ply": 1})
        _settled(other, 1, lambda s: s["offers"]["takeback"] == first)
        other.send_json({"type": "takeback_answer", "accept": True})
        read_until(me, "state", 0)
    assert client.get(f"/api/games/{game_id}").json()["game"]["ply"] == 0


def test_a_bot_accepts_a_takeback_in_an_unrated_game(client: TestClient, fake: FakeTime) -> None:
    hub = client.app.state.hub

    first_legal_bots(hub)
    as_guest(client, "Solo")
    r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
    assert r.status_code == 201, r.text
    game_id, token = r.json()["game"]["id"], r.json()["token"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        state = _settled(ws, None, lambda s: s["your_turn"])
        ply = state["ply"]
        ws.send_json({"type": "move", "move": _piece_move(state), "ply": ply})
        read_until(ws, "state", ply + 1)
        ws.send_json({"type": "takeback_request"})
        back = read_until(ws, "state", ply)[0]
    assert back["legal_moves"] == state["legal_moves"] and back["offers"]["takeback"] is None


def test_the_position_kept_survives_a_restart(settings: Settings) -> None:
    now = FakeTime()
    settings.time_source = now
    with TestClient(create_app(settings)) as client:
        game_id, tokens = table(client, FISCHER)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws0:
            hello(ws0, tokens[0])
            state = read_until(ws0, "state", 0)[0]
        first = state["to_play"]
        view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[first]}).json()
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, tokens[first])
            read_until(ws, "state", 0)
            shown = view
            for ply in range(2):
                now.ms += 2_000
                ws.send_json({"type": "move", "move": _piece_move(shown), "ply": ply})
                shown = read_until(ws, "state", ply + 1)[0]
            ws.send_json({"type": "undo"})
            kept = read_until(ws, "state", 1)[0]
        assert kept["clocks"]["remaining_ms"][first] == 58_000
    with TestClient(create_app(settings)) as again, again.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[first])
        after = read_until(ws, "state")[0]
        assert after["ply"] == 1 and after["legal_moves"] == kept["legal_moves"]
        assert after["view"] == kept["view"]
        assert after["clocks"]["remaining_ms"] == kept["clocks"]["remaining_ms"]
        now.ms += 4_000
        ws.send_json({"type": "move", "move": _piece_move(after), "ply": 1})
        read_until(ws, "state", 2)
    with TestClient(create_app(settings)) as third, third.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[first])
        read_until(ws, "state", 2)
        ws.send_json({"type": "undo"})  # a move stored before the restart: its clock comes from the store
        again_kept = read_until(ws, "state", 1)[0]
        assert again_kept["clocks"]["remaining_ms"] == kept["clocks"]["remaining_ms"]
        assert again_kept["legal_moves"] == kept["legal_moves"]


def test_hidden_leaders_refuses_past_a_revealed_card_and_while_another_seat_decides(
    client: TestClient, fake: FakeTime
) -> None:
    hub = client.app.state.hub

    refused: set[str] = set()
    hanging: list[int] = []

    async def bot(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        if state.phase == "resolve" and refused == {"revealed"}:
            hanging.append(state.to_play)
            hub.broadcast_state(hub.matches[game_id])  # the reader wakes up and sees the pending decision
            await asyncio.sleep(3600)  # the bot's decision stays pending
        plays = [m for m in state.legal_moves() if m.startswith("play")]
        return (plays or state.legal_moves())[0]

    hub.chooser = bot
    as_guest(client, "Solo")
    body = {"game": "hidden-leaders", "bot": "random", "players": 3}
    r = client.post("/api/play-bot", json=body)
    assert r.status_code == 201, r.text
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        state = read_until(ws, "state")[0]
        for _ in range(400):
            if refused == {"revealed", "decision_pending"}:
                break
            if hanging:
                assert hanging[0] != seat
                ws.send_json({"type": "takeback_request"})
                assert read_until(ws, "error")[0]["code"] == "decision_pending"
                refused.add("decision_pending")
                break
            if state["your_turn"]:
                plays = [m for m in state["legal_moves"] if m.startswith("play")]
                ws.send_json(
                    {"type": "move", "move": (plays or state["legal_moves"])[0], "ply": state["ply"]}
                )
                after = read_until(ws, "state", state["ply"] + 1)[0]
                if plays and "revealed" not in refused:
                    ws.send_json({"type": "takeback_request"})  # a card played face up is known to all
                    error = read_until(ws, "error")[0]
                    # the card asks another seat first, or it is known to all: no takeback either way
                    assert error["code"] in ("revealed", "decision_pending")
                    refused.add(error["code"])
                state = after
            else:
                state = read_until(ws, "state")[0]
    assert refused == {"revealed", "decision_pending"}
