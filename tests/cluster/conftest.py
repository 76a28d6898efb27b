"""Cluster fixtures: a real redis-server per test session (and PostgreSQL from tests/store)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster.redisd import RedisServer
from tests.store.conftest import pg_cluster  # noqa: F401  (the throwaway PostgreSQL fixture)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()  # a server that cannot start fails the tests that need it (never a skip)
    try:
        yield server
    finally:
        server.stop()
