"""Rate limits shared by the nodes: the token buckets live in Redis, so a client whose requests a balancer
spreads over N nodes gets what one node would give it, not N times that.

One script takes a request from all its buckets at once (the address's, the user's) on Redis's own clock,
or from none when any is empty, as the in-memory buckets do. A bucket left alone until it is full again
expires. While Redis fails, each node counts in its own memory (and says so in its log once per outage).
"""

from __future__ import annotations

import logging
from typing import Any

from redis.exceptions import RedisError

from throne.server.chat import ChatLimits
from throne.server.cluster.lease import PREFIX
from throne.server.ratelimit import Limit, RateLimiter

log = logging.getLogger(__name__)

# KEYS: the buckets. ARGV: burst and refill per second of each, in KEYS' order. Returns "0" when the request
# was taken from every bucket, else the seconds until every bucket holds one request again (nothing taken).
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local levels = {}
local wait = 0
for i, key in ipairs(KEYS) do
  local burst, rate = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local bucket = redis.call('HMGET', key, 'tokens', 'at')
  local tokens, at = tonumber(bucket[1]) or burst, tonumber(bucket[2]) or now
  levels[i] = math.min(burst, tokens + math.max(0, now - at) * rate)
  if levels[i] < 1 then wait = math.max(wait, (1 - levels[i]) / rate) end
end
if wait > 0 then return tostring(wait) end
for i, key in ipairs(KEYS) do
  local burst, rate = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  redis.call('HSET', key, 'tokens', tostring(levels[i] - 1), 'at', tostring(now))
  redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
end
return '0'
"""


def bucket_key(rule: str, key: str) -> str:
    return f"{PREFIX}rl:{rule}:{key}"


class SharedChatLimits(ChatLimits):
    """The chat buckets of writers and addresses, in Redis: a writer whose sockets sit on several nodes gets
    one burst, not one per node; this process's own while Redis fails."""

    def __init__(self, redis: Any) -> None:
        super().__init__()
        self._take = redis.register_script(_TAKE)
        self._failing = False

    async def take(self, user_id: int | None, ip: str | None, rate: float, burst: int) -> bool:
        wanted = self.buckets(user_id, ip, rate, burst)
        args: list[float] = []
        for _, per_second, most in wanted:
            args += [most, per_second]
        try:
            wait = float(await self._take(keys=[bucket_key("chat", key) for key, _, _ in wanted], args=args))
        except RedisError as exc:
            if not self._failing:
                log.warning("chat limits: redis failed (%s); counting on this node alone meanwhile", exc)
            self._failing = True
            return self.take_here(user_id, ip, rate, burst)
        self._failing = False
        return wait == 0


class SharedRateLimiter(RateLimiter):
    """The cluster's buckets, in Redis; this process's own (the base class) while Redis fails."""

    def __init__(self, redis: Any, limits: dict[str, Limit] | None = None) -> None:
        super().__init__(limits)
        self._take = redis.register_script(_TAKE)
        self._failing = False

    async def take(self, action: str, ip: str | None, user: str | None = None) -> None:
        wanted = self.buckets(action, ip, user)
        if not wanted:
            return
        keys = [bucket_key(rule, key) for rule, key in wanted]
        args: list[float] = []
        for rule, _ in wanted:
            args += [self.limits[rule].burst, self.limits[rule].per_second]
        try:
            wait = float(await self._take(keys=keys, args=args))
        except RedisError as exc:
            if not self._failing:
                log.warning("rate limits: redis failed (%s); counting on this node alone meanwhile", exc)
            self._failing = True
            self.hit(action, ip, user)
            return
        self._failing = False
        if wait > 0:
            raise self.refusal(action, wait)
