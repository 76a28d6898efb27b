"""Clocks and table controls over real WebSockets, with a fake time (no sleeping): Fischer increments and
a flag fall, a correspondence game across a restart, resignations, draw offers and rated leavers."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, first_legal_bots, hello, read_until, two_seats
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.ratelimit import Limit, RateLimiter

FISCHER = {"kind": "fischer", "minutes": 1, "increment": 2}


class FakeTime:
    def __init__(self, ms: int = 1_000_000) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
def fake(client: TestClient) -> FakeTime:
    now = FakeTime()
    client.app.state.hub.now_ms = now
    return now


def table(
    client: TestClient,
    control: dict[str, Any] | None,
    rated: bool = False,
    cookies: dict[int, dict[str, str]] | None = None,
) -> tuple[int, dict[int, str]]:
    """A live two-person Leaders game with this time control; {engine seat: token} (and each seat's session
    cookies into `cookies`, when given)."""
    if rated:
        for name in ("ann", "bob"):
            client.cookies.clear()
            r = client.post("/api/accounts/register", json={"username": name, "password": "correct horse 1"})
            assert r.status_code in (200, 201), r.text
    tokens, jars = [], []
    for n, name in enumerate(("ann", "bob")):
        if rated:
            client.cookies.clear()
            r = client.post("/api/accounts/login", json={"username": name, "password": "correct horse 1"})
            assert r.status_code == 200, r.text
        else:
            as_guest(client, name)
        if n == 0:
            r = client.post(
                "/api/games", json={"game": "leaders", "players": 2, "time_control": control, "rated": rated}
            )
            assert r.status_code == 201, r.text
            game_id = r.json()["game"]["id"]
        else:
            r = client.post(f"/api/games/{game_id}/join", json={})
            assert r.status_code == 200, r.text
        tokens.append(r.json()["token"])
        jars.append(dict(client.cookies))
    client.cookies.clear()
    seats = {}
    for token, jar in zip(tokens, jars, strict=True):
        seat = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()["seat"]
        seats[seat] = token
        if cookies is not None:
            cookies[seat] = jar
    return game_id, seats


def poke(client: TestClient, game_id: int) -> None:
    client.portal.call(client.app.state.hub.matches[game_id].poke)


def test_fischer_increment_per_turn_and_a_flag_fall(client: TestClient, fake: FakeTime) -> None:
    game_id, tokens = table(client, FISCHER)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        sockets = {0: ws0, 1: ws1}
        states = {seat: read_until(ws, "state", 0)[0] for seat, ws in sockets.items()}
        state = states[0]
        clocks = state["clocks"]
        assert clocks["remaining_ms"] == [60_000, 60_000] and clocks["running"] == state["to_play"]
        assert clocks["server_time"] == fake.ms and clocks["control"] == FISCHER
        ply, spent, turns = 0, {0: 0, 1: 0}, {0: 0, 1: 0}
        while ply < 8:
            seat = state["to_play"]
            fake.ms += 1_000
            spent[seat] += 1_000
            sockets[seat].send_json({"type": "move", "move": states[seat]["legal_moves"][0], "ply": ply})
            ply += 1
            states = {s: read_until(ws, "state", ply)[0] for s, ws in sockets.items()}
            state = states[0]
            if state["to_play"] != seat:
                turns[seat] += 1  # the turn passed: the increment is added once
            want = 60_000 - spent[seat] + 2_000 * turns[seat]
            assert state["clocks"]["remaining_ms"][seat] == want
            assert state["clocks"]["running"] == state["to_play"]
        assert turns[0] + turns[1] < ply  # Leaders turns have several decisions: no increment inside one
        runner = state["to_play"]
        fake.ms += state["clocks"]["remaining_ms"][runner]
        poke(client, game_id)
        final = read_until(ws0, "state", ply)[0]
        while final["status"] != "finished":
            final = read_until(ws0, "state", ply)[0]
    assert final["result"]["termination"] == "timeout" and final["result"]["winner"] == 1 - runner
    assert final["to_play"] is None and final["clocks"]["running"] is None
    assert final["clocks"]["remaining_ms"][runner] == 0
    game = client.get(f"/api/games/{game_id}").json()["game"]
    assert game["status"] == "finished" and game["result"]["termination"] == "timeout"


def _moves_until_turn_passes(client: TestClient, game_id: int, tokens: dict[int, str]) -> int:
    """Plays first legal moves by REST until the other seat is to play; returns the ply."""
    view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[0]}).json()
    first = view["to_play"]
    while True:
        view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[first]}).json()
        if view["to_play"] != first:
            return view["ply"]
        r = client.post(
            f"/api/games/{game_id}/move",
            json={"move": view["legal_moves"][0], "ply": view["ply"]},
            headers={"X-Seat-Token": tokens[first]},
        )
        assert r.status_code == 200, r.text


def test_a_correspondence_game_resumes_across_a_restart(settings: Settings) -> None:
    day = 24 * 3_600_000
    now = FakeTime()
    settings.time_source = now
    with TestClient(create_app(settings)) as client:
        game_id, tokens = table(client, {"kind": "correspondence", "days": 1})
        now.ms += 3 * 3_600_000
        ply = _moves_until_turn_passes(client, game_id, tokens)
        now.ms += 5 * 3_600_000  # the second seat thinks five hours, then the server stops
        runner = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    now.ms += 30 * day  # a month of downtime is not charged
    with TestClient(create_app(settings)) as client, client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[runner])
        state = read_until(ws, "state", ply)[0]
        assert state["status"] == "live" and state["clocks"]["running"] == runner
        assert state["clocks"]["remaining_ms"][runner] == day - 5 * 3_600_000
        now.ms += day - 5 * 3_600_000
        poke(client, game_id)
        final = read_until(ws, "state", ply)[0]
        while final["status"] != "finished":
            final = read_until(ws, "state", ply)[0]
    assert final["result"]["termination"] == "timeout" and final["result"]["winner"] == 1 - runner


def _sockets(client: TestClient, game_id: int, tokens: dict[int, str]):
    ws = {seat: client.websocket_connect(f"/ws/games/{game_id}") for seat in tokens}
    return ws


@pytest.mark.parametrize("seat", [0, 1])
def test_resign_ends_a_leaders_game(client: TestClient, fake: FakeTime, seat: int) -> None:
    game_id, tokens = table(client, FISCHER)
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ws,
        client.websocket_connect(f"/ws/games/{game_id}") as watcher,
    ):
        hello(ws, tokens[seat])
        hello(watcher, None, spectate=True)
        read_until(ws, "state", 0)
        watcher.send_json({"type": "resign"})
        error, _ = read_until(watcher, "error")
        assert error["code"] == "spectator" and error["request"] == "resign"
        ws.send_json({"type": "resign"})
        final = read_until(ws, "state", 0)[0]
    assert final["status"] == "finished" and final["result"]["termination"] == "resign"
    assert final["result"]["winner"] == 1 - seat
    again = client.post(
        f"/api/games/{game_id}/move", json={"move": "x"}, headers={"X-Seat-Token": tokens[seat]}
    )
    assert again.status_code == 409 and again.json()["error"]["code"] == "game_over"


def test_draw_offers_declined_refused_and_accepted(client: TestClient, fake: FakeTime) -> None:
    game_id, tokens = table(client, None)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        for ws in (ws0, ws1):
            assert read_until(ws, "state", 0)[0]["clocks"] is None  # untimed
        ws1.send_json({"type": "draw_answer", "accept": True})
        assert read_until(ws1, "error")[0]["code"] == "no_offer"
        ws0.send_json({"type": "draw_answer"})
        assert read_until(ws0, "error")[0]["code"] == "bad_message"
        ws0.send_json({"type": "draw_offer"})
        offered = read_until(ws1, "state", 0)[0]
        assert offered["offers"]["draw"] == 0 and offered["offers"]["draw_allowed"]
        assert offered["status"] == "live" and offered["offers"]["takeback"] is None
        ws0.send_json({"type": "draw_offer"})
        assert read_until(ws0, "error")[0]["code"] == "offer_pending"
        ws0.send_json({"type": "draw_answer", "accept": True})
        assert read_until(ws0, "error")[0]["code"] == "no_offer"  # one's own offer is not answered
        ws1.send_json({"type": "draw_answer", "accept": False})
        declined = read_until(ws0, "state", 0)
        while declined[0]["offers"]["draw"] is not None:
            declined = read_until(ws0, "state", 0)
        ws1.send_json({"type": "draw_offer"})
        assert read_until(ws0, "state", 0)[0]["offers"]["draw"] == 1
        ws0.send_json({"type": "draw_answer", "accept": True})
        final = read_until(ws0, "state", 0)[0]
        while final["status"] != "finished":
            final = read_until(ws0, "state", 0)[0]
    assert final["result"]["winners"] == [] and final["result"]["termination"] == "agreement"
    assert final["result"]["scores"] == [0.5, 0.5]


def test_hidden_leaders_resignation_hands_the_seat_to_a_bot(client: TestClient, fake: FakeTime) -> None:
    as_guest(client, "Solo")
    r = client.post("/api/play-bot", json={"game": "hidden-leaders", "bot": "random", "players": 3})
    assert r.status_code == 201, r.text
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        ws.send_json({"type": "draw_offer"})
        assert read_until(ws, "error")[0]["code"] == "draw_unavailable"
        ws.send_json({"type": "resign"})
        table_msg = read_until(ws, "table")[0]
        while not any(s.get("takeover") for s in table_msg["game"]["seats"]):
            table_msg = read_until(ws, "table")[0]
    mine = table_msg["game"]["seats"][seat]
    assert mine["kind"] == "bot" and mine["takeover"] is True


def test_a_rated_leaver_loses_the_game_and_rating(client: TestClient, fake: FakeTime) -> None:
    game_id, tokens = table(client, None, rated=True)
    hub = client.app.state.hub
    leaver = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[1 - leaver])  # the other player stays; the one to move never comes
        read_until(ws, "state", 0)
        hub.settings.abandon_timeout = 0.0  # the absent seat to move is abandoned at once
        client.portal.call(hub.matches[game_id].presence_changed)
        final = read_until(ws, "state", 0)[0]
        while final["status"] != "finished":
            final = read_until(ws, "state", 0)[0]
    assert final["result"]["termination"] == "abandoned" and final["result"]["winner"] == 1 - leaver
    game = client.get(f"/api/games/{game_id}").json()["game"]
    assert game["status"] == "finished" and game["rated"]
    users = {s["seat"]: s["user_id"] for s in game["seats"]}
    ratings = {
        seat: client.get(f"/api/players/{uid}").json()["ratings"]["leaders"] for seat, uid in users.items()
    }
    assert ratings[leaver]["rating"] < 1500 < ratings[1 - leaver]["rating"]  # not silently unrated


def test_rematch_swaps_sides_once_both_ask(client: TestClient, fake: FakeTime) -> None:
    game_id, tokens = table(client, FISCHER)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        read_until(ws0, "state", 0)
        ws0.send_json({"type": "rematch"})
        assert read_until(ws0, "error")[0]["code"] == "not_finished"
        ws0.send_json({"type": "resign"})
        read_until(ws0, "state", 0)
        ws0.send_json({"type": "rematch"})
        assert read_until(ws1, "rematch_pending")[0]["seats"] == [0]
        ws0.send_json({"type": "rematch"})
        assert read_until(ws0, "error")[0]["code"] == "rematch_pending"
        ws1.send_json({"type": "rematch"})
        offers = {seat: read_until(ws, "rematch")[0] for seat, ws in ((0, ws0), (1, ws1))}
    new_id = offers[0]["new_game_id"]
    assert offers[1]["new_game_id"] == new_id != game_id
    for old_seat, offer in offers.items():
        view = client.get(f"/api/games/{new_id}/view", headers={"X-Seat-Token": offer["token"]}).json()
        assert view["status"] == "live" and view["seat"] == 1 - old_seat  # sides swapped
    game = client.get(f"/api/games/{new_id}").json()["game"]
    assert game["time_control"] == FISCHER


def test_a_bot_accepts_a_rematch_at_once(client: TestClient, fake: FakeTime) -> None:
    as_guest(client, "Solo")
    r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        ws.send_json({"type": "resign"})
        final = read_until(ws, "state")[0]
        while final["status"] != "finished":
            final = read_until(ws, "state")[0]
        ws.send_json({"type": "rematch"})
        offer = read_until(ws, "rematch")[0]
    view = client.get(
        f"/api/games/{offer['new_game_id']}/view", headers={"X-Seat-Token": offer["token"]}
    ).json()
    assert view["status"] == "live" and view["seat"] == 1 - seat


@pytest.mark.parametrize("by", ["token", "session"])
def test_a_returning_player_takes_the_seat_back_at_their_next_decision(
    client: TestClient, fake: FakeTime, by: str
) -> None:
    """The player comes back with the seat token, or on another device signed in as the same user."""
    jars: dict[int, dict[str, str]] = {}
    game_id, tokens = table(client, None, cookies=jars)
    hub = client.app.state.hub

    first_legal_bots(hub)
    first = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    other = 1 - first
    with client.websocket_connect(f"/ws/games/{game_id}") as ws_other:
        hello(ws_other, tokens[other])
        absent = client.get(f"/api/games/{game_id}").json()["game"]["seats"][first]
        assert absent["connected"] is False and 0 < absent["takeover_in"] <= 3600
        assert "takeover_in" not in client.get(f"/api/games/{game_id}").json()["game"]["seats"][other]
        hub.settings.abandon_timeout = 0.0  # the absent seat to move is taken over at once
        client.portal.call(hub.matches[game_id].presence_changed)
        taken = read_until(ws_other, "table")[0]
        while not taken["game"]["seats"][first].get("takeover"):
            taken = read_until(ws_other, "table")[0]
        state = read_until(ws_other, "state")[0]
        while not state["your_turn"]:  # the bot plays the absent seat's turn
            state = read_until(ws_other, "state")[0]
        hub.settings.abandon_timeout = 3600.0
        if by == "session":
            client.cookies.update(jars[first])
        with client.websocket_connect(f"/ws/games/{game_id}") as ws_back:
            welcome, _ = hello(ws_back, tokens[first] if by == "token" else None)
            assert welcome["seat"] == first
            mine = read_until(ws_back, "state", state["ply"])[0]
            assert not mine["your_turn"] and mine["left"] == "abandoned"  # the bot still plays the seat
            ply = state["ply"]
            while state["to_play"] == other:  # the other seat finishes its turn
                ws_other.send_json({"type": "move", "move": state["legal_moves"][0], "ply": ply})
                ply += 1
                state = read_until(ws_other, "state", ply)[0]
            back = read_until(ws_back, "table")[0]
            while back["game"]["seats"][first]["kind"] != "human":
                back = read_until(ws_back, "table")[0]
            mine = read_until(ws_back, "state")[0]
            while not mine["your_turn"]:
                mine = read_until(ws_back, "state")[0]
    assert mine["ply"] == ply and mine["legal_moves"] and mine["left"] is None  # theirs again, its result too
    info = client.portal.call(hub.db, hub.repo.get_game, game_id)
    seat = info.seat(first)
    assert seat.kind == "human" and seat.takeover  # the game keeps the mark: a bot played part of it
    history = client.get(f"/api/players/{seat.user_id}/games").json()["games"]
    assert [g["taken_over"] for g in history if g["id"] == game_id] == [True]  # not credited to the player
    other_user = info.seat(other).user_id
    assert [g["taken_over"] for g in client.get(f"/api/players/{other_user}/games").json()["games"]] == [
        False
    ]


def test_a_finished_game_is_rematched_once(client: TestClient, fake: FakeTime) -> None:
    """Asking again after the rematch started must not start another game each time (bots accept at once,
    so every message would start a new bot game past every cap on games with bots)."""
    as_guest(client, "Solo")
    r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
    game_id, token = r.json()["game"]["id"], r.json()["token"]
    hub = client.app.state.hub
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        ws.send_json({"type": "resign"})
        while read_until(ws, "state")[0]["status"] != "finished":
            pass
        limiter = client.app.state.limiter
        client.app.state.limiter = RateLimiter({"table:ip": Limit(0, 1)})  # no tables left for this address
        ws.send_json({"type": "rematch"})
        assert read_until(ws, "error")[0]["code"] == "rate_limited"  # the ask that makes a table pays for one
        client.app.state.limiter = limiter
        ws.send_json({"type": "rematch"})
        first = read_until(ws, "rematch")[0]["new_game_id"]
        live = set(hub.matches)
        client.app.state.limiter = RateLimiter({"table:ip": Limit(0, 1)})  # the asks below make no table
        for _ in range(3):
            ws.send_json({"type": "rematch"})
            answer = ws.receive_json()
            while answer["type"] in ("table", "spectators"):
                answer = ws.receive_json()
            assert answer["type"] == "error", answer  # not a `rematch` with yet another game
            assert answer["code"] == "rematch_done" and answer["new_game_id"] == first
    assert set(hub.matches) == live


def _chat(ws, text: Any) -> None:
    ws.send_json({"type": "chat", "text": text})


def test_chat_channels_escaping_limits_and_replay(client: TestClient, fake: FakeTime) -> None:
    client.app.state.hub.settings.chat_rate_per_s = 0.0  # a burst of 4, then nothing (no waiting on time)
    game_id, tokens = table(client, None)
    as_guest(client, "Watcher")  # the spectator's session: it writes as this guest
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ws0,
        client.websocket_connect(f"/ws/games/{game_id}") as ws1,
        client.websocket_connect(f"/ws/games/{game_id}") as watcher,
    ):
        for seat, ws in ((0, ws0), (1, ws1)):
            hello(ws, tokens[seat])
            assert read_until(ws, "chat_history")[0]["messages"] == []
        hello(watcher, None, spectate=True)
        read_until(watcher, "chat_history")
        markup = '<script>alert("x")</script> & <b>hi</b>'
        _chat(ws0, f"  {markup}  ")
        for ws in (ws0, ws1, watcher):
            got = read_until(ws, "chat")[0]["message"]
            assert (
                got["text"] == markup and got["channel"] == "players" and got["seat"] == 0
            )  # stored as text
        _chat(watcher, "spectators only")
        assert read_until(watcher, "chat")[0]["message"]["channel"] == "spectators"
        for bad in ("", "   ", "x" * 301, 7, "bell\x07"):
            _chat(ws1, bad)
            assert read_until(ws1, "error")[0]["code"] == "bad_chat"
        _chat(ws1, "x" * 300)
        assert read_until(ws0, "chat")[0]["message"]["text"] == "x" * 300  # the spectators' line never came
        for n in range(3):  # seat 1 has written once: three more use up its burst of four
            _chat(ws1, f"burst {n}")
        codes = []
        for _ in range(4):
            _chat(ws1, "one too many")
        for _ in range(20):
            msg = ws1.receive_json()
            if msg["type"] == "error":
                codes.append(msg["code"])
            if len(codes) == 4:
                break
        assert codes == ["chat_rate_limited"] * 4
        r = client.get(f"/api/games/{game_id}/chat").json()
        assert [m["channel"] for m in r["messages"]] == ["players"] * 5  # live: the players' channel only
        ws0.send_json({"type": "resign"})
        read_until(ws0, "state", 0)
    r = client.get(f"/api/games/{game_id}/chat").json()
    assert [m["text"] for m in r["messages"]][:2] == [markup, "spectators only"]


def test_a_new_socket_starts_no_fresh_chat_burst(client: TestClient, fake: FakeTime) -> None:
    """The chat limit belongs to the writer (and its address), not to one connection: reconnecting or opening
    more sockets must not buy a new burst each time (that was an unbounded stream of stored messages)."""
    client.app.state.hub.settings.chat_rate_per_s = 0.0  # a burst of 4, then nothing (no waiting on time)
    game_id, tokens = table(client, None)
    for n in range(4):
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, tokens[1])
            _chat(ws, f"line {n}")
            read_until(ws, "chat")
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[1])
        _chat(ws, "one too many")
        answer = ws.receive_json()
        while answer["type"] not in ("chat", "error"):
            answer = ws.receive_json()
        assert answer.get("code") == "chat_rate_limited", answer
    assert len(client.get(f"/api/games/{game_id}/chat").json()["messages"]) == 4


def test_a_hidden_leaders_flag_fall_hands_the_seat_to_a_bot_for_good(
    client: TestClient, fake: FakeTime
) -> None:
    hub = client.app.state.hub

    first_legal_bots(hub)
    as_guest(client, "Solo")
    body = {"game": "hidden-leaders", "bot": "random", "players": 3, "time_control": FISCHER}
    r = client.post("/api/play-bot", json=body)
    assert r.status_code == 201, r.text
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        state = read_until(ws, "state")[0]
        while not state["your_turn"]:
            state = read_until(ws, "state")[0]
        assert state["clocks"]["running"] == seat
        fake.ms += state["clocks"]["remaining_ms"][seat]  # the person's time runs out
        poke(client, game_id)
        taken = read_until(ws, "table")[0]
        while not taken["game"]["seats"][seat].get("takeover"):
            taken = read_until(ws, "table")[0]
    info = client.portal.call(hub.db, hub.repo.get_game, game_id)
    assert info.seat(seat).left == "timeout" and info.status == "live"  # the game goes on with a bot
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:  # coming back does not reclaim it
        hello(ws, token)
        read_until(ws, "state")
        match = hub.matches.get(game_id)  # (None if the bots already finished the game)
        if match is not None:
            client.portal.call(match.presence_changed)
            assert not match._returning  # only a seat left by abandonment is given back


def test_the_opponent_may_claim_the_win_once_a_bot_took_over(client: TestClient, fake: FakeTime) -> None:
    game_id, tokens = table(client, None)
    hub = client.app.state.hub

    async def slow(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        await __import__("asyncio").sleep(3600)  # the bot never answers: the claim comes first
        return state.legal_moves()[0]

    hub.chooser = slow
    first = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[1 - first])
        ws.send_json({"type": "claim_win"})
        assert read_until(ws, "error")[0]["code"] == "no_claim"  # the opponent has not left
        hub.settings.abandon_timeout = 0.0
        client.portal.call(hub.matches[game_id].presence_changed)
        taken = read_until(ws, "table")[0]
        while not taken["game"]["seats"][first].get("takeover"):
            taken = read_until(ws, "table")[0]
        ws.send_json({"type": "claim_win"})
        final = read_until(ws, "state")[0]
        while final["status"] != "finished":
            final = read_until(ws, "state")[0]
    assert final["result"]["winner"] == 1 - first and final["result"]["termination"] == "abandoned"


def test_a_bots_thinking_time_runs_on_its_own_clock(client: TestClient, fake: FakeTime) -> None:
    hub = client.app.state.hub
    think_ms = 7_000

    async def slow_bot(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        fake.ms += think_ms  # the bot thinks seven seconds of the fake time per decision
        return state.legal_moves()[0]

    hub.chooser = slow_bot
    as_guest(client, "Solo")
    body = {"game": "leaders", "bot": "random", "time_control": FISCHER, "side": 0}
    r = client.post("/api/play-bot", json=body)
    assert r.status_code == 201, r.text
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]
    bot, decisions = 1 - seat, 0
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        state = read_until(ws, "state", 0)[0]
        assert state["to_play"] == seat  # South opens: the person plays a turn without spending time
        while state["to_play"] == seat:
            ws.send_json({"type": "move", "move": state["legal_moves"][-1], "ply": state["ply"]})
            state = read_until(ws, "state", state["ply"] + 1)[0]
        mine = state["clocks"]["remaining_ms"][seat]
        while state["to_play"] != seat:  # the bot's whole turn
            state = read_until(ws, "state", state["ply"] + 1)[0]
            decisions += 1
    assert decisions > 0 and state["clocks"]["running"] == seat
    assert state["clocks"]["remaining_ms"][bot] == 60_000 - think_ms * decisions + 2_000  # one increment
    assert state["clocks"]["remaining_ms"][seat] == mine  # the person's clock did not run meanwhile
