"""Game leases against a real redis-server: one owner at a time, fencing tokens, expiry, takeover and
handover."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from tests.asyncrun import run
from tests.cluster.redisd import RedisServer
from throne.server.cluster.lease import Leases

_games = itertools.count(1_000)


def _with_nodes(server: RedisServer, ttl: float, body: Callable[..., Awaitable[None]]) -> None:
    async def main() -> None:
        client = aioredis.from_url(server.url)
        try:
            await body(client, Leases(client, "a", ttl), Leases(client, "b", ttl))
        finally:
            await client.aclose()

    run(main())


async def _until(check: Callable[[], Awaitable[Any]], deadline_s: float = 10.0) -> Any:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        value = await check()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met before the deadline")


def test_one_owner_at_a_time(redis_server: RedisServer) -> None:
    game = next(_games)

    async def body(client: Any, a: Leases, b: Leases) -> None:
        token = await a.claim(game)
        assert token is not None and a.holds(game)
        assert await b.claim(game) is None and not b.holds(game)
        assert await a.claim(game) is None  # not even its owner claims it twice
        assert await b.owner(game) == ("a", token)
        assert await a.renew() == [] and a.holds(game)

    _with_nodes(redis_server, 5.0, body)


def test_an_expired_lease_is_taken_over_with_a_higher_token_and_fences_the_old_owner(
    redis_server: RedisServer,
) -> None:
    game = next(_games)

    async def body(client: Any, a: Leases, b: Leases) -> None:
        first = await a.claim(game)
        assert first is not None
        assert await a.publish(game, "throne:test", "x") == 0  # fenced publish works for the owner
        await _until(lambda: b.claim(game), 10.0)  # a paused: its lease runs out, b takes the game over
        second = b.token(game)
        assert second is not None and second > first
        assert not a.holds(game)  # a's own deadline passed before Redis let the lease go
        assert await a.publish(game, "throne:test", "stale") == -1  # the old owner can no longer publish
        assert await a.renew() == [game] and game not in a.held  # nor renew: it learns it lost the game
        assert await a.release(game, done=False) is False
        assert await b.owner(game) == ("b", second)

    _with_nodes(redis_server, 0.3, body)


def test_a_node_that_keeps_renewing_keeps_its_game(redis_server: RedisServer) -> None:
    game = next(_games)

    async def body(client: Any, a: Leases, b: Leases) -> None:
        await a.claim(game)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:  # several lease times, renewed at a third of one
            assert await a.renew() == [] and a.holds(game)  # (checked at once: a busy box may stall after)
            assert await b.claim(game) is None and game not in await b.orphans()
            await asyncio.sleep(0.1)

    _with_nodes(redis_server, 0.4, body)


def test_a_handover_makes_an_orphan_at_once_and_a_finished_game_is_forgotten(
    redis_server: RedisServer,
) -> None:
    handed, finished = next(_games), next(_games)

    async def body(client: Any, a: Leases, b: Leases) -> None:
        await a.claim(handed)
        await a.claim(finished)
        assert await a.release(handed, done=False) is True
        assert await a.release(finished, done=True) is True
        orphans = await b.orphans(10_000)
        assert handed in orphans and finished not in orphans  # no waiting out the lease time
        # the finished game's fencing counter goes with it; the handed-over one's counts on
        assert await client.exists(f"throne:fence:{finished}") == 0
        assert int(await client.get(f"throne:fence:{handed}")) >= 1
        assert await b.claim(handed) is not None
        assert handed not in await b.orphans(10_000) or await b.renew() == []

    _with_nodes(redis_server, 30.0, body)


def test_leases_renew_in_one_call_and_report_only_the_lost_ones(redis_server: RedisServer) -> None:
    kept, stolen = next(_games), next(_games)

    async def body(client: Any, a: Leases, b: Leases) -> None:
        await a.claim(kept)
        await a.claim(stolen)
        await client.delete(f"throne:lease:{stolen}")  # as if it expired and another node took it
        assert await b.claim(stolen) is not None
        assert await a.renew() == [stolen]
        assert a.holds(kept) and not a.holds(stolen)

    _with_nodes(redis_server, 5.0, body)


@pytest.mark.parametrize("contenders", [2, 5])
def test_concurrent_claims_have_exactly_one_winner(redis_server: RedisServer, contenders: int) -> None:
    game = next(_games)

    async def body(client: Any, a: Leases, b: Leases) -> None:
        nodes = [Leases(client, f"n{i}", 5.0) for i in range(contenders)]
        tokens = await asyncio.gather(*(n.claim(game) for n in nodes))
        assert sum(t is not None for t in tokens) == 1

    _with_nodes(redis_server, 5.0, body)
