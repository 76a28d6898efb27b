"""Caps on what one person (account or client address) may keep running, and the expiry of stale tables.

- Open tables: at most `max_open_tables_per_user` per account and `max_open_tables_per_ip` per address.
- Games with bots: at most `max_bot_games_per_user` open or live at once (on every node: counted in the store)
  and `max_bot_games_per_ip` live on this process, so that nobody can occupy the bot workers that every other
  game shares.
- Tables of bots only (nobody sits): registered accounts only, one at a time each, and at most
  `max_all_bot_games` live on this process (its bot workers).
- Open tables where nobody sits expire after `empty_table_ttl` seconds, every open table after
  `open_table_ttl`, and one whose creator sits there but has had no connection to it for `creator_gone_ttl`
  seconds (aborted; the lobby never fills with abandoned tables).
- Game sockets: at most `max_sockets_per_ip` open at once per address.

One account's tables are made one at a time (on every node of a cluster), and one address's on this process
(`making`): a cap is counted and the table made before the next request of the same person counts, so
requests sent at once cannot pass a cap together.

Addresses are remembered in memory only (per process; a restart forgets them), never stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter, OrderedDict, defaultdict
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import TYPE_CHECKING

from throne.server.errors import ApiError
from throne.server.ratelimit import client_key
from throne.store.models import User, utcnow
from throne.store.repo import StoreUnavailable

if TYPE_CHECKING:
    from throne.server.config import Settings
    from throne.server.lobby import Hub, NewTable
    from throne.store.repo import GameInfo

log = logging.getLogger(__name__)
REMEMBERED = 20_000  # game ids whose creating address is kept (the oldest are forgotten first)


def _too_many(what: str, limit: int, who: str) -> ApiError:
    return ApiError(
        429,
        "too_many_games",
        f"at most {limit} {what} per {who}; finish or leave one first",
        headers={"Retry-After": "60"},
    )


class Caps:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._creator_ip: OrderedDict[int, str] = OrderedDict()
        # the same by address: a table made from one address looks at that address's games only
        self._made_from: defaultdict[str, set[int]] = defaultdict(set)
        self._sockets: Counter[str] = Counter()
        self._creator_away: dict[int, float] = {}  # open table -> since when its creator is not connected
        self._making: dict[str, tuple[asyncio.Lock, list[int]]] = {}  # key -> its lock, and how many use it

    @contextlib.asynccontextmanager
    async def making(self, hub: Hub, user: User | None, ip: str | None) -> AsyncIterator[None]:
        """Holds the making of a table by `user` (every node's, in a cluster) and by `ip` (this process's)
        until the block ends: its caps are counted and the table made before the next one's are."""
        keys = sorted([client_key(ip), *([] if user is None else [f"uid:{user.id}"])])
        async with contextlib.AsyncExitStack() as held:
            for key in keys:
                await held.enter_async_context(self._held(key))
            if hub.cluster is not None and user is not None:
                await held.enter_async_context(hub.cluster.exclusive(f"making:{user.id}"))
            yield

    @contextlib.asynccontextmanager
    async def _held(self, key: str) -> AsyncIterator[None]:
        lock, users = self._making.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._making[key]

    # ---- tables --------------------------------------------------------------------------------------------
    async def check_table(self, hub: Hub, user: User | None, table: NewTable, ip: str | None) -> None:
        """Refuses (429 too_many_games, 403 account_needed, 503 bots_busy) a table that would exceed a cap;
        `user` None is a guest about to be made for the request."""
        s = self.settings
        key = client_key(ip)
        all_bots = not table.sit and len(table.bots) >= table.players
        if all_bots and (user is None or user.username is None):
            raise ApiError(
                403, "account_needed", "log in with a registered account to start a table of bots only"
            )
        starts_at_once = len(table.bots) + (1 if table.sit else 0) >= table.players
        if not starts_at_once:
            mine_open = 0 if user is None else await hub.db(hub.repo.open_tables_by, user.id)
            if mine_open >= s.max_open_tables_per_user:
                raise _too_many("open tables", s.max_open_tables_per_user, "player")
            if await self._open_from(hub, key) >= s.max_open_tables_per_ip:
                raise _too_many("open tables", s.max_open_tables_per_ip, "address")
        if not table.bots:
            return
        # A person's caps count their games on every node (from the store); the address's and the tables of
        # bots only count this process's live games (addresses are never stored; the bot workers are its own).
        # (a game whose record is damaged cannot be finished or left: it holds no cap)
        gone = sorted(hub.unplayable)
        mine, mine_bot_only = (0, 0) if user is None else await hub.db(hub.repo.bot_games_by, user.id, gone)
        ip_games = bot_only = 0
        for match in list(hub.matches.values()):
            if match.over or not any(x.kind == "bot" and not x.takeover for x in match.info.seats):
                continue
            ip_games += self._creator_ip.get(match.game_id) == key
            bot_only += all(x.kind == "bot" and not x.takeover for x in match.info.seats)
        if mine >= s.max_bot_games_per_user:
            raise _too_many("games with bots", s.max_bot_games_per_user, "player")
        if ip_games >= s.max_bot_games_per_ip:
            raise _too_many("games with bots", s.max_bot_games_per_ip, "address")
        if all_bots and mine_bot_only >= 1:
            raise _too_many("table of bots only", 1, "player")
        if all_bots and bot_only >= s.max_all_bot_games:
            raise ApiError(
                503,
                "bots_busy",
                "the server runs as many tables of bots only as it can; try again later",
                headers={"Retry-After": "60"},
            )

    async def _open_from(self, hub: Hub, key: str) -> int:
        # a game this process plays is live, not open: only the others are looked up
        ids = [game_id for game_id in self._made_from.get(key, ()) if game_id not in hub.matches]
        if not ids:
            return 0
        statuses = await hub.db(hub.repo.statuses, ids)
        for game_id, status in statuses.items():
            if status not in ("open", "live"):
                self._forget(game_id)  # over
        return sum(1 for status in statuses.values() if status == "open")

    def created(self, game_id: int, ip: str | None) -> None:
        self._forget(game_id)
        key = self._creator_ip[game_id] = client_key(ip)
        self._made_from[key].add(game_id)
        while len(self._creator_ip) > REMEMBERED:
            self._forget(next(iter(self._creator_ip)))

    def _forget(self, game_id: int) -> None:
        key = self._creator_ip.pop(game_id, None)
        if key is None:
            return
        made = self._made_from[key]
        made.discard(game_id)
        if not made:
            del self._made_from[key]

    # ---- stale tables ------------------------------------------------------------------------------------
    async def sweep(self, hub: Hub, clock: float | None = None) -> int:
        """Aborts the stale open tables now and starts the full ones; returns how many were aborted.
        `clock`: monotonic seconds (tests)."""
        now = utcnow()
        aborted = await hub.db(
            hub.repo.abort_stale_tables,
            now - timedelta(seconds=self.settings.empty_table_ttl),
            now - timedelta(seconds=self.settings.open_table_ttl),
        )
        tables = await hub.db(hub.repo.list_games, ["open"], None, 500, True)
        aborted += await self._creators_gone(hub, tables, time.monotonic() if clock is None else clock)
        for info in aborted:
            self._forget(info.id)
            self._creator_away.pop(info.id, None)
            hub.broadcast_table(info)
        if aborted:
            log.info("aborted %d stale open tables", len(aborted))
        gone = {info.id for info in aborted}
        await hub.start_full_tables([info for info in tables if info.id not in gone])
        return len(aborted)

    async def _creators_gone(self, hub: Hub, tables: list[GameInfo], clock: float) -> list[GameInfo]:
        """The open `tables` whose seated creator has had no connection to them for `creator_gone_ttl`
        seconds (counted from the first sweep that found them away), aborted. A connection to any node
        counts."""
        if hub.cluster is not None:
            await hub.cluster.peek_presence([info.id for info in tables])
        away: dict[int, float] = {}
        for info in tables:
            mine = {s.id for s in info.seats if s.kind == "human" and s.user_id == info.creator_id}
            if not mine or mine & hub.present_occupants(info.id):
                continue
            away[info.id] = self._creator_away.get(info.id, clock)
        self._creator_away = away
        gone = [g for g, since in away.items() if clock - since >= self.settings.creator_gone_ttl]
        return await hub.db(hub.repo.abort_open, gone) if gone else []

    async def sweep_forever(self, hub: Hub) -> None:
        s = self.settings
        interval = max(1.0, min(60.0, s.empty_table_ttl / 4, s.creator_gone_ttl / 4))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.sweep(hub)
            except StoreUnavailable:
                pass  # the next sweep tries again
            except Exception:  # nor does anything else end the sweeping
                log.exception("the sweep of open tables failed; the next one is in %.0f s", interval)

    # ---- sockets -------------------------------------------------------------------------------------------
    def socket_opened(self, ip: str | None) -> bool:
        """Counts a new game socket of this address; False (not counted) when it has too many open."""
        key = client_key(ip)
        if self._sockets[key] >= self.settings.max_sockets_per_ip:
            return False
        self._sockets[key] += 1
        return True

    def socket_closed(self, ip: str | None) -> None:
        key = client_key(ip)
        self._sockets[key] -= 1
        if self._sockets[key] <= 0:
            del self._sockets[key]
