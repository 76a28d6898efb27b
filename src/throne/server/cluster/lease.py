"""Game leases in Redis: each live game is owned by one node at a time.

A lease is the key `throne:lease:<game>` holding `<node>|<token>` with an expiry that its owner renews. The
token is a fencing token: `throne:fence:<game>` counts up on every claim, so a node that lost its lease
(expired while it was paused or cut off) holds an older token, and every fenced operation compares tokens
inside Redis (`publish`). The sorted set `throne:expiry` indexes the leases by expiry time (Redis's own
clock), so an orphan — a game whose owner died or handed it over — is found with one range query.

The node also keeps its own deadline per lease: the time it asked for the lease (or its renewal) plus the
lease time less a margin. Redis set the expiry no earlier than that, so while `holds()` is true no other node
can hold the lease, whatever the clocks of the machines say.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

PREFIX = "throne:"
EXPIRY = PREFIX + "expiry"
MARGIN = 0.2  # the share of the lease time a node stops trusting its lease before Redis lets it go

# KEYS: lease, fence, expiry index. ARGV: node, ttl ms, game. Returns the new token, or 0 when held.
_CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
local t = redis.call('TIME')
redis.call('ZADD', KEYS[3], t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[2]), ARGV[3])
return token
"""

# KEYS: expiry index. ARGV: prefix, node, ttl ms, then game, token pairs. Returns the games not renewed.
_RENEW = """
local t = redis.call('TIME')
local exp = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[3])
local lost = {}
for i = 4, #ARGV, 2 do
  local key = ARGV[1] .. 'lease:' .. ARGV[i]
  if redis.call('GET', key) == ARGV[2] .. '|' .. ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[3])
    redis.call('ZADD', KEYS[1], exp, ARGV[i])
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
"""

# KEYS: lease, expiry index, fence. ARGV: node|token, game, mode ("handover": an orphan now; "done":
# forgotten, its fencing counter too: a finished game is never claimed again, and the store keeps its last
# token, so Redis does not grow with every game ever played).
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[3] == 'done' then redis.call('ZREM', KEYS[2], ARGV[2]); redis.call('DEL', KEYS[3])
else redis.call('ZADD', KEYS[2], 0, ARGV[2]) end
return 1
"""

# KEYS: lease. ARGV: node|token, channel, payload. Publishes only while the lease is the caller's.
PUBLISH_SCRIPT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
return redis.call('PUBLISH', ARGV[2], ARGV[3])
"""

# KEYS: expiry index. ARGV: limit. The games whose lease time is over (or that were handed over).
_ORPHANS = """
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
"""


# KEYS: fence. ARGV: a token. Raises the counter to it (never lowers it): a Redis that lost its data
# (restarted without persistence) counts from 0 again, below the tokens the store keeps.
_RAISE_FENCE = """
if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
"""


@dataclass
class Lease:
    game: int
    token: int
    deadline: float  # monotonic: the node trusts the lease until then


def lease_key(game: int) -> str:
    return f"{PREFIX}lease:{game}"


def fence_key(game: int) -> str:
    return f"{PREFIX}fence:{game}"


class Leases:
    """The leases one node holds, over an asyncio Redis client."""

    def __init__(self, redis: Any, node: str, ttl: float) -> None:
        self.redis, self.node, self.ttl = redis, node, ttl
        self.held: dict[int, Lease] = {}
        self._claim = redis.register_script(_CLAIM)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._publish = redis.register_script(PUBLISH_SCRIPT)
        self._orphans = redis.register_script(_ORPHANS)
        self._raise_fence = redis.register_script(_RAISE_FENCE)

    @property
    def ttl_ms(self) -> int:
        return max(1, int(self.ttl * 1000))

    def _deadline(self, asked: float) -> float:
        return asked + self.ttl * (1 - MARGIN)

    def holds(self, game: int) -> bool:
        """Whether this node may act for `game` now (its lease is certainly still its own)."""
        lease = self.held.get(game)
        return lease is not None and time.monotonic() < lease.deadline

    def token(self, game: int) -> int | None:
        lease = self.held.get(game)
        return None if lease is None else lease.token

    async def claim(self, game: int) -> int | None:
        """Takes the lease of `game` if nobody holds it; returns the fencing token (None: held elsewhere)."""
        asked = time.monotonic()
        token = int(
            await self._claim(
                keys=[lease_key(game), fence_key(game), EXPIRY], args=[self.node, self.ttl_ms, game]
            )
        )
        if token == 0:
            return None
        self.held[game] = Lease(game, token, self._deadline(asked))
        return token

    async def renew(self) -> list[int]:
        """Renews every lease held; returns (and forgets) the games whose lease was lost."""
        if not self.held:
            return []
        asked = time.monotonic()
        args: list[Any] = [PREFIX, self.node, self.ttl_ms]
        leases = list(self.held.values())
        for lease in leases:
            args += [lease.game, lease.token]
        lost = {int(g) for g in await self._renew(keys=[EXPIRY], args=args)}
        for lease in leases:
            if lease.game in lost:
                self.held.pop(lease.game, None)
            elif self.held.get(lease.game) is lease:
                lease.deadline = self._deadline(asked)
        return sorted(lost)

    async def raise_fence(self, game: int, token: int) -> None:
        """The next claim of `game` takes a token above `token`."""
        await self._raise_fence(keys=[fence_key(game)], args=[token])

    async def release(self, game: int, *, done: bool) -> bool:
        """Gives the lease up: `done` (the game ended) forgets the game, else it is an orphan at once, for
        another node to claim (a handover). False when the lease was no longer this node's."""
        lease = self.held.pop(game, None)
        if lease is None:
            return False
        owner = f"{self.node}|{lease.token}"
        mode = "done" if done else "handover"
        keys = [lease_key(game), EXPIRY, fence_key(game)]
        return bool(await self._release(keys=keys, args=[owner, game, mode]))

    async def publish(self, game: int, channel: str, payload: bytes | str) -> int:
        """Publishes on behalf of the game's owner, fenced inside Redis: -1 (nothing sent) when the lease
        is no longer this node's; else the number of receivers."""
        lease = self.held.get(game)
        if lease is None:
            return -1
        owner = f"{self.node}|{lease.token}"
        return int(await self._publish(keys=[lease_key(game)], args=[owner, channel, payload]))

    async def owner(self, game: int) -> tuple[str, int] | None:
        """The node holding the lease of `game` and its token (None: nobody)."""
        raw = await self.redis.get(lease_key(game))
        if raw is None:
            return None
        node, _, token = (raw.decode() if isinstance(raw, bytes) else raw).rpartition("|")
        return node, int(token)

    async def orphans(self, limit: int = 200) -> list[int]:
        """Games whose lease ran out or was handed over (candidates: `claim` decides)."""
        return [int(g) for g in await self._orphans(keys=[EXPIRY], args=[limit])]

    async def forget(self, game: int) -> None:
        """Drops a game from the orphan index (it ended or does not exist)."""
        await self.redis.zrem(EXPIRY, game)

    async def index(self, games: list[int]) -> None:
        """Makes live games the store knows about claimable (a cluster starting on a fresh Redis)."""
        if games:
            await self.redis.zadd(EXPIRY, {str(g): 0 for g in games}, nx=True)
