"""Notes lost while Redis was away are made good (`Cluster._resync`). A node whose batch of notes failed, or
whose pub/sub connection missed notes, asks the other nodes to make good what the game's notes said: a
`resync` note. The game's owner answers it with the current state for that node, and every node with sockets
at an open table reads its seats again (a seat that left through another node watches from then on) and
sends them its `table` summary. Before, such a table or game was told nothing until its next change: a seat
that left stayed seated elsewhere, and a state lost on its way left the seat to play waiting."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
import redis.asyncio as aioredis
from fastapi.testclient import TestClient

from tests.cluster.nodes import RoomSocket
from tests.server.helpers import as_guest, two_player_leaders
from throne.server.app import create_app
from throne.server.cluster.lease import Lease
from throne.server.cluster.node import NODES, Cluster, room_channel
from throne.server.config import Settings
from throne.server.sessions import token_hash


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=3600.0))) as c:
        yield c


def _queued(cluster: Cluster) -> list[dict[str, Any]]:
    """The notes the node queued for the other nodes since the last call (never sent: no Redis here)."""
    notes = []
    while not cluster._outbox.empty():
        item = cluster._outbox.get_nowait()
        if item[0] in ("fenced", "plain"):
            notes.append({"channel": item[2], **orjson.loads(item[3])})
    return notes


def test_the_owner_answers_a_resync_note_with_the_state_for_that_node(client: TestClient) -> None:
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    match = hub.matches[game_id]
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")  # never connects: its outbox is read here
    cluster.leases.held[game_id] = Lease(game_id, 7, time.monotonic() + 60)
    cluster._alive.add("n2")
    presence = {"t": "presence", "from": "n2", "p": {"o": [match.info.seats[0].id], "s": [0], "n": 0}}
    client.portal.call(cluster._room, game_id, presence)
    _queued(cluster)  # (the state sent for the news of n2's socket)
    client.portal.call(cluster._room, game_id, {"t": "resync", "from": "n2"})
    (note,) = _queued(cluster)
    assert note["t"] == "state" and note["to"] == "n2" and note["ply"] == match.ply


def test_a_resync_note_reads_an_open_table_again(client: TestClient) -> None:
    """Eve's socket here is seated at an open table; she left it through another node, whose note was
    lost. A `resync` note makes this node read the table: her socket watches and is sent the summary."""
    hub = client.app.state.hub
    as_guest(client, "Cleo")
    game_id = client.post("/api/games", json={"game": "hidden-leaders", "players": 3}).json()["game"]["id"]
    as_guest(client, "Eve")
    joined = client.post(f"/api/games/{game_id}/join", json={}).json()
    info = client.portal.call(hub.db, hub.repo.get_game, game_id)
    eve_row = next(s.id for s in info.seats if s.name == "Eve")
    socket = RoomSocket(occupant=eve_row, seat=1, game_id=game_id)
    hub.add_conn(socket)  # type: ignore[arg-type]
    client.portal.call(hub.db, hub.repo.leave_seat, game_id, token_hash(joined["token"]))  # the other node
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")
    announced: list[int] = []
    cluster.conns_changed = announced.append  # type: ignore[method-assign]

    async def scenario() -> None:
        cluster._room(game_id, {"t": "resync", "from": "n2"})
        await asyncio.gather(*cluster._background)

    client.portal.call(scenario)
    assert (socket.occupant, socket.seat) == (None, None)
    assert socket in hub.rooms[game_id] and socket not in hub.seated.get(game_id, ())
    tables = [m["game"] for m in map(json.loads, socket.sent) if m["type"] == "table"]
    assert [[s.get("name") for s in t["seats"]] for t in tables] == [["Cleo", None, None]]
    assert announced == [game_id]  # the other nodes learn that this socket watches now


def test_a_started_games_sockets_are_left_to_its_owners_states(client: TestClient) -> None:
    """A socket that was sent a state belongs to a started game: a `resync` note reads nothing from the store
    for it (after an outage every node sends one per game), and its seat is left as the owner's states say."""
    hub = client.app.state.hub
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")
    read: list[Any] = []
    db = hub.db

    async def counting_db(fn: Any, *args: Any) -> Any:
        read.append(fn)
        return await db(fn, *args)

    hub.db = counting_db
    socket = RoomSocket(occupant=41, seat=0, events_ply=12, game_id=99)  # it was sent a state: not open
    hub.rooms[99] = {socket}  # type: ignore[arg-type]

    async def scenario() -> None:
        cluster._room(99, {"t": "resync", "from": "n2"})
        await asyncio.gather(*cluster._background)

    try:
        client.portal.call(scenario)
    finally:
        hub.rooms.pop(99)
        hub.db = db
    assert read == [] and socket.sent == [] and socket.occupant == 41


def _flaky_batches(cluster: Cluster, command: str = "PUBLISH") -> list[int]:
    """Makes the node's next batch of notes with `command` fail (a timeout on its connection alone); the
    list counts it."""
    real = cluster.redis.pipeline
    failures: list[int] = []

    def pipeline(*args: Any, **kwargs: Any) -> Any:
        pipe = real(*args, **kwargs)
        execute = pipe.execute

        async def flaky(*a: Any, **k: Any) -> Any:
            if command in str(pipe.command_stack) and not failures:
                failures.append(1)
                raise redis.exceptions.TimeoutError("Timeout reading from socket")
            return await execute(*a, **k)

        pipe.execute = flaky
        return pipe

    cluster.redis.pipeline = pipeline  # type: ignore[method-assign]
    return failures


def _flaky_listening(cluster: Cluster) -> list[int]:
    """Makes the node's pub/sub connection fail once (its notes of meanwhile never arrive)."""
    real = cluster._pubsub.get_message
    failures: list[int] = []

    async def get_message(*args: Any, **kwargs: Any) -> Any:
        if not failures:
            failures.append(1)
            raise redis.exceptions.ConnectionError("Connection reset by peer")
        return await real(*args, **kwargs)

    cluster._pubsub.get_message = get_message  # type: ignore[method-assign]
    return failures


LOSSES = [
    # (what failed, how the test makes it fail)
    ("a batch of this node's notes", _flaky_batches),
    ("this node's pub/sub connection", _flaky_listening),
]


@pytest.mark.parametrize(("case", "fault"), LOSSES, ids=[case for case, _ in LOSSES])
def test_a_node_that_lost_notes_asks_for_a_resync(
    client: TestClient, redis_url: str, case: str, fault: Any
) -> None:
    """Game 5 has a socket here (it is open: a seat left it through this node, whose note of it is in the
    batch that fails). Whatever failed, the other nodes are sent a `resync` note of game 5."""
    hub = client.app.state.hub
    socket = RoomSocket(occupant=None, game_id=5)
    hub.rooms[5] = {socket}  # type: ignore[arg-type]

    async def scenario() -> list[dict[str, Any]]:
        listener = aioredis.from_url(redis_url)
        pubsub = listener.pubsub()
        await pubsub.subscribe(room_channel(5))
        cluster = Cluster(hub, redis_url, lease_ttl=0.6, node="n1")
        failures = fault(cluster)
        await cluster.start()
        cluster.publish_room(5, {"t": "unseat", "left": [3]})
        notes: list[dict[str, Any]] = []
        end = time.monotonic() + 5.0
        while time.monotonic() < end and not any(n.get("t") == "resync" for n in notes):
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
            if message is not None:
                notes.append(orjson.loads(message["data"]))
        assert failures == [1], case
        await cluster.stop()
        await pubsub.aclose()
        await listener.aclose()
        return notes

    try:
        notes = client.portal.call(scenario)
    finally:
        hub.rooms.pop(5, None)
    assert {"t": "resync", "from": "n1"} in notes, (case, notes)


def test_an_owner_whose_state_note_was_lost_sends_it_again(client: TestClient, redis_url: str) -> None:
    """The owner's note of a move (the state for n2's seat there) is in a batch that fails: the next round
    sends the current state again, else that seat would wait for it until the next move, which may be its
    own to make."""
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    match = hub.matches[game_id]

    async def scenario() -> list[dict[str, Any]]:
        listener = aioredis.from_url(redis_url)
        pubsub = listener.pubsub()
        await pubsub.subscribe(room_channel(game_id))
        cluster = Cluster(hub, redis_url, lease_ttl=0.6, node="n1")
        await cluster.start()
        assert await cluster.leases.claim(game_id) is not None
        await listener.zadd(NODES, {"n2": int(time.time() * 1000) + 60_000})  # n2 beats for a minute
        await cluster._heartbeat()
        cluster._room(
            game_id, {"t": "presence", "from": "n2", "p": {"o": [match.info.seats[1].id], "s": [1], "n": 0}}
        )
        await asyncio.sleep(0.3)  # (the state sent for the news of n2's socket)
        failures = _flaky_batches(cluster, "EVAL")  # (a state note is published fenced by its lease)
        cluster.publish_state(match, {})  # the batch that fails
        notes: list[dict[str, Any]] = []
        end = time.monotonic() + 5.0
        while time.monotonic() < end and not any(n.get("t") == "state" and "to" not in n for n in notes):
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
            if message is not None:
                notes.append(orjson.loads(message["data"]))
        assert failures == [1]
        await cluster.stop()
        await pubsub.aclose()
        await listener.aclose()
        return notes

    notes = client.portal.call(scenario)
    states = [n for n in notes if n.get("t") == "state" and "to" not in n]
    assert states and states[0]["ply"] == match.ply and set(states[0]["views"]) == {"s", "0", "1"}
