"""Rate limits hold across nodes: the token buckets live in Redis, so a client whose requests a balancer
spreads over the nodes gets what one node would give it. While Redis fails, each node counts alone. The lock
that makes an account's tables one at a time holds across nodes too."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import redis.asyncio as aioredis
from redis.asyncio.lock import Lock

from tests.cluster.inprocess import UNREACHABLE
from tests.cluster.nodes import Shared, ready_nodes
from throne.server.cluster.node import Cluster
from throne.server.cluster.ratelimit import SharedRateLimiter, bucket_key
from throne.server.errors import ApiError
from throne.server.ratelimit import DEFAULT_LIMITS, Limit

LIMITS = {"login:ip": Limit(3, 6), "login:user": Limit(5, 60)}  # the address: 3 at once, then one per 10 s


async def _refusal(limiter: SharedRateLimiter, ip: str, user: str | None = None) -> ApiError:
    with pytest.raises(ApiError) as refused:
        await limiter.take("login", ip, user)
    assert refused.value.status == 429 and refused.value.code == "rate_limited"
    return refused.value


Scenario = Callable[[list[Any]], Awaitable[None]]


def _run(url: str, scenario: Scenario, clients: int = 1, **options: Any) -> None:
    """Runs `scenario` with `clients` Redis clients of `url` (each a node's), closed afterwards."""

    async def main() -> None:
        opened = [aioredis.from_url(url, **options) for _ in range(clients)]
        try:
            await scenario(opened)
        finally:
            for client in opened:
                await client.aclose()

    asyncio.run(main())


def test_two_nodes_share_a_bucket(redis_url: str) -> None:
    async def scenario(clients: list[Any]) -> None:
        first, second = (SharedRateLimiter(c, LIMITS) for c in clients)
        for limiter in (first, second, first):
            await limiter.take("login", "10.0.0.1")
        for limiter in (first, second):  # spent on both nodes, with the seconds until a refill
            assert (await _refusal(limiter, "10.0.0.1")).headers == {"Retry-After": "10"}
        await second.take("login", "10.0.0.2")  # another address has its own bucket
        # a bucket left alone expires once it would be full again
        assert 0 < await clients[0].pttl(bucket_key("login:ip", "ip:10.0.0.1")) <= 31_000

    _run(redis_url, scenario, clients=2)


def test_a_refused_request_takes_nothing_from_its_other_buckets(redis_url: str) -> None:
    async def scenario(clients: list[Any]) -> None:
        limiter = SharedRateLimiter(clients[0], {"login:ip": Limit(1, 1), "login:user": Limit(3, 1)})
        await limiter.take("login", "10.0.0.1", "name:ann")
        for _ in range(5):
            await _refusal(limiter, "10.0.0.1", "name:ann")
        for n in range(2):  # the user's bucket lost only the one request that went through
            await limiter.take("login", f"10.0.1.{n}", "name:ann")
        await _refusal(limiter, "10.0.2.1", "name:ann")

    _run(redis_url, scenario)


def test_a_bucket_refills_on_redis_clock(redis_url: str) -> None:
    async def scenario(clients: list[Any]) -> None:
        limiter = SharedRateLimiter(clients[0], {"login:ip": Limit(1, 600)})  # one per 0.1 s
        await limiter.take("login", "10.0.0.1")
        assert (await _refusal(limiter, "10.0.0.1")).headers == {"Retry-After": "1"}
        await asyncio.sleep(0.15)
        await limiter.take("login", "10.0.0.1")

    _run(redis_url, scenario)


def test_without_redis_each_node_counts_alone() -> None:
    async def scenario(clients: list[Any]) -> None:
        limiter = SharedRateLimiter(clients[0], LIMITS)
        for _ in range(3):
            await limiter.take("login", "10.0.0.1")
        await _refusal(limiter, "10.0.0.1")

    _run(UNREACHABLE, scenario, socket_connect_timeout=1)


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_logins_spread_over_nodes_meet_one_limit(shared: Shared, tmp_path: Path) -> None:
    """Wrong logins for one name, alternating between two nodes: the name's limit (its burst) is the whole
    cluster's, not each node's."""
    burst = DEFAULT_LIMITS["login:user"].burst
    env = {"THRONE_RATE_LIMITS": ""}  # the default limits
    nodes = ready_nodes("r", 2, shared.database, shared.redis_url, tmp_path, 3.0, env)
    clients = [httpx.Client(base_url=n.base, timeout=20) for n in nodes]
    attempt = {"username": "Ann", "password": "not-her-password"}
    try:
        answers = [clients[n % 2].post("/api/accounts/login", json=attempt) for n in range(burst)]
        assert [r.status_code for r in answers] == [401] * burst, [r.text for r in answers]
        for client in clients:
            refused = client.post("/api/accounts/login", json=attempt)
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "rate_limited" and "Retry-After" in refused.headers
    finally:
        for client in clients:
            client.close()
        for n in nodes:
            n.stop()


def _node(redis: Any) -> Cluster:
    """A cluster node of its own Redis client only (`Cluster.exclusive` needs no hub)."""
    node = Cluster(None, UNREACHABLE)  # type: ignore[arg-type]
    node.redis = redis
    return node


def test_a_lock_across_nodes_is_held_by_one_at_a_time(redis_url: str) -> None:
    """`Cluster.exclusive` (an account's tables are made one at a time on every node): two nodes asking for
    one name run their blocks one after the other; without Redis the block runs anyway."""

    async def scenario(clients: list[Any]) -> None:
        order: list[str] = []

        async def hold(redis: Any, node: str) -> None:
            async with _node(redis).exclusive("making:1"):
                order.append(f"{node} in")
                await asyncio.sleep(0.2)
                order.append(f"{node} out")

        await asyncio.gather(hold(clients[0], "a"), hold(clients[1], "b"))
        assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"]), order

    _run(redis_url, scenario, clients=2)

    async def without_redis(clients: list[Any]) -> None:
        async with _node(clients[0]).exclusive("making:1"):
            pass

    _run(UNREACHABLE, without_redis, socket_connect_timeout=1)


def test_a_lock_taken_by_a_request_that_timed_out_is_given_back(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis hangs while a node asks for an account's lock: the request times out, the block runs without
    it, and Redis takes the lock once it resumes. The node gives it back as soon as Redis answers, so the
    account's next table does not wait out the lock's 5 s wait (before: it did, and was made anyway)."""
    timed_out: list[str] = []
    real = Lock.do_acquire

    async def hung(self: Lock, token: bytes) -> bool:  # the request reaches Redis, its answer does not
        taken = await real(self, token)
        if not timed_out:
            timed_out.append(self.name)
            raise redis.exceptions.TimeoutError("Timeout reading from socket")
        return taken

    monkeypatch.setattr(Lock, "do_acquire", hung)

    async def scenario(clients: list[Any]) -> None:
        node = _node(clients[0])
        async with node.exclusive("making:1"):
            pass
        assert timed_out == ["throne:making:1"]
        started = time.monotonic()
        async with node.exclusive("making:1"):
            waited = time.monotonic() - started
        assert waited < 2.0, f"the next holder waited {waited:.1f} s for a lock nobody held"
        assert not await clients[0].exists("throne:making:1")

    _run(redis_url, scenario)
