"""What a node announced of its sockets (`throne:p:<game>`) and its heartbeat entry do not outlive it: a node
that stops withdraws its presence, and the other nodes remove what a node gone for good (crashed, its name
never used again) left behind, while a node whose heartbeat is only late keeps its entries."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient

from tests.cluster.redisd import RedisServer
from throne.server.app import create_app
from throne.server.cluster import node
from throne.server.cluster.node import NODES, Cluster, Presence, presence_key
from throne.server.config import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k"))) as c:
        yield c


@pytest.fixture
def sync(redis_server: RedisServer) -> Iterator[redis.Redis]:
    r = redis.Redis.from_url(redis_server.url)
    r.flushdb()
    yield r
    r.close()


def test_a_stopped_node_withdraws_its_presence(
    client: TestClient, redis_server: RedisServer, sync: redis.Redis
) -> None:
    hub = client.app.state.hub

    async def scenario() -> str:
        cluster = hub.cluster = Cluster(hub, redis_server.url, lease_ttl=0.6)  # the default, unique name
        await cluster.start()
        for game in (1, 2, 3):  # (what _announce queues for a socket of the game on this node)
            cluster._outbox.put_nowait(("presence", game, Presence({10 + game}, {0}, 1)))
        await asyncio.sleep(0.5)
        assert all(sync.hexists(presence_key(game), cluster.node) for game in (1, 2, 3))
        await cluster.stop()
        return cluster.node

    try:
        name = client.portal.call(scenario)
    finally:
        hub.cluster = None
    left = {game: sync.hkeys(presence_key(game)) for game in (1, 2, 3)}
    assert left == {1: [], 2: [], 3: []}, f"{name}'s presence outlived it"
    assert sync.zscore(NODES, name) is None


def test_a_node_gone_for_good_is_forgotten(
    client: TestClient, redis_server: RedisServer, sync: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = client.app.state.hub
    monkeypatch.setattr(node, "REINDEX_EVERY", 0.2)  # the keeper's periodic round, sooner
    now_ms = int(time.time() * 1000)
    sync.zadd(NODES, {"crashed": now_ms - 10_000, "late": now_ms - 2_000})  # heartbeats 10 s and 2 s old
    for game in (1, 2):
        sync.hset(presence_key(game), mapping={"crashed": b'{"o":[1]}', "late": b'{"o":[2]}'})

    async def scenario() -> None:
        survivor = Cluster(hub, redis_server.url, lease_ttl=0.6, node="survivor")
        survivor.forget_after = 5.0
        await survivor.start()
        await asyncio.sleep(1.0)
        await survivor.stop()

    client.portal.call(scenario)
    assert {game: sorted(sync.hkeys(presence_key(game))) for game in (1, 2)} == {1: [b"late"], 2: [b"late"]}
    assert sync.zscore(NODES, "crashed") is None
    assert sync.zscore(NODES, "late") is not None
