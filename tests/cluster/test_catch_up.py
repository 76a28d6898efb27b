"""A node that learns of another node's new sockets of a game it owns sends that node the current state, and
only that node takes it (`throne.server.cluster.node.Cluster`, without Redis: what it would publish is read
from its outbox).

Why: the owner publishes a state to the other nodes only while it knows they have sockets of the game, and a
node's news of its sockets can arrive after states the owner did not publish — a seat there would then wait
for a state that never comes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from tests.cluster.nodes import RoomSocket
from tests.server.helpers import as_guest, two_player_leaders
from throne.server.app import create_app
from throne.server.cluster.lease import Lease
from throne.server.cluster.node import Cluster, room_channel
from throne.server.config import Settings


def _presence(seats: list[int], occupants: list[int], node: str = "n2") -> dict[str, Any]:
    return {"t": "presence", "from": node, "p": {"o": occupants, "s": seats, "n": 0}}


def _catch_ups(cluster: Cluster) -> list[dict[str, Any]]:
    """The state notes the node queued for other nodes since the last call."""
    notes = []
    while not cluster._outbox.empty():
        item = cluster._outbox.get_nowait()
        if item[0] == "fenced":
            notes.append({"channel": item[2], **orjson.loads(item[3])})
    return notes


@pytest.fixture
def client(tmp_path: Path) -> Any:
    settings = Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=3600.0)
    with TestClient(create_app(settings)) as client:
        yield client


# (what the other node says, whether the owner sends it the state): its presence notes in order
PRESENCE = [
    ("a node with a seat of the game appears", [([0], [1])], [True]),
    ("the same sockets said again", [([0], [1]), ([0], [1])], [True, False]),
    ("a second seat there", [([0], [1]), ([0, 1], [1, 2])], [True, True]),
    ("one of its seats goes", [([0, 1], [1, 2]), ([0], [1])], [True, False]),
]


@pytest.mark.parametrize(("case", "notes", "sent"), PRESENCE, ids=[c for c, _, _ in PRESENCE])
def test_the_owner_sends_a_node_with_new_sockets_the_current_state(
    client: TestClient, case: str, notes: list[tuple[list[int], list[int]]], sent: list[bool]
) -> None:
    hub = client.app.state.hub
    game_id, _tokens = two_player_leaders(client)
    match = hub.matches[game_id]
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")  # never connects: nothing here awaits Redis
    cluster.leases.held[game_id] = Lease(game_id, 7, time.monotonic() + 60)
    cluster._alive.add("n2")
    for (seats, occupants), expected in zip(notes, sent, strict=True):
        client.portal.call(cluster._room, game_id, _presence(seats, occupants))
        states = _catch_ups(cluster)
        assert len(states) == int(expected), case
        for note in states:
            assert note["channel"] == room_channel(game_id) and note["to"] == "n2"
            assert note["ply"] == match.ply and set(note["views"]) == {"s", "0", "1"}


def test_a_node_that_does_not_own_the_game_sends_nothing(client: TestClient) -> None:
    hub = client.app.state.hub
    game_id, _tokens = two_player_leaders(client)
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")  # no lease: another node owns it
    client.portal.call(cluster._room, game_id, _presence([0], [1]))
    assert _catch_ups(cluster) == []


@pytest.mark.parametrize(("to", "taken"), [(None, True), ("n1", True), ("n3", False)])
def test_a_state_sent_to_one_node_reaches_only_its_sockets(
    client: TestClient, to: str | None, taken: bool
) -> None:
    hub = client.app.state.hub
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")
    game_id, socket = 99, RoomSocket()  # a game this node does not own, watched by a spectator here
    hub.rooms[game_id] = {socket}  # type: ignore[arg-type]
    try:
        note = {"t": "state", "from": "n2", "ply": 3, "after": 2, "views": {"s": '{"ply": 3}'}, "seats": {}}
        if to is not None:
            note["to"] = to
        client.portal.call(cluster._room, game_id, note)
    finally:
        hub.rooms.pop(game_id)
    assert socket.sent == (['{"ply": 3}'] if taken else [])


def test_the_seat_of_a_person_who_resigned_is_published_the_spectators_state(client: TestClient) -> None:
    hub = client.app.state.hub
    as_guest(client, "Solo")
    r = client.post("/api/play-bot", json={"game": "hidden-leaders", "bot": "random", "players": 3})
    game_id = r.json()["game"]["id"]
    match = hub.matches[game_id]
    resigned = next(s for s in match.info.seats if s.kind == "human")
    resigned.takeover, resigned.left = True, "resign"  # as the take-over stores it; a bot plays on
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")
    cluster.leases.held[game_id] = Lease(game_id, 7, time.monotonic() + 60)
    cluster._alive.add("n2")
    client.portal.call(cluster._room, game_id, _presence([resigned.seat], [resigned.id]))
    (note,) = _catch_ups(cluster)
    views = note["views"]
    assert views[str(resigned.seat)] == views["s"]  # the node there shows that person's sockets nothing more
    others = [s.seat for s in match.info.seats if s.seat != resigned.seat]
    assert all(orjson.loads(views[str(seat)])["seat"] == seat for seat in others)
