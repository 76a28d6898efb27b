"""A seat that left an open table while its socket sits on another node: that socket watches the game once it
starts. The node that handled the leave demotes only its own sockets (`Hub.unseat_left`); the others learn
of the start from the owner's first state note, whose seat map no longer holds the seat row that left. A
socket whose row is missing from it must take the spectators' view, not the view of the engine seat with
the number of the table place it had (another person's hidden cards and moves)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.cluster.nodes import Player, RoomSocket, Shared, ready_nodes
from throne.server.app import create_app
from throne.server.cluster.node import Cluster
from throne.server.config import Settings

VIEWS = {"s": '{"seat": null}', "0": '{"seat": 0}', "1": '{"seat": 1}', "2": '{"seat": 2}'}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k"))) as c:
        yield c


def test_a_socket_whose_seat_row_is_not_in_the_started_game_is_shown_the_spectators_view(
    client: TestClient,
) -> None:
    hub = client.app.state.hub
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")  # never connects; another node owns game 99
    announced: list[int] = []
    cluster.conns_changed = announced.append  # type: ignore[method-assign]  (what the owner would be told)
    left = RoomSocket(occupant=41, seat=1)  # greeted at table place 1; its seat row was deleted since
    stayed = RoomSocket(occupant=42, seat=0)  # table place 0, drawn engine seat 2
    hub.rooms[99] = {left, stayed}
    try:
        seats = {"42": 2, "43": 0, "44": 1}
        note = {"t": "state", "from": "n2", "ply": 0, "after": -1, "views": VIEWS, "seats": seats}
        client.portal.call(cluster._room, 99, note)
    finally:
        hub.rooms.pop(99)
    assert (left.seat, left.sent) == (None, ['{"seat": null}'])
    assert (stayed.seat, stayed.sent) == (2, ['{"seat": 2}'])
    assert announced == [99]


STEP = 30.0


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_seat_that_left_through_one_node_watches_the_start_on_another(
    shared: Shared, tmp_path: Path
) -> None:
    n0, n1 = ready_nodes("left", 2, shared.database, shared.redis_url, tmp_path, 3.0)
    people: list[Player] = []
    try:
        cleo, eve, bob, dan = (Player(n0, name) for name in ("Cleo", "Eve", "Bob", "Dan"))
        people = [cleo, eve, bob, dan]
        made = cleo.http.post("/api/games", json={"game": "hidden-leaders", "players": 3}).json()
        game_id = made["game"]["id"]
        joined = eve.http.post(f"/api/games/{game_id}/join", json={}).json()
        eve.token, eve.game_id = joined["token"], game_id
        eve.connect(n1)  # Eve's socket is on the other node, seated at her table place
        assert eve.seat == joined["seat"] == 1
        left = eve.http.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": eve.token})
        assert left.status_code == 200, left.text
        eve.seat = None  # from now on every state it gets must be the spectators' (checked as it comes)
        tokens = {}
        for p in (bob, dan):  # the table is full and starts on n0
            tokens[p.name] = p.http.post(f"/api/games/{game_id}/join", json={}).json()["token"]
        state = eve.recv_until(lambda m: m["type"] == "state", STEP)
        assert state["seat"] is None and state["legal_moves"] == []
        assert all(set(hand) == {"count"} for hand in state["view"]["hands"])
        assert eve.ws is not None
        eve.ws.send('{"type": "resign"}')
        refused = eve.recv_until(lambda m: m["type"] == "error", STEP)
        assert refused["code"] == "spectator"
        views = {
            name: bob.http.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": t}).json()
            for name, t in tokens.items()
        }
        assert all(v["status"] == "live" and v["seat"] is not None for v in views.values())
    finally:
        for p in people:
            p.close()
        for n in (n0, n1):
            n.stop()
