"""A node whose heartbeat lapses for a while (its keeper busy adopting a dead node's games, Redis slow) is
counted again by the other nodes once it beats: its sockets' seats are present again and their owner sends it
states. And a keeper adopting many games keeps its own heartbeat on time meanwhile."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
import redis.asyncio as aioredis
from fastapi.testclient import TestClient

from tests.cluster.redisd import RedisServer
from tests.server.helpers import two_player_leaders
from throne.server.app import create_app
from throne.server.cluster.node import NODES, Cluster, presence_key, room_channel
from throne.server.config import Settings

TTL = 0.6


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=3600.0))) as c:
        yield c


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    redis.Redis.from_url(redis_server.url).flushdb()
    return redis_server.url


def test_a_peer_whose_heartbeat_lapsed_once_is_seen_again(client: TestClient, redis_url: str) -> None:
    hub = client.app.state.hub
    game, _ = two_player_leaders(client)
    match = hub.matches[game]
    seat = match.info.seats[1]

    async def scenario() -> dict[str, Any]:
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=TTL, node="n1")
        assert await cluster.claim_new(game)
        await cluster.start()
        r = aioredis.from_url(redis_url)
        beating = True

        async def beat() -> None:  # node n2's keeper: a heartbeat every TTL/3 while not busy
            while True:
                if beating:
                    await r.zadd(NODES, {"n2": int(time.time() * 1000)})
                await asyncio.sleep(TTL / 3)

        beats = asyncio.create_task(beat())
        await asyncio.sleep(0.3)
        mine = {"o": [seat.id], "s": [seat.seat], "n": 0}  # n2 has seat 1's socket, for the whole test
        await r.hset(presence_key(game), "n2", orjson.dumps(mine))
        await r.publish(room_channel(game), orjson.dumps({"t": "presence", "from": "n2", "p": mine}))
        await asyncio.sleep(0.5)
        before = [p.to_json() for p in cluster.remote_presence(game)]
        beating = False  # n2's keeper adopts a dead node's games for 4 lease times
        await asyncio.sleep(4 * TTL)
        beating = True
        await asyncio.sleep(5 * TTL)  # n2 heartbeats again, its socket never went away
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


def test_a_node_adopting_slowly_keeps_its_heartbeat(client: TestClient, redis_url: str) -> None:
    """(as tests/cluster/test_node_faults.py::test_adopting_slowly_keeps_the_leases_held, watching the
    heartbeat instead of the leases)"""
    hub = client.app.state.hub
    own, *orphans = (two_player_leaders(client)[0] for _ in range(8))
    db = hub.db

    async def slow_db(fn: Any, *args: Any, **kwargs: Any) -> Any:  # a loaded database: 200 ms a rebuild read
        if fn in (hub.repo.fence_game, hub.repo.moves):
            await asyncio.sleep(0.2)
        return await db(fn, *args, **kwargs)

    async def scenario() -> float:
        for g in orphans:
            await hub.matches.pop(g).halt()
        cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=TTL, node="n1")
        assert await cluster.claim_new(own)
        hub.db = slow_db
        await cluster.start()
        r = aioredis.from_url(redis_url)
        worst = 0.0
        end = time.monotonic() + 4.0
        while time.monotonic() < end:
            score = await r.zscore(NODES, "n1")
            worst = max(worst, time.time() * 1000 - score)
            await asyncio.sleep(0.05)
        hub.db = db
        await r.aclose()
        await cluster.stop()
        return worst

    try:
        worst = client.portal.call(scenario)
    finally:
        hub.cluster, hub.db = None, db
    # the other nodes count a node dead once its heartbeat is 3 lease times old (Cluster._heartbeat)
    assert worst < 3000 * TTL, f"n1's heartbeat was {worst:.0f} ms old while it adopted 7 games"
