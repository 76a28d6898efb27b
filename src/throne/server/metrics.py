"""Prometheus metrics of one server process, exposed at `/metrics` (text exposition format).

Counters and histograms are updated on the hot path (a few microseconds a move); gauges (live games,
sockets, bot decisions waiting) are read from the hub when scraped. Each app has its own registry, so that
several apps in one process (tests) never share figures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
_LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_GROUP = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class Metrics:
    def __init__(
        self,
        live_games: Callable[[], float],
        unplayable_games: Callable[[], float],
        sockets: Callable[[], float],
        bot_queue: Callable[[], float],
        commit_queue: Callable[[], float],
    ) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.moves = Counter("throne_moves", "Moves committed and shown, by game", ["game"], registry=r)
        self.move_seconds = Histogram(
            "throne_move_seconds",
            "From a move's arrival at its game's owner to its commit and broadcast",
            buckets=_LATENCY,
            registry=r,
        )
        self.commit_seconds = Histogram(
            "throne_commit_seconds",
            "Time of one group commit (one transaction)",
            buckets=_LATENCY,
            registry=r,
        )
        self.commit_moves = Histogram(
            "throne_commit_group_moves", "Moves stored per group commit", buckets=_GROUP, registry=r
        )
        self._moves_of: dict[str, Any] = {}  # the counter's child per game: labels() costs more than inc()
        self.refused = Counter("throne_moves_refused", "Moves refused, by error code", ["code"], registry=r)
        Gauge("throne_live_games", "Live games owned by this process", registry=r).set_function(live_games)
        Gauge(
            "throne_unplayable_games", "Live games whose stored record could not be rebuilt here", registry=r
        ).set_function(unplayable_games)
        Gauge("throne_sockets", "Open game WebSocket connections", registry=r).set_function(sockets)
        Gauge("throne_bot_queue", "Bot decisions asked for and not answered yet", registry=r).set_function(
            bot_queue
        )
        Gauge("throne_commit_queue", "Moves waiting for the next group commit", registry=r).set_function(
            commit_queue
        )

    def moved(self, game: str, seconds: float | None, count: int = 1) -> None:
        """`count` moves of `game` were committed and shown, the last `seconds` after it reached its owner
        (None: moves found committed when the log was read back, whose latency nobody timed)."""
        counter = self._moves_of.get(game)
        if counter is None:
            counter = self._moves_of[game] = self.moves.labels(game)
        counter.inc(count)
        if seconds is not None:
            self.move_seconds.observe(seconds)

    def committed(self, group: int, seconds: float) -> None:
        """One group commit of `group` moves took `seconds`."""
        self.commit_seconds.observe(seconds)
        self.commit_moves.observe(group)

    def render(self) -> bytes:
        return generate_latest(self.registry)
