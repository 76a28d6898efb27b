"""Cluster fixtures: a real redis-server per test session (and PostgreSQL from tests/store)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from tests.cluster.nodes import Shared
from tests.cluster.redisd import RedisServer
from tests.store.conftest import pg_cluster  # noqa: F401  (the throwaway PostgreSQL fixture)
from tests.store.pg import PgCluster
from throne.store import Database


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()  # a server that cannot start fails the tests that need it (never a skip)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, emptied: each test's store numbers its games from 1."""
    redis.Redis.from_url(redis_server.url).flushdb()
    return redis_server.url


@pytest.fixture
def shared(pg_cluster: PgCluster, redis_server: RedisServer) -> Iterator[Shared]:  # noqa: F811
    url = pg_cluster.new_database()
    db = Database(url)
    db.upgrade()  # once, before the nodes start (they would all migrate at once)
    db.dispose()
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    try:
        yield Shared(url, redis_server.url, client)
    finally:
        client.close()
