"""Hidden Leaders table controls over real WebSockets, with a fake time: a rematch after everyone resigned,
a rated leaver whose seat a bot finishes (ranked last, rating lost), takebacks that need the answer of
every other person (a bot accepts in an unrated game), the finished game's word to a person whose seat a
bot played to the end (`left`: resign, timeout, abandoned), so that their page does not say they won, and the
replay of a live game, which shows a person who resigned what spectators see, no flag timer spinning for
a seat out of time, and the last move kept by a takeback described to a socket greeted after it."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, hello, read_until
from tests.server.test_controls import FISCHER, FakeTime, fake, poke
from throne.server.match import Match

__all__ = ["fake"]  # the fixture, shared with the controls tests
PASSWORD = "correct horse 1"
MANY = 20_000  # messages read at most while waiting for one (a whole game of bot moves is ~300 states)


def next_of(ws: Any, kind: str, until: Any = lambda m: True) -> dict[str, Any]:
    """The next message of `kind` for which `until` holds (others are skipped)."""
    for _ in range(MANY):
        msg = ws.receive_json()
        if msg["type"] == kind and until(msg):
            return msg
    raise AssertionError(f"no {kind} message")


def state_from(ws: Any, ply: int) -> dict[str, Any]:
    """The next state at `ply` or later."""
    return next_of(ws, "state", lambda m: m["ply"] >= ply)


def random_bots(hub: Any) -> None:
    """Bots play a random legal move drawn from the ply (the same game every run), in this process."""

    async def choose(_game: str, state: Any, _seat: int, _bot: str, *, ply: int, **_kw: Any) -> str:
        return random.Random(ply).choice(state.legal_moves())

    hub.chooser = choose


def hidden_table(
    client: TestClient, people: list[str], bots: int = 0, rated: bool = False
) -> tuple[int, dict[str, int], dict[str, str]]:
    """A live Hidden Leaders game of these people (the first creates it) and `bots` random bots;
    returns the game id, {name: engine seat} and {name: seat token}."""
    tokens: dict[str, str] = {}
    game_id = 0
    for n, name in enumerate(people):
        client.cookies.clear()
        if rated:
            body = {"username": name, "password": PASSWORD}
            r = client.post("/api/accounts/register", json=body)
            assert r.status_code in (200, 201), r.text
        else:
            as_guest(client, name)
        if n == 0:
            seats = len(people) + bots
            table_bots = {str(place): "random" for place in range(len(people), seats)}
            body = {"game": "hidden-leaders", "players": seats, "rated": rated, "bots": table_bots}
            r = client.post("/api/games", json=body)
            assert r.status_code == 201, r.text
            game_id = r.json()["game"]["id"]
        else:
            r = client.post(f"/api/games/{game_id}/join", json={})
            assert r.status_code == 200, r.text
        tokens[name] = r.json()["token"]
    client.cookies.clear()
    seat_of = {
        name: client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()["seat"]
        for name, token in tokens.items()
    }
    assert client.get(f"/api/games/{game_id}").json()["game"]["status"] == "live"
    return game_id, seat_of, tokens


def test_a_hidden_leaders_rematch_after_everyone_resigned(client: TestClient, fake: FakeTime) -> None:
    """Both people resign (bots play their seats to the end); both ask for a rematch; it starts with the same
    people, each one seat on, and the table's bot."""
    random_bots(client.app.state.hub)
    game_id, seat_of, tokens = hidden_table(client, ["ann", "bob"], bots=1)
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ann,
        client.websocket_connect(f"/ws/games/{game_id}") as bob,
    ):
        sockets = {"ann": ann, "bob": bob}
        for name, ws in sockets.items():
            hello(ws, tokens[name])
            next_of(ws, "state")
        ann.send_json({"type": "rematch"})
        assert next_of(ann, "error")["code"] == "not_finished"
        for ws in sockets.values():
            ws.send_json({"type": "resign"})
        for ws in sockets.values():
            final = next_of(ws, "state", lambda m: m["status"] == "finished")
        assert final["result"]["termination"] if "termination" in final["result"] else final["result"]
        ann.send_json({"type": "rematch"})
        assert next_of(bob, "rematch_pending")["seats"] == [seat_of["ann"]]
        bob.send_json({"type": "rematch"})
        offers = {name: next_of(ws, "rematch") for name, ws in sockets.items()}
    new_id = offers["ann"]["new_game_id"]
    assert offers["bob"]["new_game_id"] == new_id != game_id
    game = client.get(f"/api/games/{new_id}").json()["game"]
    assert game["status"] == "live" and game["game"] == "hidden-leaders"
    assert sorted(s["kind"] for s in game["seats"]) == ["bot", "human", "human"]
    for name, offer in offers.items():
        view = client.get(f"/api/games/{new_id}/view", headers={"X-Seat-Token": offer["token"]}).json()
        assert view["seat"] == (seat_of[name] + 1) % 3  # each person one seat on
        assert game["seats"][view["seat"]]["name"] == name


def _play_out(sockets: dict[int, Any]) -> dict[str, Any]:
    """The people at `sockets` ({engine seat: socket}) play random legal moves until the game ends. Every
    socket gets every state: the first socket follows the game, each other one is read up to the ply it
    must answer (its own state says whether it is its turn), and each seat answers a ply once."""
    rng = random.Random(3)
    main = min(sockets)
    state = next_of(sockets[main], "state")
    last: dict[int, dict[str, Any]] = {main: state}
    answered: set[int] = set()
    while state["status"] != "finished":
        seat, ply = state["to_play"], state["ply"]
        if seat in sockets and ply not in answered:
            if seat != main and (seat not in last or last[seat]["ply"] < ply):
                last[seat] = state_from(sockets[seat], ply)
            mine = last[seat]
            if mine["ply"] == ply and mine["your_turn"]:
                sockets[seat].send_json({"type": "move", "move": rng.choice(mine["legal_moves"]), "ply": ply})
                answered.add(ply)
        state = last[main] = next_of(sockets[main], "state")
    return state


Table = tuple[int, dict[str, int], dict[str, str], dict[str, Any]]  # game, seats, tokens, the last state


def _cem_stays_away(client: TestClient, rated: bool = False) -> Table:
    """ann, bob and cem at a table; cem never comes, so a bot takes that seat over when it must decide, and
    ann and bob play the game out. The game, the seats and tokens by name, and the last state they saw."""
    hub = client.app.state.hub
    random_bots(hub)
    game_id, seat_of, tokens = hidden_table(client, ["ann", "bob", "cem"], rated=rated)
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ann,
        client.websocket_connect(f"/ws/games/{game_id}") as bob,
    ):
        hello(ann, tokens["ann"])
        hello(bob, tokens["bob"])
        hub.settings.abandon_timeout = 0.0
        client.portal.call(hub.matches[game_id].presence_changed)
        final = _play_out({seat_of["ann"]: ann, seat_of["bob"]: bob})
    return game_id, seat_of, tokens, final


def test_a_rated_hidden_leaders_leaver_is_ranked_last_and_loses_rating(
    client: TestClient, fake: FakeTime
) -> None:
    hub = client.app.state.hub
    game_id, seat_of, _tokens, final = _cem_stays_away(client, rated=True)
    info = client.portal.call(hub.db, hub.repo.get_game, game_id)
    assert info.status == "finished" and info.rated
    leaver = info.seat(seat_of["cem"])
    assert leaver.kind == "bot" and leaver.takeover and leaver.left == "abandoned"
    ratings = {}
    for name, seat in seat_of.items():
        uid = info.seat(seat).user_id
        ratings[name] = client.get(f"/api/players/{uid}").json()["ratings"]["hidden-leaders"]
        assert ratings[name]["games"] == 1  # the rated game counted for everyone: not silently unrated
    fresh = 25.0  # OpenSkill's starting mu
    assert ratings["cem"]["mu"] < fresh  # the leaver lost, whatever the bot in their seat reached
    assert ratings["cem"]["mu"] < min(ratings["ann"]["mu"], ratings["bob"]["mu"])  # ranked last
    won = final["result"]["winner"]
    if won is not None and won != seat_of["cem"]:
        assert ratings[winner_name(seat_of, final)]["mu"] > fresh
    history = client.get(f"/api/players/{leaver.user_id}/games").json()["games"]
    assert [g["taken_over"] for g in history if g["id"] == game_id] == [True]


def winner_name(seat_of: dict[str, int], final: dict[str, Any]) -> str:
    return next(name for name, seat in seat_of.items() if seat == final["result"]["winner"])


def setup_done(client: TestClient, game_id: int, sockets: dict[str, Any], seat_of: dict[str, int]) -> dict:
    """Every person makes their setup choice (it reveals nothing) as their turn comes; returns {name: last
    state}; the game stops once the setup is over (the test's bot plays only setup choices)."""
    last: dict[str, dict[str, Any]] = {name: next_of(ws, "state") for name, ws in sockets.items()}
    while True:
        states = list(last.values())
        top = max(s["ply"] for s in states)
        newest = next(s for s in states if s["ply"] == top)
        if newest["view"].get("phase") != "setup":
            return last
        for name, ws in sockets.items():
            if last[name]["ply"] < top:
                last[name] = state_from(ws, top)
        mover = next((n for n, s in last.items() if s["your_turn"] and s["ply"] == top), None)
        if mover is not None:
            sockets[mover].send_json({"type": "move", "move": last[mover]["legal_moves"][0], "ply": top})
        name = mover or next(iter(sockets))
        last[name] = state_from(sockets[name], top + 1)


def setup_bot(hub: Any) -> None:
    """A bot that makes its setup choice at once and then thinks for ever (nothing else moves)."""

    async def choose(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        if state.phase != "setup":
            await asyncio.sleep(3600)
        return state.legal_moves()[0]

    hub.chooser = choose


def test_a_takeback_needs_every_other_person(client: TestClient, fake: FakeTime) -> None:
    setup_bot(client.app.state.hub)
    game_id, seat_of, tokens = hidden_table(client, ["ann", "bob", "cem"])
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ann,
        client.websocket_connect(f"/ws/games/{game_id}") as bob,
        client.websocket_connect(f"/ws/games/{game_id}") as cem,
    ):
        sockets = {"ann": ann, "bob": bob, "cem": cem}
        for name, ws in sockets.items():
            hello(ws, tokens[name])
        last = setup_done(client, game_id, sockets, seat_of)
        ply = max(s["ply"] for s in last.values())
        assert ply == 3
        ann.send_json({"type": "takeback_request"})
        asked = next_of(cem, "state", lambda m: m["offers"]["takeback"] is not None)
        assert asked["offers"]["takeback"] == seat_of["ann"] and asked["offers"]["takeback_accepted"] == []
        bob.send_json({"type": "takeback_answer", "accept": True})
        half = next_of(cem, "state", lambda m: m["offers"]["takeback_accepted"])
        assert half["ply"] == ply and half["offers"]["takeback_accepted"] == [seat_of["bob"]]  # cem's turn
        cem.send_json({"type": "takeback_answer", "accept": False})
        declined = next_of(ann, "state", lambda m: m["offers"]["takeback"] is None)
        assert declined["ply"] == ply and declined["offers"]["takeback_accepted"] == []
        ann.send_json({"type": "takeback_request"})
        for name in ("bob", "cem"):
            next_of(sockets[name], "state", lambda m: m["offers"]["takeback"] == seat_of["ann"])
            sockets[name].send_json({"type": "takeback_answer", "accept": True})
        back = next_of(ann, "state", lambda m: m["ply"] < ply)
    assert back["ply"] == seat_of["ann"]  # the setup goes in seat order: ann's choice and those after it
    assert back["your_turn"] and back["offers"]["takeback"] is None
    assert client.get(f"/api/games/{game_id}").json()["game"]["ply"] == seat_of["ann"]


def test_a_bot_accepts_a_takeback_in_an_unrated_game_of_three(client: TestClient, fake: FakeTime) -> None:
    setup_bot(client.app.state.hub)
    game_id, seat_of, tokens = hidden_table(client, ["ann", "bob"], bots=1)
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ann,
        client.websocket_connect(f"/ws/games/{game_id}") as bob,
    ):
        sockets = {"ann": ann, "bob": bob}
        for name, ws in sockets.items():
            hello(ws, tokens[name])
        last = setup_done(client, game_id, sockets, seat_of)
        ply = max(s["ply"] for s in last.values())
        bob.send_json({"type": "takeback_request"})
        next_of(ann, "state", lambda m: m["offers"]["takeback"] == seat_of["bob"])
        ann.send_json({"type": "takeback_answer", "accept": True})  # the bot's yes is not waited for
        back = next_of(bob, "state", lambda m: m["ply"] < ply)
    assert back["ply"] == seat_of["bob"] and back["your_turn"]


@pytest.mark.parametrize("how", ["resign", "timeout"])
def test_a_person_who_resigned_or_ran_out_of_time_is_told_so_at_the_end(
    client: TestClient, fake: FakeTime, how: str
) -> None:
    """A bot plays the seat to the end. Once the game is over the person sees their seat again (the game is
    revealed to all), and its state's `left` says why the bot's result is not theirs (the page must not say
    "You won!" when that seat won): on the socket they kept, on one opened after the end, and once the server
    forgot the finished game (read back from the store). A spectator's state carries no `left`."""
    hub = client.app.state.hub
    random_bots(hub)
    as_guest(client, "Solo")
    body = {"game": "hidden-leaders", "bot": "random", "players": 3, "time_control": FISCHER}
    r = client.post("/api/play-bot", json=body)
    assert r.status_code == 201, r.text
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as mine,
        client.websocket_connect(f"/ws/games/{game_id}") as watch,
    ):
        hello(mine, token)
        hello(watch, None, spectate=True)
        state = next_of(mine, "state", lambda m: m["your_turn"])
        assert state["left"] is None
        if how == "resign":
            mine.send_json({"type": "resign"})
        else:
            fake.ms += state["clocks"]["remaining_ms"][seat]  # the person's time runs out
            poke(client, game_id)
        out = next_of(mine, "state", lambda m: m["seat"] is None)  # a spectator's view while the bot plays
        assert out["left"] is None
        final = next_of(mine, "state", lambda m: m["status"] == "finished")
        watched = next_of(watch, "state", lambda m: m["status"] == "finished")
    assert final["seat"] == seat and final["left"] == how
    assert watched["seat"] is None and watched["left"] is None
    for forget in (False, True):
        if forget:
            hub._finished.clear()  # the finished game is read back from the store
        with client.websocket_connect(f"/ws/games/{game_id}") as again:
            hello(again, token)
            state = next_of(again, "state")
        assert state["status"] == "finished" and state["seat"] == seat and state["left"] == how


def test_a_person_away_whose_seat_a_bot_finished_is_told_so(client: TestClient, fake: FakeTime) -> None:
    """cem never comes: a bot takes the seat over and plays it to the end. When cem looks at the finished
    game, its state's `left` is "abandoned" (the bot's result is not cem's); those who played have none."""
    game_id, seat_of, tokens, final = _cem_stays_away(client)
    assert final["status"] == "finished" and final["seat"] in (seat_of["ann"], seat_of["bob"])
    assert final["left"] is None
    with client.websocket_connect(f"/ws/games/{game_id}") as cem:
        hello(cem, tokens["cem"])
        state = next_of(cem, "state")
    assert state["status"] == "finished" and state["seat"] == seat_of["cem"] and state["left"] == "abandoned"


def test_the_replay_of_a_live_game_shows_a_resigned_seat_what_spectators_see(
    client: TestClient, fake: FakeTime
) -> None:
    """A person who resigned a live game (a bot plays the seat on) is a spectator on the socket and on /view;
    the replay asked with the seat's token names no card of that seat either (the bot's draws and hand)."""
    hub = client.app.state.hub
    resigned_at: list[int] = []
    after = 25  # plies the bots play after the resignation; then they wait, and the game stays live

    async def choose(_game: str, state: Any, _seat: int, _bot: str, *, ply: int, **_kw: Any) -> str:
        if resigned_at and ply >= resigned_at[0] + after:
            await asyncio.sleep(3600)
        return random.Random(ply).choice(state.legal_moves())

    hub.chooser = choose
    as_guest(client, "Solo")
    r = client.post("/api/play-bot", json={"game": "hidden-leaders", "bot": "random", "players": 3})
    assert r.status_code == 201, r.text
    game_id, token = r.json()["game"]["id"], r.json()["token"]
    client.cookies.clear()
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        resigned_at.append(next_of(ws, "state", lambda m: m["your_turn"])["ply"])
        ws.send_json({"type": "resign"})
        next_of(ws, "state", lambda m: m["seat"] is None)
        state_from(ws, resigned_at[0] + after)
    seat_token = {"X-Seat-Token": token}
    view = client.get(f"/api/games/{game_id}/view", headers=seat_token).json()
    assert view["status"] == "live" and view["seat"] is None
    theirs = client.get(f"/api/games/{game_id}/replay?views=false", headers=seat_token).json()["steps"]
    public = client.get(f"/api/games/{game_id}/replay?views=false").json()["steps"]
    assert len(theirs) == len(public) > resigned_at[0] + after
    assert [step["events"] for step in theirs] == [step["events"] for step in public]


def test_no_flag_timer_spins_while_a_bot_thinks_for_a_seat_out_of_time(
    client: TestClient, fake: FakeTime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a person's time ran out in a game of three, a bot plays the seat on and that seat's flag no
    longer falls (its clock stays spent). While the bot thinks, no flag timer fires again and again for it
    (a timer due at once, re-armed after each check: about a hundred checks a second)."""
    hub = client.app.state.hub
    as_guest(client, "Solo")
    body = {"game": "hidden-leaders", "bot": "random", "players": 3, "time_control": FISCHER}
    r = client.post("/api/play-bot", json=body)
    assert r.status_code == 201, r.text
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]

    async def choose(_game: str, state: Any, bot_seat: int, _bot: str, *, ply: int, **_kw: Any) -> str:
        if bot_seat == seat:  # the bot in the person's place thinks for a long time
            await asyncio.sleep(60)
        return random.Random(ply).choice(state.legal_moves())

    hub.chooser = choose
    checks = 0
    check_flag = Match._check_flag

    async def counted(self: Match) -> bool:
        nonlocal checks
        checks += 1
        return await check_flag(self)

    monkeypatch.setattr(Match, "_check_flag", counted)
    with client.websocket_connect(f"/ws/games/{game_id}") as mine:
        hello(mine, token)
        state = next_of(mine, "state", lambda m: m["your_turn"])
        fake.ms += state["clocks"]["remaining_ms"][seat]  # the person's time runs out
        poke(client, game_id)
        next_of(mine, "state", lambda m: m["seat"] is None)  # the bot plays the seat now
        before = checks
        time.sleep(0.5)
        assert checks - before <= 2, f"{checks - before} flag checks in 0.5 s while the bot thought"


def _setups_then_wait(hub: Any) -> None:
    """Bots play the first legal move during the setup phase, and then think for ever (nothing else moves)."""

    async def choose(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        if state.phase != "setup":
            await asyncio.sleep(3600)
        return state.legal_moves()[0]

    hub.chooser = choose


def _first_state(client: TestClient, game_id: int, token: str | None) -> dict[str, Any]:
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        return read_until(ws, "state")[0]


def test_a_socket_greeted_after_a_takeback_is_told_the_last_move_kept(client: TestClient) -> None:
    """A 3-seat game against bots (seat 1 is the person). Seat 0 (a bot) sets up (ply 1), the person sets
    up (ply 2), seat 2 sets up (ply 3); the person asks a takeback, the bots accept and the game goes back
    to ply 1. A socket greeted now gets, in its first `state`, the events of the move kept last (seat 0's
    `setup`), as before the takeback and as in a game rebuilt from its log (`Match.describe_last`)."""
    hub = client.app.state.hub
    _setups_then_wait(hub)
    as_guest(client, "Solo")
    body = {"game": "hidden-leaders", "bot": "random", "players": 3, "side": 1}
    r = client.post("/api/play-bot", json=body)
    assert r.status_code == 201, r.text
    game_id, token = r.json()["game"]["id"], r.json()["token"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        state = read_until(ws, "state", 1)[0]
        assert state["your_turn"]
        # a fresh socket's first state at ply 1 describes seat 0's setup
        fresh = _first_state(client, game_id, token)
        assert fresh["ply"] == 1 and fresh["events"][0]["type"] == "setup" and fresh["events"][0]["seat"] == 0
        ws.send_json({"type": "move", "move": state["legal_moves"][0], "ply": 1})
        read_until(ws, "state", 3)
        ws.send_json({"type": "takeback_request", "ply": 3})
        kept = read_until(ws, "state", 1)[0]
        assert kept["your_turn"]
    again = _first_state(client, game_id, token)
    assert again["ply"] == 1
    assert again["events"] == fresh["events"], again["events"]
