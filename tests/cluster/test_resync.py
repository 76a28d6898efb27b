"""Notes lost while Redis was away are made good (`Cluster._resync`). A node whose batch of notes failed, or
whose pub/sub connection missed notes, asks the other nodes to make good what the game's notes said: a
`resync` note. The game's owner answers it with the current state for that node, with the events of the
moves its sockets missed; an owner whose own states were lost sends them again, events included (a later
note queued meanwhile is held back, so no socket skips a lost move's events); and every node with sockets
at an open table (or one closed meanwhile) reads it again: a seat that left through another node watches
from then on, and the sockets get the `table` summary, unless what was read is out of date by then (a seat
taken or the table started meanwhile). Before, such a table or game was told nothing until its next change:
a seat that left stayed seated elsewhere, and a state lost on its way left the seat to play waiting. Also
here: a game that ends while its states are lost gives up its lease only after they are sent again; a
state the owner answers another node with goes out in order with the game's notes, and is handed to a
socket only if no state note came after it; an owner whose pub/sub connection failed reads its games'
presence again."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
import redis.asyncio as aioredis
from fastapi.testclient import TestClient

from tests.cluster.nodes import RoomSocket, flaky_batches, on_batches
from tests.server.helpers import as_guest, two_player_leaders
from throne.server.app import create_app
from throne.server.cluster.lease import Lease
from throne.server.cluster.node import NODES, Cluster, _answer_of, node_channel, presence_key, room_channel
from throne.server.config import Settings
from throne.server.sessions import token_hash


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=3600.0))) as c:
        yield c


def _eventful(moves: list[str]) -> str:
    """A move that the engine describes with events ("end" has none), when there is one."""
    return next((m for m in moves if m != "end"), moves[0])


def _queued(cluster: Cluster) -> list[dict[str, Any]]:
    """The notes the node queued for the other nodes since the last call (never sent: no Redis here)."""
    notes = []
    while not cluster._outbox.empty():
        item = cluster._outbox.get_nowait()
        if item[0] in ("fenced", "plain"):
            notes.append({"channel": item[2], **orjson.loads(item[3])})
    return notes


def _resync_note_here(
    client: TestClient, cluster: Cluster, game_id: int, socket: RoomSocket | None = None, db: Any = None
) -> None:
    """Node `cluster` gets n2's `resync` note of `game_id` (with `socket` added here first, and its store
    calls made through `db`), and returns once the reads it started are done."""
    hub = client.app.state.hub
    real_db = hub.db
    hub.db = db or real_db

    async def scenario() -> None:
        if socket is not None:
            hub.add_conn(socket)
        cluster._room(game_id, {"t": "resync", "from": "n2"})
        await asyncio.gather(*cluster._background)

    try:
        client.portal.call(scenario)
    finally:
        hub.db = real_db


def test_the_owner_answers_a_resync_note_with_the_state_for_that_node(client: TestClient) -> None:
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    match = hub.matches[game_id]
    for _ in range(3):
        client.portal.call(match.submit, match.state.to_play, _eventful(match.state.legal_moves()), match.ply)
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")  # never connects: its outbox is read here
    cluster.leases.held[game_id] = Lease(game_id, 7, time.monotonic() + 60)
    cluster._alive.add("n2")
    presence = {"t": "presence", "from": "n2", "p": {"o": [match.info.seats[0].id], "s": [0], "n": 0}}
    client.portal.call(cluster._room, game_id, presence)
    _queued(cluster)  # (the state sent for the news of n2's socket)
    client.portal.call(cluster._room, game_id, {"t": "resync", "from": "n2", "since": match.ply - 2})
    (note,) = _queued(cluster)
    assert note["t"] == "state" and note["to"] == "n2" and note["ply"] == match.ply
    # the events of the moves n2's sockets missed, which n2 trims for each socket by the state it saw last
    assert note["after"] == match.ply - 2
    events = orjson.loads(note["views"]["s"])["events"]
    assert events and events == match.events.since(match.ply - 2, match.ply, None)


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
    _resync_note_here(client, cluster, game_id)
    assert (socket.occupant, socket.seat) == (None, None)
    assert socket in hub.rooms[game_id] and socket not in hub.seated.get(game_id, ())
    tables = [m["game"] for m in map(json.loads, socket.sent) if m["type"] == "table"]
    assert [[s.get("name") for s in t["seats"]] for t in tables] == [["Cleo", None, None]]
    assert announced == [game_id]  # the other nodes learn that this socket watches now


def test_a_seat_that_joins_while_a_resync_reads_the_table_stays_seated(client: TestClient) -> None:
    """A resync reads an open table; Dan joins it and his socket says hello here while that read is on its
    way, so the read lacks his seat. Only the sockets seated when the table was read are compared with it:
    Dan's socket stays seated (before: it was made a spectator's, and once the table started it was shown
    the spectators' view and never told it was his turn)."""
    hub = client.app.state.hub
    as_guest(client, "Cleo")
    game_id = client.post("/api/games", json={"game": "hidden-leaders", "players": 4}).json()["game"]["id"]
    dan = as_guest(client, "Dan")
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")  # never connects: its outbox is left unread
    real_db = hub.db
    dan_socket = RoomSocket(game_id=game_id)

    async def db(fn: Any, *args: Any, **kwargs: Any) -> Any:
        result = await real_db(fn, *args, **kwargs)
        if fn == hub.repo.get_game and dan_socket.occupant is None:
            # meanwhile: Dan's join commits, and his socket's hello here seats it
            _, _place = await real_db(
                hub.repo.join_seat, game_id, None, user_id=dan["id"], name="Dan", token_hash=token_hash("t")
            )
            info = await real_db(hub.repo.get_game, game_id)
            dan_socket.occupant = next(s.id for s in info.seats if s.name == "Dan")
            dan_socket.seat = _place
            hub.add_conn(dan_socket)  # type: ignore[arg-type]
        return result

    watcher = RoomSocket(game_id=game_id)  # a spectator here: the node has a socket of the table
    _resync_note_here(client, cluster, game_id, watcher, db)
    assert dan_socket.occupant is not None, "Dan's socket, seated at the table, was made a spectator"
    assert dan_socket in hub.seated.get(game_id, ())


def test_a_table_that_starts_while_a_resync_reads_it_is_not_shown_open_again(client: TestClient) -> None:
    """A resync reads Cleo's open table; while the read is on its way the table starts on n2, whose first
    state reaches Cleo's socket here. What was read is out of date then, and not sent: no `table` message of
    an open table follows the game's first state (before: the page showed the table waiting for a player
    until someone came or went)."""
    hub = client.app.state.hub
    as_guest(client, "Cleo")
    game_id = client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]
    info = client.portal.call(hub.db, hub.repo.get_game, game_id)
    cleo = RoomSocket(occupant=info.seats[0].id, seat=0, game_id=game_id)
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")
    real_db = hub.db
    started: list[int] = []

    async def db(fn: Any, *args: Any, **kwargs: Any) -> Any:
        result = await real_db(fn, *args, **kwargs)
        if fn == hub.repo.get_game and not started:
            started.append(1)  # meanwhile: the table started on n2, whose first state comes here
            seats = {str(info.seats[0].id): 1, "999": 0}
            views = {k: json.dumps({"type": "state", "seat": v, "ply": 0, "status": "live", "events": []})
                     for k, v in (("s", None), ("0", 0), ("1", 1))}  # fmt: skip
            cluster._room(
                game_id, {"t": "state", "from": "n2", "ply": 0, "after": -1, "views": views, "seats": seats}
            )
        return result

    _resync_note_here(client, cluster, game_id, cleo, db)
    sent = [json.loads(t) for t in cleo.sent]
    assert [m["type"] for m in sent][:1] == ["state"], sent
    shown_open = [m for m in sent[1:] if m["type"] == "table" and m["game"]["status"] == "open"]
    assert not shown_open, (
        f"after the game's first state, Cleo's page was told the table is open: {shown_open}"
    )


def test_a_resync_shows_an_open_table_aborted_meanwhile_as_aborted(client: TestClient) -> None:
    """Cleo waits at her open table through this node; the table is closed on another node (the sweep of
    stale tables) while Redis is away, and its `table` note is lost. The resync reads it `aborted` and sends
    her socket the table's summary (before: nothing, and the page showed the table open for good)."""
    hub = client.app.state.hub
    as_guest(client, "Cleo")
    game_id = client.post("/api/games", json={"game": "hidden-leaders", "players": 3}).json()["game"]["id"]
    info = client.portal.call(hub.db, hub.repo.get_game, game_id)
    cleo = RoomSocket(occupant=info.seats[0].id, seat=0, game_id=game_id)
    cluster = Cluster(hub, "redis://127.0.0.1:9", node="n1")  # never connects: what it queues is left unread
    client.portal.call(hub.db, hub.repo.abort_open, [game_id])  # on the other node, its note lost
    _resync_note_here(client, cluster, game_id, cleo)
    sent = [json.loads(t) for t in cleo.sent]
    statuses = [m["game"]["status"] for m in sent if m["type"] == "table"]
    assert "aborted" in statuses, f"the socket at the aborted table was never told so: {sent}"


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

    socket = RoomSocket(occupant=41, seat=0, events_ply=12, game_id=99)  # it was sent a state: not open
    hub.rooms[99] = {socket}  # type: ignore[arg-type]
    try:
        _resync_note_here(client, cluster, 99, db=counting_db)
    finally:
        hub.rooms.pop(99)
    assert read == [] and socket.sent == [] and socket.occupant == 41


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


def _dropped_listening(cluster: Cluster) -> list[int]:
    """Has Redis close the node's pub/sub connection once it listens (CLIENT KILL): the client library
    must not reconnect without a word, or the notes of meanwhile would be missed unnoticed."""
    failures: list[int] = []

    async def drop() -> None:
        while cluster._pubsub.connection is None or not cluster._pubsub.subscribed:
            await asyncio.sleep(0.01)
        host, port = cluster._pubsub.connection._writer.get_extra_info("sockname")[:2]
        await cluster.redis.client_kill(f"{host}:{port}")
        failures.append(1)

    task = asyncio.ensure_future(drop())
    _DROPPING.add(task)  # (held until it ran)
    task.add_done_callback(_DROPPING.discard)
    return failures


_DROPPING: set[asyncio.Future[None]] = set()


LOSSES = [
    # (what failed, how the test makes it fail)
    ("a batch of this node's notes", flaky_batches),
    ("this node's pub/sub connection", _flaky_listening),
    ("this node's pub/sub connection, closed by Redis", _dropped_listening),
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
    assert {"t": "resync", "from": "n1", "since": None} in notes, (case, notes)


def test_an_owner_whose_state_notes_were_lost_sends_them_again(client: TestClient, redis_url: str) -> None:
    """The owner's notes of two moves (the states for n2's seat there) are in batches that fail: the next
    round sends the current state again with the events of both moves, else that seat would wait for it
    until the next move, which may be its own to make."""
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    match = hub.matches[game_id]
    before = match.ply

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
        failures = flaky_batches(cluster, "EVAL", times=2)  # (a state note is published fenced by its lease)
        hub.cluster = cluster  # the moves' states are published
        for _ in range(2):
            await match.submit(match.state.to_play, _eventful(match.state.legal_moves()), match.ply)
            await asyncio.sleep(0.1)  # (each in a batch of its own)
        notes: list[dict[str, Any]] = []
        end = time.monotonic() + 5.0
        while time.monotonic() < end and not any(n.get("t") == "state" and "to" not in n for n in notes):
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
            if message is not None:
                notes.append(orjson.loads(message["data"]))
        hub.cluster = None
        assert failures == [1, 1]
        await cluster.stop()
        await pubsub.aclose()
        await listener.aclose()
        return notes

    notes = client.portal.call(scenario)
    states = [n for n in notes if n.get("t") == "state" and "to" not in n]
    assert states and states[0]["ply"] == before + 2 and set(states[0]["views"]) == {"s", "0", "1"}
    assert states[0]["after"] == before  # n2 trims the events for each socket by the state it saw last
    events = orjson.loads(states[0]["views"]["s"])["events"]
    assert events and events == match.events.since(before, before + 2, None)


MARKER_GAME = 987_654  # a room nobody listens to: a note on it holds up the publisher while it is sent


async def _until(check: Any, what: str, deadline_s: float = 10.0) -> None:
    end = time.monotonic() + deadline_s
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def _owner_with_remote_seat(hub: Any, redis_url: str, game_id: int, seat_row: int) -> Cluster:
    """Node n1, owner of `game_id`, which knows that node n2 (alive) has a socket of seat row `seat_row`."""
    cluster = Cluster(hub, redis_url, lease_ttl=0.6, node="n1")
    await cluster.start()
    assert await cluster.leases.claim(game_id) is not None
    raw = aioredis.from_url(redis_url)
    await raw.zadd(NODES, {"n2": int(time.time() * 1000) + 600_000})  # n2 beats for ten minutes
    await raw.aclose()
    await cluster._heartbeat()
    cluster._room(game_id, {"t": "presence", "from": "n2", "p": {"o": [seat_row], "s": [1], "n": 0}})
    await asyncio.sleep(0.3)  # (the state sent for the news of n2's socket)
    return cluster


@contextlib.asynccontextmanager
async def _owner_heard(
    hub: Any, redis_url: str, game_id: int, seat_row: int
) -> AsyncIterator[tuple[Cluster, Any]]:
    """`_owner_with_remote_seat`, made the hub's cluster (its states are published), and a listener on the
    game's room; both stopped at the end."""
    listener = aioredis.from_url(redis_url)
    pubsub = listener.pubsub()
    await pubsub.subscribe(room_channel(game_id))
    cluster = await _owner_with_remote_seat(hub, redis_url, game_id, seat_row)
    hub.cluster = cluster
    try:
        yield cluster, pubsub
    finally:
        hub.cluster = None
        await cluster.stop()
        await pubsub.aclose()
        await listener.aclose()


def _gated_batches(
    cluster: Cluster, slow: str = room_channel(MARKER_GAME), fail_first: bool = True
) -> dict[str, Any]:
    """With `fail_first`, the first batch with a fenced publish (EVAL) waits for `fail` and then fails (a
    Redis timeout); a batch with a note on the channel `slow` waits for `go` (a slow Redis) and then goes
    through."""
    ctl: dict[str, Any] = {"fail": asyncio.Event(), "go": asyncio.Event(), "failed": 0, "held": 0}

    async def gate(commands: str) -> None:
        if fail_first and "EVAL" in commands and not ctl["failed"]:
            ctl["failed"] += 1
            await ctl["fail"].wait()
            raise redis.exceptions.TimeoutError("Timeout reading from socket")
        if slow in commands and not ctl["go"].is_set():
            ctl["held"] += 1
            await ctl["go"].wait()

    on_batches(cluster, gate)
    return ctl


async def _collect(pubsub: Any, notes: list[dict[str, Any]], seconds: float, enough: Any = None) -> None:
    """Adds to `notes` what the room's channel says for `seconds`, or until `enough(notes)`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (enough and enough(notes)):
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
        if message is not None:
            notes.append(orjson.loads(message["data"]))


def _shown_on_n2(
    client: TestClient, game_id: int, seat1_row: int, before: int, notes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """What n2's seat-1 socket, which saw the state at `before`, is shown of the notes that got through
    (n2 does not run the game: its owner's states are all it has)."""
    hub = client.app.state.hub
    receiver = Cluster(hub, "redis://127.0.0.1:9", node="n2")  # never connects
    socket = RoomSocket(occupant=seat1_row, seat=1, events_ply=before, game_id=game_id)
    owner = hub.matches.pop(game_id, None)
    hub.rooms[game_id] = {socket}  # type: ignore[assignment]
    try:

        async def deliver() -> None:
            for note in notes:
                if note.get("to", "n2") == "n2":
                    receiver._room(game_id, note)
            await receiver.redis.aclose()

        client.portal.call(deliver)
    finally:
        hub.rooms.pop(game_id, None)
        if owner is not None:
            hub.matches[game_id] = owner
    return [json.loads(t) for t in socket.sent]


def _seat_rows(client: TestClient) -> tuple[int, int, int]:
    """A live two-player Leaders game: its id, its ply, the seat row of its seat 1."""
    game_id, _ = two_player_leaders(client)
    match = client.app.state.hub.matches[game_id]
    return game_id, match.ply, next(s.id for s in match.info.seats if s.seat == 1)


def test_the_events_of_a_lost_state_reach_the_other_nodes_sockets(client: TestClient, redis_url: str) -> None:
    """The owner's state note of move 1 is in a batch that fails (Redis times out) while the note of move 2
    waits to be sent. That note is held back (its events would follow a lost state's), and the state sent
    next carries the events of both moves: a socket of n2 that saw the state before move 1 is shown both
    (before: move 2's note went first, and n2's socket, then at move 2, left out move 1's events for good)."""
    hub = client.app.state.hub
    game_id, before, seat1_row = _seat_rows(client)
    match = hub.matches[game_id]

    async def scenario() -> list[dict[str, Any]]:
        notes: list[dict[str, Any]] = []
        async with _owner_heard(hub, redis_url, game_id, seat1_row) as (cluster, pubsub):
            ctl = _gated_batches(cluster)
            await match.submit(match.state.to_play, _eventful(match.state.legal_moves()), match.ply)
            await _until(lambda: ctl["failed"], "move 1's batch on its way")
            await match.submit(match.state.to_play, _eventful(match.state.legal_moves()), match.ply)
            await asyncio.sleep(0.05)
            ctl["fail"].set()  # move 1's batch fails; move 2's goes next, then the resync round
            await _collect(pubsub, notes, 5.0, lambda ns: len([n for n in ns if n.get("t") == "state"]) >= 2)
        return notes

    notes = client.portal.call(scenario)
    states = [n for n in notes if n.get("t") == "state" and n.get("to") in (None, "n2")]
    assert states, notes
    expected = [e["ply"] for e in match.events.since(before, before + 2, 1)]
    assert before + 1 in expected  # (move 1 has events for seat 1)
    shown = _shown_on_n2(client, game_id, seat1_row, before, states)
    got = [e["ply"] for m in shown if m.get("type") == "state" for e in m["events"]]
    assert sorted(set(got)) == sorted(set(expected)), (
        f"n2's socket got the events of plies {got}, expected {expected} (notes: "
        f"{[(n['ply'], n['after']) for n in states]})"
    )


async def _an_action_queued_with_the_mending_state(
    hub: Any, redis_url: str, game_id: int, seat1_row: int, action: Any
) -> list[dict[str, Any]]:
    """Move 1's batch fails; the batch after it is slow; the resync round queues the state that mends the
    gap while that batch is on its way, and `action` (a move, a resignation) is made meanwhile, so that its
    note goes in the same batch as the mending one. Returns the notes of the game's room that got through."""
    match = hub.matches[game_id]
    before = match.ply
    notes: list[dict[str, Any]] = []
    async with _owner_heard(hub, redis_url, game_id, seat1_row) as (cluster, pubsub):
        ctl = _gated_batches(cluster)
        await match.submit(match.state.to_play, _eventful(match.state.legal_moves()), match.ply)
        await _until(lambda: ctl["failed"], "move 1's batch on its way")
        cluster.publish_room(MARKER_GAME, {"t": "marker"})  # the batch after it: a slow one
        ctl["fail"].set()  # move 1's batch fails
        await _until(lambda: ctl["held"], "the slow batch on its way")
        await _until(lambda: game_id not in cluster._lost, "the resync round")
        await _until(lambda: cluster._published.get(game_id) == before + 1, "the mending state queued")
        done = asyncio.ensure_future(action(match))
        await asyncio.sleep(0.3)
        ctl["go"].set()  # Redis answers again: everything goes through from now on
        await asyncio.wait_for(done, 10)
        await _collect(pubsub, notes, 4.0)
    return notes


async def _move(match: Any) -> None:
    await match.submit(match.state.to_play, _eventful(match.state.legal_moves()), match.ply)


async def _resign(match: Any) -> None:
    """Seat 0 resigns; returns once the end is stored and the lease given up (the game is forgotten)."""
    await match.control(0, "resign")
    end = time.monotonic() + 10
    while match.game_id in match.hub.matches:
        assert time.monotonic() < end
        await asyncio.sleep(0.05)


MADE_WITH_THE_MENDING_STATE = [
    # (what is made while the mending state waits in the outbox, whether it ends the game)
    ("a move", _move, False),
    ("a resignation", _resign, True),
]


@pytest.mark.parametrize(
    ("case", "action", "ends"),
    MADE_WITH_THE_MENDING_STATE,
    ids=[case for case, *_ in MADE_WITH_THE_MENDING_STATE],
)
def test_a_state_queued_with_the_mending_state_is_sent(
    client: TestClient, redis_url: str, case: str, action: Any, ends: bool
) -> None:
    """A note queued after the state that mends a gap, in the same batch, follows it: it is not held back
    as if the gap were still open (before, it was dropped, and as the gap closed with that batch, n2's seat
    was left at move 1's state for good: told nothing of a move, or of the game's end, its clock running)."""
    hub = client.app.state.hub
    game_id, before, seat1_row = _seat_rows(client)
    match = hub.matches[game_id]
    notes = client.portal.call(
        _an_action_queued_with_the_mending_state, hub, redis_url, game_id, seat1_row, action
    )
    assert match.over == ends
    shown = [m for m in _shown_on_n2(client, game_id, seat1_row, before, notes) if m["type"] == "state"]
    assert shown, notes
    assert match.ply == before + (1 if ends else 2)
    assert shown[-1]["ply"] == match.ply, (case, [m["ply"] for m in shown])
    assert shown[-1]["status"] == ("finished" if ends else "live"), (case, [m["status"] for m in shown])


def test_a_live_tables_summary_lost_in_a_failed_batch_is_sent_again(
    client: TestClient,
    redis_url: str,
) -> None:
    """Seat 0's player connects through node n3; the owner (n1) answers with the live table's summary
    (seat 0 connected, no take-over countdown), which it alone sends for a live game. That note is in a
    batch that fails: the resync round sends the summary again with the state (before, only the state:
    n2's sockets kept showing seat 0 away, its countdown running, until someone else came or went)."""
    hub = client.app.state.hub
    game_id, _before, seat1_row = _seat_rows(client)
    match = hub.matches[game_id]
    seat0_row = next(s.id for s in match.info.seats if s.seat == 0)

    async def scenario() -> list[dict[str, Any]]:
        notes: list[dict[str, Any]] = []
        async with _owner_heard(hub, redis_url, game_id, seat1_row) as (cluster, pubsub):
            await cluster.redis.zadd(NODES, {"n3": int(time.time() * 1000) + 600_000})  # n3 beats too
            await cluster._heartbeat()
            failures = flaky_batches(cluster, "PUBLISH", times=1)
            cluster._room(game_id, {"t": "presence", "from": "n3", "p": {"o": [seat0_row], "s": [0], "n": 0}})
            await _until(lambda: failures, "the batch with the table's summary failing")
            await _collect(pubsub, notes, 3.0)
        return notes

    notes = client.portal.call(scenario)
    assert any(n.get("t") == "resync" for n in notes), notes  # (the resync round did run)
    tables = [n["msg"]["game"] for n in notes if n.get("t") == "all" and n["msg"].get("type") == "table"]
    seat0 = [next(s for s in t["seats"] if s["seat"] == 0) for t in tables]
    assert any(s.get("connected") for s in seat0), (
        "n2's sockets were never sent the live table's summary with seat 0 connected "
        f"(notes that got through: {[n.get('t') for n in notes]})"
    )


def _moved(note: dict[str, Any], before: int) -> bool:
    return note.get("t") == "state" and note["ply"] > before


def _greeted_on_n2(
    client: TestClient, game_id: int, seat1_row: int, heard: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """What a new seat-1 socket on n2 is shown when its hello asks the owner for the current state and n2
    hears `heard` meanwhile, in that order (the answer among the room's notes), each note handled as it
    comes: the states sent by `_room`, then the answer if `current_state` hands it to the socket."""
    hub = client.app.state.hub
    receiver = Cluster(hub, "redis://127.0.0.1:9", node="n2")  # never connects
    receiver.conns_changed = lambda game: None  # type: ignore[method-assign]
    socket = RoomSocket(occupant=seat1_row, seat=1, game_id=game_id)
    owner = hub.matches.pop(game_id, None)  # (n2 does not run the game)
    hub.rooms[game_id] = {socket}  # type: ignore[assignment]

    async def route(game: int, op: str, **fields: Any) -> Any:  # the request; `_dispatch` hands the answer
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        receiver._pending["r1"] = future
        return _answer_of(op, await future)

    async def watch(game: int) -> None:
        return None

    async def greet() -> None:
        receiver.route = route  # type: ignore[method-assign]
        receiver.watch = watch  # type: ignore[method-assign]
        greeting = asyncio.ensure_future(receiver.current_state(game_id, 1, socket))  # type: ignore[arg-type]
        await _until(lambda: "r1" in receiver._pending, "the request sent")
        for note in heard:
            receiver._dispatch(
                node_channel("n2") if note.get("op") == "reply" else room_channel(game_id), note
            )
        message = await greeting
        if message is not None:
            socket.send(message)
        await receiver.redis.aclose()

    try:
        client.portal.call(greet)
    finally:
        hub.rooms.pop(game_id, None)
        if owner is not None:
            hub.matches[game_id] = owner
    return [m for m in map(json.loads, socket.sent) if m["type"] == "state"]


async def _play_piece(match: Any) -> None:
    """An action that reveals nothing and leaves the turn to the same seat (an undo may follow)."""
    seat = match.state.to_play
    await match.submit(
        seat, next(m for m in match.state.legal_moves() if m[0] != "+" and m != "end"), match.ply
    )


async def _undo(match: Any) -> None:
    await match.control(match.state.to_play, "undo")


ANSWERED_MEANWHILE = [
    # (what is played while n1's batches are slow, before the answer, and after it)
    ("two moves, then nothing", [_move, _move], []),
    ("a move, then its undo", [_play_piece], [_undo]),
]


@pytest.mark.parametrize(
    ("case", "first", "then"), ANSWERED_MEANWHILE, ids=[case for case, *_ in ANSWERED_MEANWHILE]
)
def test_a_new_socket_elsewhere_ends_at_the_current_state(
    client: TestClient, redis_url: str, case: str, first: list[Any], then: list[Any]
) -> None:
    """n1's batches are slow (Redis slow, or a big batch on its way): the state notes of what is played
    wait in its outbox. Meanwhile a new socket of seat 1 on n2 asks n1 for the current state (a routed
    request): the answer goes through the outbox too, in order with the notes (older ones first, an undo
    made after it later), and n2 hands it to the socket only if no state note came after it. The socket is
    never shown an older board after a newer one (before, the answer overtook the older notes: the board
    went back a move and the next move's events were shown twice; or an undo came before the older
    answer, which then showed a move that no longer exists)."""
    hub = client.app.state.hub
    game_id, before, seat1_row = _seat_rows(client)
    match = hub.matches[game_id]

    async def scenario() -> list[dict[str, Any]]:
        heard: list[dict[str, Any]] = []
        async with _owner_heard(hub, redis_url, game_id, seat1_row) as (cluster, pubsub):
            await pubsub.subscribe(node_channel("n2"))  # (one connection: what n2 hears, in its order)
            ctl = _gated_batches(cluster, room_channel(game_id), fail_first=False)
            for action in first:
                await action(match)
            await _until(lambda: ctl["held"], "the first batch on its way")
            await cluster._answer({"op": "state", "game": game_id, "from": "n2", "id": "r1", "seat": 1})
            for action in then:
                await action(match)
            ctl["go"].set()
            await _collect(pubsub, heard, 3.0, lambda ns: any(n.get("op") == "reply" for n in ns))
            await _collect(pubsub, heard, 0.5)
        return heard

    heard = client.portal.call(scenario)
    order = [("reply", n["ok"]["ply"]) if n.get("op") == "reply" else ("note", n["ply"]) for n in heard
             if n.get("op") == "reply" or _moved(n, before - 1)]  # fmt: skip
    assert order[-1 - len(then)] == ("reply", before + len(first)), order  # (after the older notes)
    shown = [m["ply"] for m in _greeted_on_n2(client, game_id, seat1_row, heard)]
    assert shown and shown[-1] == match.ply, (case, order, shown)
    if not then:  # (only an undo takes the board back)
        assert shown == sorted(shown), (case, order, shown)


def test_the_events_of_a_lost_state_reach_the_other_nodes_when_the_game_ends_meanwhile(
    client: TestClient,
    redis_url: str,
) -> None:
    """Move 1's state note is in a batch that fails; seat 0 resigns while that batch is on its way. The
    resignation's note is held back (its events follow the lost state's), and the lease is given up only
    after the resync round has sent the final state with the events of both (before, the game was
    forgotten at once and the end shown from the store without events: n2's socket, which saw the state
    before move 1, never saw move 1's events)."""
    hub = client.app.state.hub
    game_id, before, seat1_row = _seat_rows(client)
    match = hub.matches[game_id]

    async def scenario() -> list[dict[str, Any]]:
        notes: list[dict[str, Any]] = []
        async with _owner_heard(hub, redis_url, game_id, seat1_row) as (cluster, pubsub):
            ctl = _gated_batches(cluster)
            await match.submit(match.state.to_play, _eventful(match.state.legal_moves()), match.ply)
            await _until(lambda: ctl["failed"], "move 1's batch on its way")
            resign = asyncio.ensure_future(match.control(0, "resign"))
            await asyncio.sleep(0.3)  # its state note and the lease's release queue behind move 1's batch
            ctl["fail"].set()
            await asyncio.wait_for(resign, 10)
            await _until(lambda: game_id not in hub.matches, "the game forgotten")
            await _collect(pubsub, notes, 3.0)
        return notes

    notes = client.portal.call(scenario)
    assert match.over and match.ply == before + 1
    expected = {e["ply"] for e in match.events.since(before, before + 1, 1)}
    assert before + 1 in expected  # (move 1 has events for seat 1)

    shown = [m for m in _shown_on_n2(client, game_id, seat1_row, before, notes) if m["type"] == "state"]
    assert shown and shown[-1]["status"] == "finished", [n.get("t") for n in notes]  # (the end is shown)
    got = {e["ply"] for m in shown for e in m["events"]}
    assert expected <= got, (
        f"n2's socket was shown the end but never the events of ply {sorted(expected - got)} "
        f"(plies of its states: {[m['ply'] for m in shown]})"
    )


def test_an_owner_that_missed_a_presence_note_reads_the_presence_again(
    client: TestClient,
    redis_url: str,
) -> None:
    """Bob's socket (seat 1) on n2 closes while the owner's (n1's) pub/sub connection is down: n2 withdraws
    it from the game's presence hash and publishes the note, which n1 misses. n1 reads the presence of its
    games again once it listens again (before, it counted Bob connected for good: his abandon clock never
    started, and no bot took his seat over)."""
    hub = client.app.state.hub
    game_id, _before, seat1_row = _seat_rows(client)
    match = hub.matches[game_id]

    async def scenario() -> set[int]:
        async with _owner_heard(hub, redis_url, game_id, seat1_row) as (cluster, _):
            assert 1 in hub.present_seats(game_id)
            # n2: Bob's socket closed, its presence entry withdrawn (the hash of every node's sockets)
            await cluster.redis.hdel(presence_key(game_id), "n2")
            # ... and its note published while n1's pub/sub connection was down: n1 never receives it
            failed = _flaky_listening(cluster)
            await _until(lambda: failed, "n1's pub/sub connection failing")
            await asyncio.sleep(2.0)  # the rounds in which n1 resyncs every game (lease time 0.6 s)
            return hub.present_seats(game_id)

    present = client.portal.call(scenario)
    assert 1 not in present, (
        f"after its pub/sub outage the owner still counts seat 1 connected through n2 (present: {present}); "
        f"seat 1's abandon clock: {match.away_since.get(1)}"
    )


def test_the_final_state_gets_through_when_the_resync_takes_longer_than_a_lease_time(
    client: TestClient, redis_url: str
) -> None:
    """Move 1's state note is in a batch that fails, and so are the owner's next fenced batches for a little
    longer than one lease time (Redis timing out on them while the small lease renewals pass). Seat 0
    resigns meanwhile: the release of the lease is put off and the match kept, so that the resync sends
    the final state with move 1's events, and the game's room is listened to until then (before,
    `finished` stopped waiting after one lease time and stopped listening: the owner forgot n2's sockets,
    sent nothing, and n2's page showed the game live, its clock running, for good)."""
    hub = client.app.state.hub
    game_id, before, seat1_row = _seat_rows(client)
    match = hub.matches[game_id]

    async def scenario() -> list[dict[str, Any]]:
        notes: list[dict[str, Any]] = []
        async with _owner_heard(hub, redis_url, game_id, seat1_row) as (cluster, pubsub):
            await cluster.watch(game_id)  # (an owner listens to its game's room: `claim_new`, `_adopt`)
            assert "n2" in cluster._remote[game_id]
            failures = flaky_batches(cluster, "EVAL", times=8)
            await match.submit(match.state.to_play, _eventful(match.state.legal_moves()), match.ply)
            await _until(lambda: failures, "move 1's batch failing")
            await match.control(0, "resign")
            await _until(lambda: game_id not in cluster.leases.held, "the lease given up", 15.0)
            await _collect(pubsub, notes, 3.0)
        return notes

    notes = client.portal.call(scenario)
    assert match.over and match.ply == before + 1
    expected = {e["ply"] for e in match.events.since(before, before + 1, 1)}
    assert before + 1 in expected  # (move 1 has events for seat 1)
    shown = [m for m in _shown_on_n2(client, game_id, seat1_row, before, notes) if m["type"] == "state"]
    assert shown and shown[-1]["status"] == "finished", (
        "the lease was given up but n2's socket was never sent the final state "
        f"(notes that got through: {[(n.get('t'), n.get('ply')) for n in notes]})"
    )
    got = {e["ply"] for m in shown for e in m["events"]}
    assert expected <= got, f"n2's socket never saw the events of ply {sorted(expected - got)}"


def test_a_pubsub_outage_does_not_restart_the_abandon_clock_of_a_crashed_nodes_seat(
    client: TestClient, redis_url: str
) -> None:
    """Bob's socket (seat 1) was on node n3, which crashed: its heartbeat is late (it counts gone), its
    presence entry is still in the hash (it is removed only after `forget_after`), and Bob's abandon clock
    runs on the owner n1. n1's pub/sub connection fails while a spectator on n2 leaves, and n1 reads the
    presence again: n3's entry there does not make n3 count alive (before, it did for a moment, and Bob's
    abandon clock started again from zero at every such hiccup)."""
    hub = client.app.state.hub
    game_id, _before, seat1_row = _seat_rows(client)
    match = hub.matches[game_id]

    async def scenario() -> tuple[float, float]:
        raw = aioredis.from_url(redis_url)
        cluster = Cluster(hub, redis_url, lease_ttl=0.6, node="n1")
        await cluster.start()
        assert await cluster.leases.claim(game_id) is not None
        hub.cluster = cluster
        try:
            now = int(time.time() * 1000)
            await raw.zadd(NODES, {"n2": now + 600_000, "n3": now - 10_000})  # n3: late, not yet forgotten
            key = presence_key(game_id)
            await raw.hset(key, "n3", json.dumps({"o": [seat1_row], "s": [1], "n": 0}))
            await raw.hset(key, "n2", json.dumps({"o": [], "s": [], "n": 1}))
            await cluster.watch(game_id)
            await cluster._heartbeat()
            await asyncio.sleep(0.5)
            assert 1 not in hub.present_seats(game_id)
            started = match.away_since[1]
            assert started != float("inf")
            await raw.hdel(key, "n2")  # n2's spectator left; its note is missed by n1
            failed = _flaky_listening(cluster)
            await _until(lambda: failed, "n1's pub/sub connection failing")
            # the presence read again once n1 listens again, then the heartbeat rounds after it
            await _until(lambda: "n2" not in cluster._remote.get(game_id, {}), "the presence read again")
            await asyncio.sleep(0.6)
            return started, match.away_since[1]
        finally:
            hub.cluster = None
            await cluster.stop()
            await raw.aclose()

    started, now_since = client.portal.call(scenario)
    assert now_since == started, (
        f"Bob's abandon clock (seat 1, his node n3 gone) was restarted by n1's pub/sub outage: "
        f"away since {started:.2f} before, {now_since:.2f} after"
    )
