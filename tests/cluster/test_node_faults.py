"""A node's faults and slow moments change nothing they must not: a move being committed when the lease runs
out is answered, a new game that could not be set up is handed to another node, a long adoption keeps the
leases held, a node without the lease writes no seat take-over, a node restarted under its name withdraws
the sockets its earlier process announced, a malformed room note reseats nobody, a move routed while the
store fails is refused, not dropped with its socket, an orphan whose record is damaged is claimed once and
refused, an unreadable presence entry is left out alone, presence notes lost with their batch are sent
again, a stale owner's seat take-over is refused by the store, a node whose heartbeat was late counts
again once it beats (and its seats are shown connected again), a late note of a seat that left an open
table demotes that seat's sockets only, and a malformed state note is logged with its game."""

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

from tests.cluster.inprocess import UNREACHABLE, holding, moves_refused
from tests.cluster.nodes import RoomSocket, flaky_batches, until
from tests.server.helpers import (
    as_guest,
    hello,
    join_as,
    json_log_lines,
    read_until,
    seat_view,
    two_player_leaders,
)
from throne.server.app import create_app
from throne.server.cluster.lease import Leases
from throne.server.cluster.node import NODES, Cluster, Presence, presence_key, room_channel
from throne.server.config import Settings
from throne.server.errors import ApiError
from throne.server.match import MoveRefused
from throne.server.sessions import token_hash
from throne.store.repo import StoreError, StoreUnavailable

LAPSE_TTL = 0.6  # the lease time of the heartbeat lapse test


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=5.0))) as c:
        yield c


def test_a_move_committing_when_the_lease_runs_out_is_answered(client: TestClient) -> None:
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    match = hub.matches[game_id]
    cluster = holding(client, game_id, time.monotonic() + 60)
    write = hub.commits.write

    async def slow_write(moves: Any) -> Any:  # a busy database: the commit takes a moment
        await asyncio.sleep(0.5)
        return await write(moves)

    hub.commits.write = slow_write
    move = match.state.legal_moves()[0]

    async def scenario() -> BaseException | int:
        submitted = asyncio.ensure_future(match.submit(match.state.to_play, move, 0))
        await asyncio.sleep(0.1)  # the move waits for its commit
        await cluster._drop(game_id)  # the lease ran out meanwhile
        try:
            return await asyncio.wait_for(submitted, 3.0)
        except (MoveRefused, TimeoutError) as exc:
            return exc

    try:
        outcome = client.portal.call(scenario)
    finally:
        hub.cluster, hub.commits.write = None, write
    assert isinstance(outcome, MoveRefused) and outcome.code == "owner_moved", outcome
    assert moves_refused(client, "owner_moved") == 1.0  # counted: the moves failovers bounce show


def test_a_new_game_not_set_up_here_is_left_for_another_node(client: TestClient, redis_url: str) -> None:
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    db = hub.db

    async def scenario() -> tuple[bool, bool, bool, int | None]:
        await hub.matches.pop(game_id).halt()  # as if the table had just started and the node claims it
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=0.6, node="n1")
        await cluster.start()

        async def fence_fails(fn: Any, *args: Any, **kwargs: Any) -> Any:
            if fn == hub.repo.fence_game:
                raise StoreUnavailable("a database blip")
            return await db(fn, *args, **kwargs)

        hub.db = fence_fails
        started = await cluster.claim_new(game_id)
        hub.db = db
        await asyncio.sleep(1.2)  # two lease times: a lease kept by mistake would have been renewed
        other = aioredis.from_url(redis_url)
        try:
            token = await Leases(other, "n2", 0.6).claim(game_id)
        finally:
            await other.aclose()
        held, running = cluster.holds(game_id), game_id in hub.matches
        await cluster.stop()
        return started, held, running, token

    try:
        started, held, running, token = client.portal.call(scenario)
    finally:
        hub.cluster, hub.db = None, db
    assert not started
    # Handed back at once: claimed again as an orphan (here, by the keeper) or free for another node; never
    # a lease kept for a game nobody runs.
    assert held == running
    assert running or token is not None, "the game's lease was kept: no node may run it"


def test_adopting_slowly_keeps_the_leases_held_and_the_heartbeat(
    client: TestClient, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A keeper adopting 18 games at 0.2 s each renews its leases and its heartbeat meanwhile: it keeps its
    own game, and the other nodes never count it dead (a heartbeat 3 lease times old)."""
    hub = client.app.state.hub
    monkeypatch.setattr(hub.settings, "abandon_timeout", 3600.0)  # no bot ends a game of absent players
    own, *orphans = (two_player_leaders(client)[0] for _ in range(19))
    db = hub.db

    async def slow_db(fn: Any, *args: Any, **kwargs: Any) -> Any:  # a loaded database: 100 ms a rebuild read
        if fn in (hub.repo.fence_game, hub.repo.moves):  # (bound methods compare equal)
            await asyncio.sleep(0.1)
        return await db(fn, *args, **kwargs)

    async def scenario() -> tuple[bool, float, list[int]]:
        for game in orphans:  # their owner died: nobody runs them
            await hub.matches.pop(game).halt()
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=1.0, node="n1")
        assert await cluster.claim_new(own)
        hub.db = slow_db
        await cluster.start()  # indexes the orphans; its keeper adopts them, 0.2 s each (3.6 s in all)
        kept, oldest_beat = True, 0.0
        end = time.monotonic() + 5.0
        while time.monotonic() < end:
            kept = kept and own in hub.matches
            beat = await cluster.redis.zscore(NODES, "n1")
            oldest_beat = max(oldest_beat, time.time() - beat / 1000)
            await asyncio.sleep(0.05)
        hub.db = db
        running = sorted(hub.matches)
        await cluster.stop()
        return kept, oldest_beat, running

    try:
        kept, oldest_beat, running = client.portal.call(scenario)
    finally:
        hub.cluster, hub.db = None, db
    assert kept, "the node lost its own game while it adopted others"
    assert oldest_beat < 3.0, f"n1's heartbeat was {oldest_beat:.1f} s old while it adopted others"
    assert running == sorted([own, *orphans])


def test_a_node_without_the_lease_writes_no_take_over_and_backs_off(client: TestClient) -> None:
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)  # unrated: an abandoned seat is handed to a bot
    match = hub.matches[game_id]
    holding(client, game_id, time.monotonic() - 0.1)  # its lease lapsed; the keeper has not dropped it yet
    seat = match.state.to_play
    tries = 0
    takeover = match._takeover

    async def counted(seat: int) -> None:
        nonlocal tries
        tries += 1
        await takeover(seat)

    match._takeover = counted  # type: ignore[method-assign]

    async def scenario() -> str:
        match.away_since[seat] = time.monotonic() - 60.0  # the seat's player left a minute ago
        match._arm_timer()  # the owner loop's abandon timer
        await asyncio.sleep(1.0)
        return (await hub.db(hub.repo.get_game, game_id)).seat(seat).kind

    try:
        kind = client.portal.call(scenario)
    finally:
        hub.cluster = None
    assert kind == "human"
    assert 1 <= tries <= 6  # waits between tries (0.25 s, then doubling), as when the store fails


def test_a_finished_game_indexed_again_is_forgotten_at_once(client: TestClient, redis_url: str) -> None:
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    match = hub.matches[game_id]

    async def scenario() -> tuple[list[int], int]:
        assert await hub.db(hub.repo.fence_game, game_id, 5)  # five claims in its life
        await match.control(match.state.to_play, "resign")
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=1.0, node="n1")
        # A re-index read the game while it was live: it is an orphan again, its fencing counter gone.
        await cluster.leases.index([game_id])
        await cluster._adopt(game_id)  # token 1, below the stored 5: refused by the store
        orphans = await cluster.leases.orphans()
        counters = await cluster.redis.exists(f"throne:fence:{game_id}")
        await cluster.redis.aclose()
        return orphans, counters

    try:
        orphans, counters = client.portal.call(scenario)
    finally:
        hub.cluster = None
    assert game_id not in orphans and counters == 0 and game_id not in hub.matches


VIEWS = {"s": '{"seat": null}', "0": '{"seat": 0}'}
MALFORMED_STATE_NOTES = {
    "no seats": {"ply": 3, "after": 2, "views": VIEWS},
    "seats not a mapping": {"ply": 3, "after": 2, "views": VIEWS, "seats": [41]},
    "a seat not a number": {"ply": 3, "after": 2, "views": VIEWS, "seats": {"41": "0"}},
    "no ply": {"after": 2, "views": VIEWS, "seats": {"41": 0}},
    "views not text": {"ply": 3, "after": 2, "views": {"0": {"seat": 0}}, "seats": {"41": 0}},
}


@pytest.mark.parametrize("note", MALFORMED_STATE_NOTES.values(), ids=MALFORMED_STATE_NOTES)
def test_a_malformed_state_note_reseats_and_sends_nothing(client: TestClient, note: dict[str, Any]) -> None:
    hub = client.app.state.hub
    cluster = Cluster(hub, UNREACHABLE, node="n1")
    announced: list[int] = []
    cluster.conns_changed = announced.append  # type: ignore[method-assign]  (what the owner would be told)
    socket = RoomSocket(occupant=41, seat=0)  # seat 0's socket here; another node owns game 99
    hub.rooms[99] = {socket}
    try:
        client.portal.call(cluster._room, 99, {"t": "state", "from": "n2", **note})
    finally:
        hub.rooms.pop(99)
    assert (socket.seat, socket.sent, announced) == (0, [], [])


def test_a_well_formed_state_note_reaches_the_seat(client: TestClient) -> None:
    hub = client.app.state.hub
    cluster = Cluster(hub, UNREACHABLE, node="n1")
    socket = RoomSocket(occupant=41, seat=0)
    hub.rooms[99] = {socket}
    try:
        note = {"t": "state", "from": "n2", "ply": 3, "after": 2, "views": VIEWS, "seats": {"41": 0}}
        client.portal.call(cluster._room, 99, note)
    finally:
        hub.rooms.pop(99)
    assert (socket.seat, socket.sent) == (0, ['{"seat": 0}'])


def test_a_node_restarted_under_its_name_withdraws_old_sockets(client: TestClient, redis_url: str) -> None:
    hub = client.app.state.hub
    stale = Presence({41}, {0}, 0).to_json()  # what the earlier "n1" said before it was killed
    other = Presence({42}, {1}, 2).to_json()

    async def scenario() -> tuple[dict[bytes, bytes], list[Any]]:
        r = aioredis.from_url(redis_url)
        try:
            await r.hset(presence_key(5), mapping={"n1": orjson.dumps(stale), "n2": orjson.dumps(other)})
            listener = r.pubsub()
            await listener.subscribe(room_channel(5))
            cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=1.0, node="n1")
            await cluster.start()
            notes: list[Any] = []
            end = time.monotonic() + 3.0
            while not notes and time.monotonic() < end:
                message = await listener.get_message(ignore_subscribe_messages=True, timeout=0.2)
                if message is not None:
                    notes.append(orjson.loads(message["data"]))
            await cluster.stop()
            await listener.aclose()
            return await r.hgetall(presence_key(5)), notes
        finally:
            await r.aclose()

    try:
        entries, notes = client.portal.call(scenario)
    finally:
        hub.cluster = None
    assert entries == {b"n2": orjson.dumps(other)}  # the other node's sockets stay
    assert notes == [{"t": "presence", "from": "n1", "p": None}]  # the owner stops counting them at once


def test_a_move_routed_while_the_store_fails_is_refused(client: TestClient) -> None:
    """A game without an owner (between two owners) is looked up in the store; while the store fails, the
    move is refused `store_unavailable` (the socket's message answered) instead of raising past the socket."""
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    cluster = hub.cluster = Cluster(hub, UNREACHABLE, node="n1")
    db = hub.db

    async def no_owner(_game: int) -> None:
        return None

    async def failing_db(fn: Any, *args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("the database is read-only")

    async def scenario() -> str:
        await hub.matches.pop(game_id).halt()  # owned by nobody here
        cluster.leases.owner = no_owner  # type: ignore[method-assign]
        hub.db = failing_db
        try:
            await cluster.route(game_id, "move", seat=0, move="end", ply=0)
        except MoveRefused as exc:
            return exc.code
        finally:
            hub.db = db
        return "played"

    try:
        assert client.portal.call(scenario) == "store_unavailable"
    finally:
        hub.cluster = None


@pytest.mark.parametrize("bad", [b"not json", b"[1, 2]", b'{"o": 5}', b'{"n": "many"}'])
def test_an_unreadable_presence_entry_is_left_out(client: TestClient, redis_url: str, bad: bytes) -> None:
    """A presence entry another version of the server wrote, unreadable here, neither stops the claim of the
    game (`_load_presence`) nor a lobby list (`peek_presence`): the readable entries still count."""
    hub = client.app.state.hub
    r = redis.Redis.from_url(redis_url)
    r.hset(presence_key(5), mapping={"good": b'{"o": [1], "s": [0]}', "bad": bad})
    r.zadd(NODES, {"good": int(time.time() * 1000), "bad": int(time.time() * 1000)})  # both alive
    r.close()

    async def scenario() -> tuple[list[Presence], list[Presence]]:
        cluster = Cluster(hub, redis_url, node="n1")
        await cluster._heartbeat()
        await cluster.peek_presence([5])
        peeked = cluster.remote_presence(5)
        await cluster._load_presence(5)
        loaded = cluster.remote_presence(5)
        await cluster.redis.aclose()
        return peeked, loaded

    peeked, loaded = client.portal.call(scenario)
    assert peeked == loaded == [Presence({1}, {0}, 0)]


def test_presence_notes_lost_with_their_batch_are_sent_again(client: TestClient, redis_url: str) -> None:
    """A batch of notes that Redis failed to take (a timeout on the publisher's connection alone) is not
    lost for good: the next round announces this node's sockets again, here withdrawing a game's last
    socket, whose entry would otherwise count as a connected player for ever."""
    hub = client.app.state.hub

    async def scenario() -> dict[bytes, bytes]:
        cluster = Cluster(hub, redis_url, lease_ttl=0.6, node="n1")
        failures = flaky_batches(cluster, "HDEL")  # a batch that withdraws presence fails once
        await cluster.start()
        cluster._outbox.put_nowait(("presence", 5, Presence({1}, {0}, 0)))  # a socket of game 5 came
        await asyncio.sleep(0.3)
        cluster._outbox.put_nowait(("presence", 5, None))  # and went: that batch fails
        await asyncio.sleep(1.5)  # a few of the keeper's rounds
        entries = await cluster.redis.hgetall(presence_key(5))
        assert failures == [1]
        await cluster.stop()
        return entries

    assert client.portal.call(scenario) == {}


def test_a_stale_owners_take_over_is_refused_by_the_store(client: TestClient) -> None:
    """A seat take-over written by an owner whose lease ran out while the write waited for the database is
    refused by the store once a newer owner stored its token: the newer owner's reading of the seats stays."""
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)  # unrated: an abandoned seat is handed to a bot
    match = hub.matches[game_id]
    holding(client, game_id, time.monotonic() + 0.2)  # token 7, the lease nearly over
    seat = match.state.to_play
    db = hub.db

    async def slow_db(fn: Any, *args: Any, **kwargs: Any) -> Any:  # the write waits in a busy writer queue
        if fn == hub.repo.takeover:
            await asyncio.sleep(1.0)
        return await db(fn, *args, **kwargs)

    async def scenario() -> tuple[str, bool]:
        hub.db = slow_db
        match.away_since[seat] = time.monotonic() - 60.0
        work = asyncio.ensure_future(match._takeover(seat))  # hub.fence passes: the lease is still held
        await asyncio.sleep(0.5)
        # meanwhile the lease ran out and node n2 claimed the game with token 8 and read its seats
        fenced = await db(hub.repo.fence_game, game_id, 8)
        seats_read_by_n2 = (await db(hub.repo.get_game, game_id)).seat(seat).kind
        assert seats_read_by_n2 == "human"
        await work
        hub.db = db
        return (await db(hub.repo.get_game, game_id)).seat(seat).kind, fenced

    try:
        kind, fenced = client.portal.call(scenario)
    finally:
        hub.cluster, hub.db = None, db
    assert fenced
    assert kind == "human", "the old owner (token 7) wrote a take-over after token 8 was stored"


def test_a_peer_whose_heartbeat_lapsed_once_is_seen_again(
    client: TestClient, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = client.app.state.hub
    monkeypatch.setattr(hub.settings, "abandon_timeout", 3600.0)  # an away seat's clock would not run out
    game, _ = two_player_leaders(client)
    match = hub.matches[game]
    seat = match.info.seats[1]

    async def scenario() -> dict[str, Any]:
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=LAPSE_TTL, node="n1")
        assert await cluster.claim_new(game)
        await cluster.start()
        r = aioredis.from_url(redis_url)
        beating = True

        async def beat() -> None:  # node n2's keeper: a heartbeat every LAPSE_TTL/3 while not busy
            while True:
                if beating:
                    await r.zadd(NODES, {"n2": int(time.time() * 1000)})
                await asyncio.sleep(LAPSE_TTL / 3)

        beats = asyncio.create_task(beat())
        await asyncio.sleep(0.3)
        mine = {"o": [seat.id], "s": [seat.seat], "n": 0}  # n2 has seat 1's socket, for the whole test
        await r.hset(presence_key(game), "n2", orjson.dumps(mine))
        await r.publish(room_channel(game), orjson.dumps({"t": "presence", "from": "n2", "p": mine}))
        await asyncio.sleep(0.5)
        before = [p.to_json() for p in cluster.remote_presence(game)]
        beating = False  # n2's keeper adopts a dead node's games for 4 lease times
        await asyncio.sleep(4 * LAPSE_TTL)
        beating = True
        await asyncio.sleep(5 * LAPSE_TTL)  # n2 heartbeats again, its socket never went away
        after = [p.to_json() for p in cluster.remote_presence(game)]
        present = hub.present_seats(game)
        away = match.away_since.get(seat.seat)
        beats.cancel()
        await r.aclose()
        await cluster.stop()
        return {"before": before, "after": after, "present": present, "away": away}

    try:
        out = client.portal.call(scenario)
    finally:
        hub.cluster = None
    assert out["before"] == [{"o": [seat.id], "s": [seat.seat], "n": 0}]
    assert out["after"] == out["before"], out
    assert seat.seat in out["present"], out
    assert out["away"] in (None, float("inf")), out  # no abandon clock runs: its socket never went away


@pytest.mark.parametrize("damage", ["a malformed move", "a clock that cannot be read"])
def test_an_orphan_whose_record_is_damaged_is_claimed_once_and_refused(
    client: TestClient, redis_url: str, damage: str
) -> None:
    """An orphan's move log does not replay (a malformed move), or its clock cannot be read. The node that
    claims it finds so once, hands the lease back and leaves the game alone (its record as it is, for its
    operators) instead of claiming it again at every scan of the orphans (about a dozen in the 2.5 s here);
    a move or a state asked of the game on that node is refused `game_unavailable` at once instead of
    looking for an owner until `owner_unavailable`."""
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    db = hub.db
    reads = 0

    async def damaged_db(fn: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal reads
        answer = await db(fn, *args, **kwargs)
        if fn == hub.repo.moves and args == (game_id,):  # (bound methods compare equal)
            reads += 1
            return [(0, "zz9")] if damage == "a malformed move" else answer
        if fn == hub.repo.get_game and args == (game_id,) and damage == "a clock that cannot be read":
            answer.clock = {"bogus": 1}
        return answer

    async def refusal(request: Any) -> str:
        try:
            await request
        except (MoveRefused, ApiError, StoreError) as exc:
            return exc.code
        return "answered"

    async def scenario() -> tuple[str, str]:
        await hub.matches.pop(game_id).halt()  # its owner died: an orphan
        hub.db = damaged_db
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=0.6, node="n1")
        await cluster.start()
        await asyncio.sleep(2.5)
        answers = (
            await asyncio.wait_for(refusal(hub.submit_move(game_id, 0, "end", None)), 1.0),
            await asyncio.wait_for(refusal(hub.current_state(game_id, 0)), 1.0),
        )
        await cluster.stop()
        return answers

    try:
        move, state = client.portal.call(scenario)
    finally:
        hub.cluster, hub.db = None, db
    assert reads == 1, f"the damaged orphan's log was read (the game claimed) {reads} times"
    assert (move, state) == ("game_unavailable", "game_unavailable")


def test_a_node_counted_gone_that_speaks_again_gets_its_seat_shown_connected(
    client: TestClient, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This node (n1) runs a live game; Ann's socket sits on n2. n2's heartbeat lapses: n1 counts n2 gone and
    sends the table a `table` message with Ann disconnected and a take-over countdown. n2 then speaks again
    with a presence note (after Redis was away it announces its sockets again) before n1's next heartbeat:
    n1 sends the table a `table` message with Ann connected, without a countdown, rather than leaving every
    page counting down a take-over that never comes."""
    hub = client.app.state.hub
    monkeypatch.setattr(hub.settings, "abandon_timeout", 600.0)
    game, _ = two_player_leaders(client)
    match = hub.matches[game]
    ann = next(s for s in match.info.seats if s.seat == 0)
    tables: list[dict[str, Any]] = []
    broadcast = hub.broadcast_table

    def recording(info: Any) -> None:
        tables.append(hub.summary(info))
        broadcast(info)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        cluster = hub.cluster = holding(client, game, time.monotonic() + 60)
        cluster.redis = aioredis.from_url(redis_url)
        try:
            cluster._alive = {"n1", "n2"}
            cluster._remote[game] = {"n2": Presence({ann.id}, {0}, 0)}
            await cluster.redis.zadd(NODES, {"n2": int(time.time() * 1000) - 60_000})  # 3 lease times late
            await cluster._heartbeat()
            while_gone = list(tables)
            note = {"t": "presence", "from": "n2", "p": Presence({ann.id}, {0}, 1).to_json()}
            cluster._room(game, note)
            return while_gone, list(tables)
        finally:
            hub.cluster = None
            await cluster.redis.aclose()

    monkeypatch.setattr(hub, "broadcast_table", recording)
    while_gone, sent = client.portal.call(scenario)
    assert while_gone and while_gone[-1]["seats"][0]["connected"] is False  # the table was told Ann left
    last = sent[-1]["seats"][0]
    assert last["connected"] is True and "takeover_in" not in last, f"the table's last word on Ann: {last}"


def test_a_late_unseat_note_demotes_only_the_seat_that_left(client: TestClient) -> None:
    """An open three-seat table: Eve, whose socket is here, leaves it through another node, whose `unseat`
    note reaches this node late; meanwhile Fred joined and greeted his seat's socket here. The note demotes
    the sockets of Eve's seat row only: Eve's socket watches from then on, and once the table starts Fred's
    gets his seat's view."""
    hub = client.app.state.hub
    cluster = Cluster(hub, UNREACHABLE, node="n1")  # only its note handler is used here
    as_guest(client, "Cleo")
    made = client.post("/api/games", json={"game": "hidden-leaders", "players": 3})
    assert made.status_code == 201, made.text
    game = made.json()["game"]["id"]
    eve = join_as(client, game, "Eve")
    eve_row = next(s.id for s in hub.repo.get_game(game).seats if s.name == "Eve")
    with client.websocket_connect(f"/ws/games/{game}") as eve_socket:
        hello(eve_socket, eve)
        hub.repo.leave_seat(game, token_hash(eve))  # through the other node: this one learns by the note
        fred = join_as(client, game, "Fred")
        with client.websocket_connect(f"/ws/games/{game}") as fred_socket:
            assert hello(fred_socket, fred)[0]["seat"] is not None
            client.portal.call(cluster._room, game, {"t": "unseat", "left": [eve_row], "from": "n0"})
            watching = client.get(f"/api/games/{game}").json()["game"]["spectators"]
            assert watching == 1, f"{watching} sockets watch: Eve's alone should"
            join_as(client, game, "Dan")  # the table is full and starts
            freds, _ = read_until(fred_socket, "state")
            eves, _ = read_until(eve_socket, "state")
    assert eves["seat"] is None, "Eve's socket still acts for the seat she left"
    assert freds["seat"] is not None and freds["seat"] == seat_view(client, game, fred)["seat"]


def test_a_malformed_state_note_of_a_game_is_logged_with_its_game_id(tmp_path: Path, redis_url: str) -> None:
    """A `state` note a node cannot use on a game's room channel (a node of another version during a
    rolling upgrade) is logged with the game's `game_id`, though the pub/sub listener that logs it has no
    game in its context."""
    settings = Settings(data_dir=tmp_path, secret_key="k", redis_url=redis_url, node_name="b", lease_ttl=5.0)
    with TestClient(create_app(settings)) as client, json_log_lines("throne.server.cluster") as stream:
        hub = client.app.state.hub
        game_id, _ = two_player_leaders(client)
        client.portal.call(hub.matches.pop(game_id).halt)  # the game is run by another node; b still listens
        publisher = redis.Redis.from_url(redis_url)
        try:
            note = {"t": "state", "from": "a", "ply": "not a ply", "after": 0, "views": {}, "seats": {}}
            assert publisher.publish(room_channel(game_id), json.dumps(note)) == 1

            def logged() -> list[dict[str, Any]]:
                records = [json.loads(line) for line in stream.getvalue().splitlines()]
                return [r for r in records if "malformed state note" in r["message"]]

            until(logged, 10, "the malformed note was logged")
        finally:
            publisher.close()
        hub.cluster.leases.held.pop(game_id, None)
    lines = logged()
    assert all(line.get("game_id") == game_id for line in lines), lines
