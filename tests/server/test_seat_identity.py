"""A socket acts for the seat it said hello with, and for no other: not after its seat left the table (the
next joiner may get the same seat row), not when the table starts while its hello is being read, not when
its hello asked to spectate. And a replay shows the moves played, after a takeback too."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import (
    as_guest,
    hello,
    join_as,
    read_until,
    seat_view,
    two_player_leaders,
    two_seats,
)


def _table(client: TestClient, players: int, **options: Any) -> tuple[int, str]:
    as_guest(client, "Cleo")
    r = client.post("/api/games", json={"game": "hidden-leaders", "players": players, **options})
    assert r.status_code == 201, r.text
    return r.json()["game"]["id"], r.json()["token"]


def test_the_socket_of_a_seat_that_left_watches_the_game_that_starts(client: TestClient) -> None:
    game_id, _ = _table(client, 3)
    eve = join_as(client, game_id, "Eve")
    with client.websocket_connect(f"/ws/games/{game_id}") as socket:
        hello(socket, eve)
        left = client.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": eve})
        assert left.status_code == 200, left.text
        bob = join_as(client, game_id, "Bob")  # may be given the row Eve's seat had
        join_as(client, game_id, "Dan")  # the table is full and starts
        state, _ = read_until(socket, "state")
        bobs = seat_view(client, game_id, bob)
    assert state["seat"] is None and not state["your_turn"] and state["legal_moves"] == []
    assert bobs["view"]["hands"][bobs["seat"]] != state["view"]["hands"][bobs["seat"]]  # a count, not cards


def test_a_hello_read_while_the_table_starts_gets_its_engine_seat(client: TestClient) -> None:
    hub = client.app.state.hub
    game_id, creator = _table(client, 2, side=1)  # the creator plays engine seat 1, its table place is 0
    read = hub.repo.game_and_seat

    def slow_read(*args: Any, **kwargs: Any) -> Any:  # read before the start, answered after it
        found = read(*args, **kwargs)
        time.sleep(1.0)
        return found

    slow_read.store_reads = True  # type: ignore[attr-defined]
    hub.repo.game_and_seat = slow_read
    seen: dict[str, Any] = {}

    def creator_socket() -> None:
        with client.websocket_connect(f"/ws/games/{game_id}") as socket:
            hello(socket, creator)
            seen["state"], _ = read_until(socket, "state")

    thread = threading.Thread(target=creator_socket)
    try:
        thread.start()
        time.sleep(0.3)  # the hello is reading
        join_as(client, game_id, "Joe")  # the table starts meanwhile
        thread.join(10)
    finally:
        hub.repo.game_and_seat = read
    assert not thread.is_alive()
    assert seen["state"]["seat"] == seat_view(client, game_id, creator)["seat"] == 1


def test_a_replay_after_a_takeback_shows_the_move_played_instead(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    with two_seats(client, game_id, tokens) as sockets:
        mover = seat_view(client, game_id, tokens[0])["to_play"]
        socket = sockets[mover]
        first, instead = seat_view(client, game_id, tokens[mover])["legal_moves"][:2]
        socket.send_json({"type": "move", "move": first, "ply": 0})
        read_until(socket, "state", ply=1)
        assert client.get(f"/api/games/{game_id}/replay").json()["steps"][-1]["move"] == first
        socket.send_json({"type": "undo"})
        read_until(socket, "state", ply=0)
        socket.send_json({"type": "move", "move": instead, "ply": 0})
        read_until(socket, "state", ply=1)
        assert client.get(f"/api/games/{game_id}/replay").json()["steps"][-1]["move"] == instead


def test_a_hello_with_a_seat_token_that_asks_to_spectate_spectates(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as socket:
        socket.send_json({"type": "hello", "token": tokens[0], "spectate": True})
        welcome, _ = read_until(socket, "welcome")
        state, _ = read_until(socket, "state")
    assert welcome["seat"] is None and state["seat"] is None and state["legal_moves"] == []


def test_a_person_who_resigned_sees_what_spectators_see_while_a_bot_plays_on(client: TestClient) -> None:
    hub = client.app.state.hub

    async def slow_bot(_game: str, state: Any, _seat: int, _bot: str, **_kw: Any) -> str:
        await asyncio.sleep(0.05)  # the game goes on long enough to be watched
        return state.legal_moves()[0]

    hub.chooser = slow_bot
    as_guest(client, "Solo")
    r = client.post("/api/play-bot", json={"game": "hidden-leaders", "bot": "random", "players": 3})
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]
    with client.websocket_connect(f"/ws/games/{game_id}") as socket:
        hello(socket, token)
        mine, _ = read_until(socket, "state")
        assert mine["seat"] == seat and isinstance(mine["view"]["hands"][seat], list)  # their own cards
        socket.send_json({"type": "resign"})
        watched: list[dict[str, Any]] = []  # the states once the bot took the seat over
        for _ in range(20):
            state, _ = read_until(socket, "state")
            if state["seat"] is None or watched:
                watched.append(state)
            if len(watched) == 3:
                break
        view = seat_view(client, game_id, token)
    assert len(watched) == 3
    for message in (*watched, view):  # the seat's hand is a count: the bot's cards are not shown
        assert message["status"] == "live" and message["seat"] is None, message
        assert set(message["view"]["hands"][seat]) == {"count"} and message["view"]["leaders"][seat] is None
