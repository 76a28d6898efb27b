"""Offers (takebacks, draws) and the caps on bot games when a seat changes hands: a person resigns, runs
out of time or is away, and a bot plays the seat on. An offer stands for a person; once the seat is a bot's,
what the person asked (or had to answer) acts for them no more."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import hello, read_until
from tests.server.test_controls import FakeTime, fake, table
from tests.server.test_hidden_controls import hidden_table, next_of, setup_bot, setup_done

__all__ = ["fake"]  # the fixture, shared with the controls tests
PASSWORD = "correct horse 1"


def _reply(ws: Any, before: int) -> dict[str, Any]:
    """The next error on `ws`, or the next state whose ply went back below `before` (a takeback made)."""
    for _ in range(200):
        msg = ws.receive_json()
        if msg["type"] == "error" or (msg["type"] == "state" and msg["ply"] < before):
            return msg
    raise AssertionError("no error and no takeback")


@contextlib.contextmanager
def _ann_asked(
    client: TestClient, rated: bool = False
) -> Iterator[tuple[int, dict[str, Any], dict[str, int], int]]:
    """Hidden Leaders of ann, bob and cem, each on a socket, past the set-up; ann has asked for a takeback
    and the others saw it: the game id, {name: socket}, {name: engine seat} and the ply."""
    setup_bot(client.app.state.hub)
    game_id, seat_of, tokens = hidden_table(client, ["ann", "bob", "cem"], rated=rated)
    with contextlib.ExitStack() as stack:
        sockets = {n: stack.enter_context(client.websocket_connect(f"/ws/games/{game_id}")) for n in tokens}
        for name, ws in sockets.items():
            hello(ws, tokens[name])
        ply = max(s["ply"] for s in setup_done(client, game_id, sockets, seat_of).values())
        sockets["ann"].send_json({"type": "takeback_request"})
        for name in ("bob", "cem"):
            next_of(sockets[name], "state", lambda m: m["offers"]["takeback"] == seat_of["ann"])
        yield game_id, sockets, seat_of, ply


def _ply(client: TestClient, game_id: int) -> int:
    return int(client.get(f"/api/games/{game_id}").json()["game"]["ply"])


def test_a_takeback_request_is_dropped_when_its_asker_resigns(client: TestClient, fake: FakeTime) -> None:
    """ann asks to take her move back, then resigns: a bot plays her seat to the end. Her request goes
    with her: the others' yes does not take back a move of a seat that is no longer a person's (a resigned
    person "gets what spectators get" and cannot act for the seat: `not_your_seat`)."""
    with _ann_asked(client) as (game_id, sockets, _seat_of, ply):
        ann, bob, cem = sockets.values()
        ann.send_json({"type": "resign"})
        next_of(ann, "state", lambda m: m["seat"] is None)  # a bot plays ann's seat now
        bob.send_json({"type": "takeback_answer", "accept": True})
        cem.send_json({"type": "takeback_answer", "accept": True})
        replies = [_reply(bob, ply), _reply(cem, ply)]
    assert [(m["type"], m.get("code")) for m in replies] == [("error", "no_offer")] * 2, (
        f"the resigned seat's move was taken back: ply {ply} -> {[m.get('ply') for m in replies]}"
    )
    assert _ply(client, game_id) == ply


def test_a_rated_takeback_is_not_made_once_a_bot_plays_a_seat(client: TestClient, fake: FakeTime) -> None:
    """Rated Hidden Leaders: ann asks a takeback, cem resigns (a bot plays cem's seat), bob accepts. The docs:
    "with no other person at the table the bots answer at once: they accept in unrated games and decline in
    rated ones (`takeback_declined`)" and "bots at the table count as accepting in unrated games": a bot at a
    rated table declines, so the takeback is not made (ann asking now gets `takeback_declined`)."""
    with _ann_asked(client, rated=True) as (game_id, sockets, _seat_of, ply):
        _ann, bob, cem = sockets.values()
        cem.send_json({"type": "resign"})
        next_of(cem, "state", lambda m: m["seat"] is None)
        bob.send_json({"type": "takeback_answer", "accept": True})
        reply = _reply(bob, ply)
    assert reply["type"] == "error", f"the rated game went back to ply {reply.get('ply')} with a bot seated"
    assert _ply(client, game_id) == ply


def test_a_takeback_every_remaining_person_accepted_is_made_when_the_last_one_resigns(
    client: TestClient, fake: FakeTime
) -> None:
    """Unrated: ann asks, bob accepts, cem (the last one to answer) resigns instead. The docs: "once every
    other person accepted it is made (...; bots at the table count as accepting in unrated games)". Every
    other person has accepted now, so the takeback is made (it does not hang with ann unable to ask again)."""
    with _ann_asked(client) as (game_id, sockets, seat_of, ply):
        _ann, bob, cem = sockets.values()
        bob.send_json({"type": "takeback_answer", "accept": True})
        next_of(cem, "state", lambda m: m["offers"]["takeback_accepted"] == [seat_of["bob"]])
        cem.send_json({"type": "resign"})
        next_of(cem, "state", lambda m: m["seat"] is None)
        deadline = time.monotonic() + 2.0
        while _ply(client, game_id) == ply and time.monotonic() < deadline:
            time.sleep(0.05)
        offers = client.portal.call(client.app.state.hub.matches[game_id].offers)
    assert _ply(client, game_id) < ply, f"the takeback every person accepted still waits: {offers}"


def test_resigning_a_game_against_bots_does_not_make_it_a_table_of_bots_only(
    client: TestClient, fake: FakeTime
) -> None:
    """A registered player resigns a Hidden Leaders game against bots (POST /api/play-bot); a bot plays
    their seat on. The docs' caps: "tables of bots only for registered accounts (403 account_needed), one
    each" — a table of bots only is one made with nobody sitting ("a table of bots only needs a registered
    account"); a resigned person's seat is a take-over seat ("take-over bots aside"), not a bot of the
    table. So the player may still start their one table of bots only."""
    hub = client.app.state.hub

    async def never(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        await asyncio.sleep(3600)  # the bots never move: the game stays live
        return str(state.legal_moves()[0])

    hub.chooser = never
    client.cookies.clear()
    r = client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    assert r.status_code in (200, 201), r.text
    r = client.post("/api/play-bot", json={"game": "hidden-leaders", "bot": "random", "players": 3})
    assert r.status_code == 201, r.text
    game_id, token = r.json()["game"]["id"], r.json()["token"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        ws.send_json({"type": "resign"})
        next_of(ws, "state", lambda m: m["seat"] is None)
    seats = client.get(f"/api/games/{game_id}").json()["game"]["seats"]
    assert [s["kind"] for s in seats] == ["bot"] * 3 and sum(bool(s.get("takeover")) for s in seats) == 1
    body = {"game": "leaders", "players": 2, "sit": False, "bots": {"0": "random", "1": "random"}}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text


def test_a_draw_offer_from_a_seat_a_bot_took_over_cannot_be_accepted(
    client: TestClient, fake: FakeTime
) -> None:
    """Unrated Leaders: the seat to move offers a draw, then its player goes away and a bot takes the seat
    over. A bot never agrees a draw ("a bot opponent declines at once (`draw_declined`)"), and what the
    absent person offered is no longer theirs to stand by: the offer goes with the seat (the opponent may
    `claim_win` instead): the game does not end drawn "by agreement" with a bot."""
    game_id, tokens = table(client, None)
    hub = client.app.state.hub

    async def never(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        await asyncio.sleep(3600)  # the take-over bot never moves (a move of the other seat would decline)
        return str(state.legal_moves()[0])

    hub.chooser = never
    first = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    with client.websocket_connect(f"/ws/games/{game_id}") as other:
        hello(other, tokens[1 - first])
        with client.websocket_connect(f"/ws/games/{game_id}") as leaver:
            hello(leaver, tokens[first])
            leaver.send_json({"type": "draw_offer"})
            offered = read_until(other, "state")[0]
            while offered["offers"]["draw"] != first:
                offered = read_until(other, "state")[0]
        hub.settings.abandon_timeout = 0.0  # the absent seat to move is taken over at once
        client.portal.call(hub.matches[game_id].presence_changed)
        taken = read_until(other, "table")[0]
        while not taken["game"]["seats"][first].get("takeover"):
            taken = read_until(other, "table")[0]
        other.send_json({"type": "draw_answer", "accept": True})
        reply = other.receive_json()
        while reply["type"] != "error" and not (reply["type"] == "state" and reply["status"] == "finished"):
            reply = other.receive_json()
    game = client.get(f"/api/games/{game_id}").json()["game"]
    assert game["status"] == "live", f"drawn by agreement with a bot: {game['result']}"
    assert reply["type"] == "error" and reply["code"] == "no_offer"
