"""Per-address and per-user rate limits for expensive or abusable requests (token buckets in memory).

Each action has its own buckets: one per client address (IPv6 addresses count per /64, what one host is
usually given) and, where the request names one, one per user or username. A request is refused with
`429 rate_limited` and a `Retry-After` header when any of its buckets is empty; a refused request takes
nothing from the others.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from throne.server.errors import ApiError


@dataclass(frozen=True)
class Limit:
    burst: int  # requests allowed at once
    per_minute: float  # sustained rate

    def __post_init__(self) -> None:
        # Both buckets divide by the rate (the wait until the next request): a bucket that never refills
        # would answer an endless Retry-After.
        if self.burst < 0 or not 0 < self.per_minute < math.inf:
            raise ValueError(
                "a rate limit holds 0 or more requests and refills at a positive finite rate, "
                f"not {self.burst} and {self.per_minute} a minute"
            )

    @property
    def per_second(self) -> float:
        return self.per_minute / 60.0


# Sized for people (a few accounts behind one NAT address), not for scripts. Login per username is the
# brake on guessing one account's password from many addresses.
DEFAULT_LIMITS: dict[str, Limit] = {
    "login:ip": Limit(20, 10),
    "login:user": Limit(10, 3),
    "register:ip": Limit(10, 2),
    "password:ip": Limit(10, 5),
    "password:user": Limit(5, 2),
    "guest:ip": Limit(60, 30),
    "table:ip": Limit(30, 10),
    "table:user": Limit(15, 5),
    "replay:ip": Limit(60, 30),
    "replay:user": Limit(40, 20),
    "mute:user": Limit(60, 30),
}
MAX_BUCKETS = 50_000


def client_key(host: str | None) -> str:
    """The bucket key of a client address: IPv6 per /64, IPv4 as it is."""
    if not host:
        return "ip:unknown"
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return f"ip:{host[:64]}"
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return f"ip:{addr.ipv4_mapped}"
        return f"ip:{ipaddress.ip_network(f'{addr}/64', strict=False)}"
    return f"ip:{addr}"


class RateLimiter:
    """The buckets in this process's memory (a cluster shares them through Redis instead:
    throne.server.cluster.ratelimit)."""

    def __init__(
        self, limits: dict[str, Limit] | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = dict(DEFAULT_LIMITS if limits is None else limits)
        self.clock = clock
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()

    def buckets(self, action: str, ip: str | None, user: str | None) -> list[tuple[str, str]]:
        """The (rule, key) buckets a request of `action` takes from: its address's and its user's, those
        with a limit."""
        wanted = [(f"{action}:ip", client_key(ip))]
        if user is not None:
            wanted.append((f"{action}:user", user))
        return [(rule, key) for rule, key in wanted if rule in self.limits]

    @staticmethod
    def refusal(action: str, seconds: float) -> ApiError:
        """429 for a request of `action` whose buckets refill enough in `seconds`."""
        wait = max(1, math.ceil(seconds))
        return ApiError(
            429,
            "rate_limited",
            f"too many {action} requests; try again in {wait} s",
            headers={"Retry-After": str(wait)},
        )

    def _level(self, rule: str, key: str, now: float) -> float:
        limit = self.limits[rule]
        tokens, at = self._buckets.get((rule, key), (float(limit.burst), now))
        return min(float(limit.burst), tokens + (now - at) * limit.per_second)

    async def take(self, action: str, ip: str | None, user: str | None = None) -> None:
        """`hit`, for callers that may be given the cluster's shared buckets."""
        self.hit(action, ip, user)

    def hit(self, action: str, ip: str | None, user: str | None = None) -> None:
        """Takes one request of `action` from its buckets, or raises 429 with the seconds to wait."""
        now = self.clock()
        wanted = self.buckets(action, ip, user)
        levels = [self._level(rule, key, now) for rule, key in wanted]
        short = [
            (1.0 - level) / self.limits[rule].per_second
            for (rule, _), level in zip(wanted, levels, strict=True)
            if level < 1.0
        ]
        if short:
            raise self.refusal(action, max(short))
        for (rule, key), level in zip(wanted, levels, strict=True):
            self._buckets[(rule, key)] = (level - 1.0, now)
            self._buckets.move_to_end((rule, key))
        while len(self._buckets) > MAX_BUCKETS:
            self._buckets.popitem(last=False)
