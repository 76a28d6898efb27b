"""Server settings: command-line options over THRONE_* environment variables over defaults."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from throne.server.ratelimit import Limit
from throne.store.db import default_sqlite_url

N = TypeVar("N", int, float)


def _env_float(name: str, default: float) -> float:
    return _env_number(name, default, float, "a number")


def _env_int(name: str, default: int) -> int:
    return _env_number(name, default, int, "a whole number")


def _env_number(name: str, default: N, parse: Callable[[str], N], what: str) -> N:
    """The variable `name` read by `parse` (unset or empty: `default`); a ValueError naming it otherwise."""
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return parse(raw)
    except ValueError:
        raise ValueError(f"{name} must be {what}, not {raw!r}") from None


def _env_flag(name: str) -> bool:
    """A yes/no setting: 1/true/yes/on or 0/false/no/off (unset or empty: off); anything else is refused."""
    raw = os.environ.get(name, "").strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    raise ValueError(f"{name} must be 1/true/yes/on or 0/false/no/off, not {raw!r}")


@dataclass
class Settings:
    data_dir: Path = field(default_factory=lambda: Path(os.environ.get("THRONE_DATA_DIR", "data")))
    database_url: str | None = field(default_factory=lambda: os.environ.get("THRONE_DATABASE_URL") or None)
    secret_key: str | None = field(default_factory=lambda: os.environ.get("THRONE_SECRET_KEY") or None)
    abandon_timeout: float = field(default_factory=lambda: _env_float("THRONE_ABANDON_TIMEOUT", 120.0))
    takeover_bot: str = field(default_factory=lambda: os.environ.get("THRONE_TAKEOVER_BOT", "easy"))
    bot_timeout: float = field(default_factory=lambda: _env_float("THRONE_BOT_TIMEOUT", 10.0))
    # Seconds between two stored checkpoints of a running clock: a crash (kill -9) loses at most this much
    # of the running seat's spent time, in its favour; a clean shutdown stores the clocks exactly.
    clock_checkpoint: float = field(default_factory=lambda: _env_float("THRONE_CLOCK_CHECKPOINT", 5.0))
    # Table chat: messages per second per connection (token bucket) and the burst allowed.
    chat_rate_per_s: float = 0.5
    chat_burst: int = 4
    # The clocks' time in milliseconds (None: the wall clock); tests pass a fake one.
    time_source: Callable[[], int] | None = None
    max_body_bytes: int = 64 * 1024
    max_ws_message_bytes: int = 16 * 1024
    ws_rate_per_s: float = field(default_factory=lambda: _env_float("THRONE_WS_RATE_PER_S", 20.0))
    ws_burst: int = 40
    ws_max_refused: int = 100
    hello_timeout: float = 30.0
    # Session cookies marked Secure (sent over HTTPS only): on behind TLS (docs/deploy.md).
    secure_cookies: bool = field(default_factory=lambda: _env_flag("THRONE_SECURE_COOKIES"))
    # Caps per account / client address (see throne.server.caps).
    max_open_tables_per_user: int = 3
    max_open_tables_per_ip: int = field(default_factory=lambda: _env_int("THRONE_MAX_OPEN_TABLES_PER_IP", 10))
    max_bot_games_per_user: int = 3
    max_bot_games_per_ip: int = field(default_factory=lambda: _env_int("THRONE_MAX_BOT_GAMES_PER_IP", 6))
    max_all_bot_games: int = 8
    empty_table_ttl: float = 600.0
    open_table_ttl: float = 3 * 3600.0
    creator_gone_ttl: float = 180.0  # an open table whose creator has no connection to it this long expires
    max_sockets_per_ip: int = field(default_factory=lambda: _env_int("THRONE_MAX_SOCKETS_PER_IP", 64))
    # Seconds a client has to send a request's headers (`throne serve`; slow-header attacks).
    header_timeout: float = field(default_factory=lambda: _env_float("THRONE_HEADER_TIMEOUT", 10.0))
    # Failure handling (docs/security.md): a lock held elsewhere fails one request after `busy_timeout`
    # seconds; retries wait retry_base, 2·retry_base ... up to retry_cap (jittered); after
    # `breaker_threshold` store failures in a row writes fail fast for `breaker_cooldown` seconds (doubling).
    busy_timeout: float = field(default_factory=lambda: _env_float("THRONE_BUSY_TIMEOUT", 2.0))
    # Seconds any one database call may take before its request fails (a hung disk or database); longer than
    # the busy timeout, so that a lock wait ends with the store's own error first.
    store_deadline: float = field(default_factory=lambda: _env_float("THRONE_STORE_DEADLINE", 10.0))
    retry_base: float = 0.25
    retry_cap: float = 30.0
    breaker_threshold: int = 5
    breaker_cooldown: float = 2.0
    breaker_max_cooldown: float = 15.0
    read_threads: int = 4
    # The database calls in a store process of their own (`throne serve`'s default: --store) instead of on
    # threads of this one, which share the event loop's interpreter lock (docs/architecture.md).
    store_process: bool = False
    # Seconds the group commit waits after a move arrives for others to join its transaction (0: none; under
    # load the moves that arrive during one commit form the next group anyway).
    commit_window: float = field(default_factory=lambda: _env_float("THRONE_COMMIT_WINDOW", 0.0))
    # `throne serve`'s interpreter switch interval (seconds): how long a database thread may wait for the
    # interpreter lock while the event loop runs (Python's default is 0.005).
    switch_interval: float = field(default_factory=lambda: _env_float("THRONE_SWITCH_INTERVAL", 0.0005))
    # `throne serve`'s young-generation garbage collection threshold (allocations; Python's default is 700).
    # A server allocates a few hundred objects per move: at 700 the collector ran ~100 times a second and its
    # full passes over every live game paused the event loop for ~150 ms each (docs/BENCHMARKS.md).
    gc_threshold: int = field(default_factory=lambda: _env_int("THRONE_GC_THRESHOLD", 50_000))
    cpu_threads: int = 2
    # Request rate limits by rule ("login:ip", ...); None: the defaults of throne.server.ratelimit, {}: none.
    rate_limits: dict[str, Limit] | None = field(
        default_factory=lambda: {} if os.environ.get("THRONE_RATE_LIMITS") == "off" else None
    )
    # A cluster (`throne serve --redis URL`): the Redis shared by the nodes (None: one process owns every
    # game), the lease time after which a dead node's games are claimed by another node, and how long a
    # Redis command (or connecting) may take before it counts as failed: a Redis that hangs without
    # closing its connections then costs a request that long, never more.
    redis_url: str | None = field(default_factory=lambda: os.environ.get("THRONE_REDIS_URL") or None)
    lease_ttl: float = field(default_factory=lambda: _env_float("THRONE_LEASE_TTL", 5.0))
    redis_timeout: float = field(default_factory=lambda: _env_float("THRONE_REDIS_TIMEOUT", 2.0))
    node_name: str | None = field(default_factory=lambda: os.environ.get("THRONE_NODE_NAME") or None)
    # Origins (scheme://host[:port]) besides the request's own Host that may send state-changing requests,
    # e.g. the public address when a proxy rewrites Host.
    allowed_origins: tuple[str, ...] = field(
        default_factory=lambda: tuple(o for o in os.environ.get("THRONE_ALLOWED_ORIGINS", "").split(",") if o)
    )

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir)
        if self.store_deadline <= self.busy_timeout:
            raise ValueError(
                f"the store deadline ({self.store_deadline:g} s, THRONE_STORE_DEADLINE) must be longer than "
                f"the busy timeout ({self.busy_timeout:g} s, THRONE_BUSY_TIMEOUT)"
            )
        if self.switch_interval <= 0:
            raise ValueError(f"THRONE_SWITCH_INTERVAL must be more than 0 s, not {self.switch_interval:g}")

    @property
    def url(self) -> str:
        return self.database_url or default_sqlite_url(self.data_dir)

    def resolved_secret(self) -> str:
        """The cookie-signing key: configured, or kept in the data directory so sessions survive restarts."""
        if self.secret_key:
            return self.secret_key
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / "secret.key"
        if not path.exists():
            path.write_text(secrets.token_urlsafe(48), encoding="utf-8")
            path.chmod(0o600)
        self.secret_key = path.read_text(encoding="utf-8").strip()
        return self.secret_key
