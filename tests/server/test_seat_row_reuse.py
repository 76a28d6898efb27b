"""A seat row's id is a socket's identity at a table (`Conn.occupant`): the socket of a seat that left must
never act as the next person to join. `Hub.leave` demotes the sockets it knows of, but a hello that read the
seat just before the leave joins the hub after it, still holding the old row id; had SQLite given that id to
the next joiner (the largest rowid is reused without AUTOINCREMENT), the table's start would seat the
leaver's socket as the joiner: their hidden cards, their moves."""

from __future__ import annotations

import threading
from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, hello, join_as, read_until, seat_view


def _seat_id(client: TestClient, game_id: int, name: str) -> int:
    return next(s.id for s in client.app.state.hub.repo.get_game(game_id).seats if s.name == name)


def test_a_hello_read_before_its_seat_left_never_acts_as_the_next_joiner(client: TestClient) -> None:
    hub = client.app.state.hub
    as_guest(client, "Cleo")
    r = client.post("/api/games", json={"game": "hidden-leaders", "players": 3})
    assert r.status_code == 201, r.text
    game_id = r.json()["game"]["id"]
    eve = join_as(client, game_id, "Eve")  # the newest seat row: the largest id
    eve_id = _seat_id(client, game_id, "Eve")
    read = hub.repo.game_and_seat
    reading, answer = threading.Event(), threading.Event()

    def held_read(*args: Any, **kwargs: Any) -> Any:  # read before Eve leaves, answered after Bob joined
        found = read(*args, **kwargs)
        reading.set()
        assert answer.wait(5)
        return found

    held_read.store_reads = True  # type: ignore[attr-defined]
    seen: dict[str, Any] = {}
    welcomed = threading.Event()

    def eves_socket() -> None:
        with client.websocket_connect(f"/ws/games/{game_id}") as socket:
            hello(socket, eve)
            welcomed.set()
            seen["state"], _ = read_until(socket, "state")
            socket.send_json({"type": "resign"})  # as Bob, had it been seated as Bob
            socket.send_json({"type": "ping"})
            _, seen["answers"] = read_until(socket, "pong")

    thread = threading.Thread(target=eves_socket)
    hub.repo.game_and_seat = held_read
    try:
        thread.start()
        assert reading.wait(5)
        hub.repo.game_and_seat = read
        left = client.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": eve})
        assert left.status_code == 200, left.text
        bob = join_as(client, game_id, "Bob")
        bob_id = _seat_id(client, game_id, "Bob")
        answer.set()
        assert welcomed.wait(5)
        join_as(client, game_id, "Dan")  # the table is full and starts
        thread.join(10)
    finally:
        hub.repo.game_and_seat = read
        answer.set()
    assert not thread.is_alive()
    bobs = seat_view(client, game_id, bob)
    assert bobs["status"] == "live" and bobs["seat"] is not None  # Bob did not resign through Eve's socket
    state = seen["state"]
    assert state["seat"] is None and not state["your_turn"] and state["legal_moves"] == []
    assert set(state["view"]["hands"][bobs["seat"]]) == {"count"}  # not Bob's cards
    assert [m.get("code") for m in seen["answers"] if m["type"] == "error"] == ["spectator"]
    assert bob_id > eve_id  # a new id: SQLite without AUTOINCREMENT gave Bob Eve's
