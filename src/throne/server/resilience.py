"""Retrying without storms: exponential backoff with jitter and a circuit breaker.

A failing store must cost a bounded number of attempts and log lines per second, however many games and bots
keep asking: each retry path waits a growing, jittered delay (`Backoff`), and the store itself is guarded by
a `CircuitBreaker` that fails writes fast while it is open and lets one probe through after a cool-down.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable


class Backoff:
    """Delays base, 2·base, 4·base ... up to `cap`, each with "equal jitter" (half fixed, half random)."""

    def __init__(self, base: float, cap: float, rng: random.Random | None = None) -> None:
        self.base, self.cap = base, cap
        self.failures = 0
        self._rng = rng or random.Random()

    def failed(self) -> float:
        """Records one more failure in a row; returns how long to wait before the next attempt."""
        self.failures += 1
        ceiling = min(self.cap, self.base * 2 ** min(self.failures - 1, 30))
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def reset(self) -> None:
        self.failures = 0

    @property
    def worth_logging(self) -> bool:
        """True on failure 1, 2, 4, 8 ...: a failure streak logs O(log n) lines, not n."""
        n = self.failures
        return n > 0 and n & (n - 1) == 0


class CircuitBreaker:
    """Closed -> open after `threshold` failures in a row. Open fails fast for a cool-down, then lets one
    probe through (half-open); a failed probe doubles the cool-down (up to `max_cooldown`)."""

    def __init__(
        self,
        threshold: int = 5,
        cooldown: float = 2.0,
        max_cooldown: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold, self.base_cooldown, self.max_cooldown = threshold, cooldown, max_cooldown
        self.cooldown = cooldown
        self.clock = clock
        self.failures = 0
        self.opened_at: float | None = None
        self._probing = False

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None

    def retry_after(self) -> float:
        if self.opened_at is None:
            return 0.0
        return max(0.0, self.opened_at + self.cooldown - self.clock())

    def allow(self) -> bool:
        """May a call go to the store now? While half-open, only the one probe may."""
        if self.opened_at is None:
            return True
        if self._probing or self.retry_after() > 0:
            return False
        self._probing = True
        return True

    def success(self) -> bool:
        """Records a call the store answered; True when this closes an open breaker (recovery)."""
        recovered = self.opened_at is not None
        self.failures, self.opened_at, self._probing, self.cooldown = 0, None, False, self.base_cooldown
        return recovered

    def release(self) -> None:
        """A probe that ended without an answer (cancelled): let the next call probe instead."""
        self._probing = False

    def failure(self) -> bool:
        """Records a failed call; True when this opens the breaker (a fresh outage)."""
        self.failures += 1
        if self._probing:  # the half-open probe failed: wait longer
            self.cooldown = min(self.max_cooldown, self.cooldown * 2)
            self.opened_at, self._probing = self.clock(), False
            return False
        if self.opened_at is not None:  # a call already under way when the breaker opened
            return False
        if self.failures >= self.threshold:
            self.opened_at = self.clock()
            return True
        return False
