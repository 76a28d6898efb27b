"""Graceful shutdown (SIGTERM) and hand-over: a game being adopted when its node stops, and an open table
whose creator waits on another node."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, two_player_leaders
from throne.server.app import create_app
from throne.server.cluster.lease import EXPIRY, lease_key
from throne.server.cluster.node import NODES, Cluster, Presence, presence_key
from throne.server.config import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=3600.0))) as c:
        yield c


def test_a_game_being_adopted_when_the_node_stops_is_handed_over(client: TestClient, redis_url: str) -> None:
    """A node stopped (SIGTERM) while its keeper is adopting an orphan (claimed, its log being read: a node
    just started, or taking over a dead node's games) hands that game over too: its lease is released at
    once (an orphan again for the other nodes), as for the games it already runs, instead of staying taken
    by the stopped node for a whole lease time (here 30 s)."""
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)
    db = hub.db
    reading = asyncio.Event()

    async def slow_db(fn: Any, *args: Any, **kwargs: Any) -> Any:  # a loaded store: a slow log read
        if fn == hub.repo.moves:
            reading.set()
            await asyncio.sleep(5.0)
        return await db(fn, *args, **kwargs)

    async def scenario() -> tuple[bytes | None, float | None, bool]:
        await hub.matches.pop(game_id).halt()  # its owner died: an orphan
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=30.0, node="n1")
        hub.db = slow_db
        await cluster.start()  # indexes the orphan; the keeper claims it and reads its log
        await asyncio.wait_for(reading.wait(), 10.0)
        await cluster.stop()  # SIGTERM now
        r = redis.asyncio.from_url(redis_url)
        try:
            lease = await r.get(lease_key(game_id))
            score = await r.zscore(EXPIRY, game_id)
            now_ms = (await r.time())[0] * 1000
        finally:
            await r.aclose()
        return lease, score, score is not None and score <= now_ms

    try:
        lease, score, orphan_now = client.portal.call(scenario)
    finally:
        hub.cluster, hub.db = None, db
    assert lease is None and orphan_now, (
        f"the stopped node still holds game {game_id}'s lease ({lease!r}, expiring at {score}): "
        "no other node may claim it until then"
    )


def test_an_open_table_whose_creator_waits_on_another_node_is_not_aborted(
    client: TestClient, redis_url: str
) -> None:
    """A node's players move to the others when it stops; a creator waiting at her open table reconnects
    to another node. The sweep of open tables aborts a table whose creator has had no connection to it for
    `creator_gone_ttl` (180 s); in a cluster it counts her socket wherever it is (the shared presence,
    `throne:p:<game>`, says so), not only the sweeping node's own sockets."""
    hub, caps = client.app.state.hub, client.app.state.caps
    as_guest(client, "Ann")
    made = client.post("/api/games", json={"game": "leaders", "players": 2}).json()
    game_id = made["game"]["id"]

    async def scenario() -> str:
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=5.0, node="n1")
        # node n2, alive (its heartbeat is seen when n1 joins), has Ann's socket of the table (as its
        # `_announce` writes it)
        others = redis.asyncio.from_url(redis_url)
        await others.zadd(NODES, {"n2": int(time.time() * 1000)})
        await others.aclose()
        await cluster.start()
        info = await hub.db(hub.repo.get_game, game_id)
        ann = next(s.id for s in info.seats if s.user_id == info.creator_id)
        await cluster.redis.hset(presence_key(game_id), "n2", orjson.dumps(Presence({ann}).to_json()))
        await caps.sweep(hub, clock=0.0)
        await caps.sweep(hub, clock=hub.settings.creator_gone_ttl + 1.0)
        status = (await hub.db(hub.repo.get_game, game_id)).status
        await cluster.stop()
        return status

    try:
        status = client.portal.call(scenario)
    finally:
        hub.cluster = None
    assert status == "open", f"the table of a creator connected to node n2 was {status} by node n1's sweep"
