"""The hub: tables (open games), live matches, connections and everything they share.

Database writes run on one dedicated thread and reads on a small pool beside it (`Hub.db`), so the event loop
never waits on the disk, SQLite sees one writer at a time and reads never queue behind a slow write. Writes
go through a circuit breaker: while the store fails, they fail fast (503 `store_unavailable`) instead of
piling up. Whole-game replays run on CPU threads (`Hub.cpu`), never on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from throne.clock import Clock, ClockError, TimeControl
from throne.games.randomness import new_secret
from throne.server.chat import ChatLimits
from throne.server.commit import GroupCommit
from throne.server.config import Settings
from throne.server.conn import Conn, encode
from throne.server.errors import ApiError
from throne.server.games import (
    GameKind,
    OptionsError,
    bot_names,
    initial_state,
    kind_of,
    rebuild,
    rebuild_with_last,
    stored_kind,
)
from throne.server.match import Match, MoveRefused
from throne.server.metrics import Metrics
from throne.server.ratings_store import rating_hook
from throne.server.resilience import Backoff, CircuitBreaker
from throne.server.sessions import new_token, token_hash
from throne.server.store_calls import StoreCalls, StoreProcess, StoreThreads, StoreTimeout
from throne.server.validate import first_bad_int
from throne.store.models import User
from throne.store.repo import (
    Conflict,
    DamagedRecord,
    GameInfo,
    NewMove,
    RematchMade,
    Repo,
    SeatInfo,
    SeatSpec,
    StalePly,
    StoreError,
    StoreUnavailable,
    is_read,
    seat_to_take,
)
from throne.store.service import UNAVAILABLE

if TYPE_CHECKING:
    from throne.server.cluster.node import Cluster

log = logging.getLogger(__name__)
REMEMBERED_REMATCHES = 20_000  # finished games whose rematch is remembered (the oldest are forgotten first)
T = TypeVar("T")
_rng = secrets.SystemRandom()
CACHE_SIZE = 16  # replays kept (each up to a few MB of views)
READY_PROBE_INTERVAL = 1.0  # seconds a readiness probe's answer serves every caller
SPECTATOR_INTERVAL = 1.0  # seconds between two spectator counts sent to a room


@dataclass
class NewTable:
    game: str
    players: int
    options: dict[str, Any]
    bots: dict[int, str]
    seat: int | None
    sit: bool
    rated: bool
    private: bool
    time_control: dict[str, Any] | None = None
    side: int | None = None  # the engine seat the creator plays (None: drawn at the start like the rest)


class Hub:
    def __init__(self, settings: Settings, repo: Repo) -> None:
        self.settings = settings
        self.repo = repo
        self.store: StoreCalls = (
            StoreProcess(
                settings.url, settings.busy_timeout, settings.read_threads, deadline=settings.store_deadline
            )
            if settings.store_process
            else StoreThreads(settings.read_threads, settings.store_deadline)
        )
        self._cpu = ThreadPoolExecutor(
            max_workers=max(1, settings.cpu_threads), thread_name_prefix="throne-cpu"
        )
        self._cache: OrderedDict[tuple[Any, ...], asyncio.Future[Any]] = OrderedDict()
        self.breaker = CircuitBreaker(
            settings.breaker_threshold, settings.breaker_cooldown, settings.breaker_max_cooldown
        )
        self.rooms: dict[int, set[Conn]] = {}  # every connection of a game
        self.seated: dict[int, set[Conn]] = {}  # those that act for a seat (the rest are spectators)
        self._count_due: set[int] = set()  # games whose spectator count is about to be sent
        self._background: set[asyncio.Task[None]] = set()
        self._ready_probe_at = float("-inf")  # when the last readiness probe began
        self._ready: asyncio.Future[str | None] | None = None  # its answer, shared
        self.matches: dict[int, Match] = {}
        # live games whose stored record cannot be rebuilt here (id -> what is wrong, as logged): refused
        # `game_unavailable` until a restart reads them again (an operator may repair the record meanwhile)
        self.unplayable: dict[int, str] = {}
        # live games whose record the store could not give at start-up (store trouble): read again with
        # backoff, refused `store_unavailable` meanwhile
        self.resuming: set[int] = set()
        self._finished: dict[int, tuple[GameInfo, Any]] = {}
        self._lock = asyncio.Lock()
        self.chooser: Callable[..., Any] | None = None  # replaced in tests; default: throne.ai
        self.chat_limits = ChatLimits()  # per writer and address, across their connections
        # finished game -> its rematch (0 while it is being made): one rematch per game, however often asked
        # (the store keeps the asks and the rematch made; this remembers the recent ones without a read)
        self.rematched: OrderedDict[int, int] = OrderedDict()
        self.now_ms: Callable[[], int] = settings.time_source or (lambda: int(time.time() * 1000))
        # Set when nodes share the games (`throne serve --redis`): leases, routing and fan-out across nodes.
        self.cluster: Cluster | None = None
        self.bots_thinking = 0  # bot decisions asked for and not answered yet (the bot queue)
        self.sockets_open = 0  # game sockets accepted and not yet closed, greeted or not
        self.metrics = Metrics(
            live_games=lambda: len(self.matches),
            unplayable_games=lambda: len(self.unplayable),
            sockets=lambda: self.sockets_open,
            bot_queue=lambda: self.bots_thinking,
            commit_queue=lambda: self.commits.waiting,
        )
        # Every owner task's moves go through one group commit (several games' moves per transaction).
        self.commits = GroupCommit(
            self._write_moves, window=settings.commit_window, observe=self.metrics.committed
        )

    def fence(self, game_id: int) -> None:
        """Raises MoveRefused unless this process may write for the live game (always, without a cluster;
        in a cluster, while this node certainly holds the game's lease)."""
        if self.cluster is not None and not self.cluster.holds(game_id):
            raise MoveRefused("owner_moved", "the game moved to another server; send it again")

    def fence_token(self, game_id: int) -> int | None:
        """The fencing token this node's moves of the game are stored with (None without a cluster)."""
        return None if self.cluster is None else self.cluster.leases.token(game_id)

    async def _write_moves(self, moves: list[NewMove]) -> list[StalePly | None]:
        """A group commit: before any other write that waits (the moves of its group wait for it)."""
        return await self._write(self.repo.append_moves, (moves,), {}, urgent=True)

    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Runs a repository call off the event loop (`self.store`): `@reads` methods on its readers, the rest
        on its writer behind the circuit breaker. A database that cannot be used raises StoreUnavailable."""
        if is_read(fn):
            try:
                return await self.store.read(fn, args, kwargs)
            except UNAVAILABLE as exc:
                raise StoreUnavailable("the game store cannot be read right now; try again shortly") from exc
        return await self._write(fn, args, kwargs)

    async def _write(
        self, fn: Callable[..., T], args: tuple, kwargs: dict[str, Any], urgent: bool = False
    ) -> T:
        """Runs `fn` on the store's writer (before the other writes waiting if `urgent`) behind the circuit
        breaker."""
        if not self.breaker.allow():
            raise StoreUnavailable(
                f"the game store is failing; try again in {max(1, round(self.breaker.retry_after()))} s"
            )
        answered = False
        try:
            result = await self.store.write(fn, args, kwargs, urgent)
            answered = True
        except UNAVAILABLE as exc:
            answered = True
            self._store_failed(exc)
            if isinstance(exc, StoreTimeout):
                raise StoreUnavailable("the game store did not answer in time; try again shortly") from exc
            raise StoreUnavailable("the game store refused the write; try again shortly") from exc
        except Exception:
            answered = True
            self._store_answered()  # a refusal (StoreError) or a bug: the store itself works
            raise
        finally:
            if not answered:  # cancelled while waiting: a half-open probe must not stay claimed
                self.breaker.release()
        self._store_answered()
        return result

    def _store_failed(self, exc: BaseException) -> None:
        first = self.breaker.failures == 0 and not self.breaker.is_open
        if self.breaker.failure():
            log.error(
                "store: %d writes failed in a row; failing writes fast for %.1f s (%s)",
                self.breaker.failures,
                self.breaker.cooldown,
                exc,
            )
        elif first:
            log.warning("store: a write failed: %s", exc)

    def _store_answered(self) -> None:
        if self.breaker.success():
            log.warning("store: writes succeed again; circuit closed")
            for match in list(self.matches.values()):  # retries waiting out a long backoff go now
                match.wake()

    async def cpu(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Runs CPU-heavy work (replaying a whole game) on a worker thread, off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._cpu, partial(fn, *args, **kwargs))

    async def cached(self, key: tuple[Any, ...], build: Callable[[], T]) -> T:
        """`build()` run on a CPU thread once per key (concurrent requests share one run), then kept in a
        small LRU: a replay is computed once, not once per request."""
        future = self._cache.get(key)
        if future is None:
            future = asyncio.ensure_future(self.cpu(build))
            self._cache[key] = future
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        try:
            return await asyncio.shield(future)
        except Exception:
            if self._cache.get(key) is future:
                del self._cache[key]  # a failure is not remembered
            raise

    async def store_ready(self) -> str | None:
        """None when the database takes writes (and, in a cluster, Redis answers); else why not (readiness,
        not liveness). One probe runs at a time and its answer serves every caller for a second, so a flood
        of readiness checks costs one write a second. While the breaker is open the probe still goes to the
        store itself, so a recovered database is seen, and the breaker closed, as soon as someone asks."""
        if self._ready is None or (
            self._ready.done() and time.monotonic() - self._ready_probe_at >= READY_PROBE_INTERVAL
        ):
            self._ready_probe_at = time.monotonic()
            self._ready = asyncio.ensure_future(self._probe_ready())
        return await asyncio.shield(self._ready)

    async def _probe_ready(self) -> str | None:
        if not self.breaker.is_open:
            try:
                await self.db(self.repo.probe_write)
            except StoreUnavailable as exc:
                return exc.message
        else:
            try:
                await self.store.write(self.repo.probe_write, (), {})
            except UNAVAILABLE:
                return "the game store is failing"
            self._store_answered()
        return None if self.cluster is None else await self.cluster.ready()

    # ---- life cycle ----------------------------------------------------------------------------------------
    async def resume(self) -> None:
        """Rebuilds every live game from its seed and committed moves and restarts its owner; starts the full
        tables left open. Every clock starts again at one moment, once the rebuilding is done: the time it
        took is downtime too, not the thinking time of the players whose games were rebuilt first. A game
        whose record cannot be rebuilt is left as it is and refused `game_unavailable` (`unplayable`)."""
        rebuilt = []
        for game_id in await self.db(self.repo.games_with_status, "live"):
            try:
                rebuilt.append(await self._read_to_resume(game_id))
            except StoreUnavailable:  # a busy or restarting store: read again soon, not at the next restart
                self._resume_later(game_id)
            except Exception as exc:
                self._not_resumed(game_id, exc)
        try:
            await self.start_full_tables(await self.db(self.repo.list_games, ["open"], None, 500, True))
        except Exception:  # an unreadable table: the sweep of open tables tries again; the server starts
            log.exception("the open tables could not be read to start the full ones")
        for resumable in rebuilt:
            self._resume_match(*resumable)

    async def _read_to_resume(self, game_id: int) -> tuple[GameInfo, GameKind, Any, Any, Any]:
        """A live game rebuilt from its record: its info, kind, state, the state before its last move and
        that move (None before the first move)."""
        info = await self.db(self.repo.get_game, game_id)
        moves = await self.db(self.repo.moves, game_id)
        kind = kind_of(info.game)
        state, before = await self.cpu(rebuild_with_last, kind, info, moves)
        info.ply = len(moves)
        return info, kind, state, before, moves[-1] if moves else None

    def _not_resumed(self, game_id: int, exc: Exception) -> None:
        if isinstance(exc, (DamagedRecord, OptionsError)):  # (OptionsError: a game kind this server lacks)
            self.mark_unplayable(game_id, exc.detail if isinstance(exc, DamagedRecord) else str(exc))
        else:
            log.error(
                "game %s cannot be read to be rebuilt; left as it is",
                game_id,
                exc_info=exc,
                extra={"game_id": game_id},
            )

    def _resume_match(self, info: GameInfo, kind: GameKind, state: Any, before: Any, last: Any) -> None:
        try:
            match = self._start_match(info, kind, state)
        except Exception as exc:  # its stored clock, say: this game stays as it is, the others go on
            self.mark_unplayable(info.id, f"it cannot be resumed: {type(exc).__name__}: {exc}")
            return
        if before is not None:
            match.describe_last(before, *last)
        log.info("game %s resumed at ply %d", info.id, info.ply, extra={"game_id": info.id})

    def _resume_later(self, game_id: int) -> None:
        """Resumes a live game whose record could not be read at start-up (store trouble), with backoff, in
        the background; its requests are refused `store_unavailable` until then."""
        self.resuming.add(game_id)
        backoff = Backoff(self.settings.retry_base, self.settings.retry_cap)

        async def retry() -> None:
            try:
                while True:
                    delay = backoff.failed()
                    if backoff.worth_logging:
                        log.warning(
                            "game %s cannot be read to be rebuilt yet; trying again",
                            game_id,
                            extra={"game_id": game_id},
                        )
                    await asyncio.sleep(delay)
                    try:
                        resumable = await self._read_to_resume(game_id)
                    except StoreUnavailable:
                        continue
                    except Exception as exc:
                        self._not_resumed(game_id, exc)
                        return
                    if resumable[0].status == "live" and game_id not in self.matches:
                        self._resume_match(*resumable)
                    return
            finally:
                self.resuming.discard(game_id)

        task = asyncio.create_task(retry())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def mark_unplayable(self, game_id: int, detail: str) -> None:
        """A live game's record cannot be rebuilt: it is refused from now on, and logged once."""
        self.matches.pop(game_id, None)
        if game_id not in self.unplayable:
            log.error(
                "game %s cannot be continued: %s; its record is left as it is",
                game_id,
                detail,
                extra={"game_id": game_id},
            )
        self.unplayable[game_id] = detail

    def check_playable(self, game_id: int) -> None:
        """Raises DamagedRecord (`game_unavailable`) for a game whose record this server cannot rebuild, and
        StoreUnavailable for one it is still to read."""
        detail = self.unplayable.get(game_id)
        if detail is not None:
            raise DamagedRecord(game_id, detail)
        if game_id in self.resuming:
            raise StoreUnavailable(f"game {game_id} is being read from the store; try again shortly")

    async def close(self) -> None:
        """A store that does not answer delays this by STOP_WAIT at most (docs/server-api.md *Clocks*): the
        clocks' writes and the calls the store took share it; then its processes are killed (a stuck writer
        thread is left to end with the process). One that stored the clocks gets a second at least."""
        from throne.server.match import STOP_WAIT  # as it is now (tests shorten it)

        until = time.monotonic() + STOP_WAIT
        answered = True
        if self.cluster is not None:  # hands this node's games over before the sockets close
            answered = await self.cluster.stop()
        for task in list(self._background):
            task.cancel()
        answered = await Match.stop_all(list(self.matches.values())) and answered
        self.matches.clear()
        await self.commits.close()
        for conns in self.rooms.values():
            for conn in list(conns):
                conn.close(1001)
        await self.store.close(max(until - time.monotonic(), 1.0 if answered else 0.0))
        self._cpu.shutdown(wait=True)

    def _start_match(self, info: GameInfo, kind: GameKind, state: Any) -> Match:
        match = Match(self, info, kind, state)
        self.matches[info.id] = match
        match.presence_changed()
        match.start()
        return match

    async def choose_move(self, game: str, state: Any, seat: int, bot: str, *, ply: int) -> str:
        """A bot's move. The bot's seed is fresh entropy, unrelated to the game's secret."""
        seed = _rng.randrange(2**63)
        self.bots_thinking += 1
        try:
            if self.chooser is not None:
                return await self.chooser(game, state, seat, bot, seed=seed, ply=ply)
            from throne import ai

            timeout = self.settings.bot_timeout
            return await ai.choose_move_async(game, state, seat, bot, seed=seed, timeout=timeout)
        finally:
            self.bots_thinking -= 1

    def rating_hook(self, info: GameInfo) -> Callable[..., None] | None:
        return rating_hook(info)

    def adopted(self, guest_id: int, user_id: int) -> None:
        """The running games learn that a guest's seats now belong to the account it signed up as."""
        for match in self.matches.values():
            for seat in match.info.seats:
                if seat.user_id == guest_id:
                    seat.user_id = user_id

    # ---- tables --------------------------------------------------------------------------------------------
    def check_table(self, t: NewTable, user: User | None) -> tuple[GameKind, dict[str, Any]]:
        """The table's game kind and normalised options, or the ApiError that refuses it (`user`: its
        creator, None for a visitor who is not yet a guest)."""
        try:
            TimeControl.parse(t.time_control)
        except ClockError as exc:
            raise ApiError(400, "bad_time_control", str(exc)) from None
        bad = first_bad_int(t.options)
        if bad is not None:
            raise ApiError(400, "bad_options", "option values are integers between -2^63 and 2^63-1")
        try:
            kind = kind_of(t.game)
            options = kind.normalize_options(t.players, t.options)
        except OptionsError as exc:
            raise ApiError(400, "bad_options", str(exc)) from None
        known = set(bot_names(t.game))
        for place, bot in t.bots.items():
            if not 0 <= place < t.players:
                raise ApiError(
                    400, "bad_options", f"bot seat {place} does not exist in a {t.players}-player game"
                )
            if bot not in known:
                raise ApiError(400, "unknown_bot", f"unknown bot {bot!r}; choose one of {sorted(known)}")
        if t.sit:
            if t.seat is not None and not 0 <= t.seat < t.players:
                raise ApiError(
                    400, "bad_options", f"seat {t.seat} does not exist in a {t.players}-player game"
                )
            if t.seat is not None and t.seat in t.bots:
                raise ApiError(409, "seat_taken", f"seat {t.seat} is given to a bot")
            if len(t.bots) >= t.players:
                raise ApiError(409, "table_full", 'every seat is given to a bot; use "sit": false')
        if t.side is not None:
            if not t.sit:
                raise ApiError(400, "bad_options", "a side is chosen by a creator who sits at the table")
            if not 0 <= t.side < t.players:
                raise ApiError(
                    400, "bad_options", f"side {t.side} does not exist in a {t.players}-player game"
                )
        if t.rated and t.bots:
            raise ApiError(
                400, "rated_needs_people", "rated games are played by registered players only, no bots"
            )
        if t.rated and (user is None or user.username is None):
            raise ApiError(403, "rated_needs_account", "log in with a registered account to play rated games")
        return kind, options

    async def create_table(self, user: User, t: NewTable) -> tuple[GameInfo, str | None, str | None]:
        kind, options = self.check_table(t, user)
        specs = [SeatSpec(seat=p, kind="bot", name=b, bot=b) for p, b in sorted(t.bots.items())]
        token = None
        if t.sit:
            place = t.seat if t.seat is not None else min(set(range(t.players)) - set(t.bots))
            token = new_token()
            specs.append(
                SeatSpec(
                    seat=place,
                    kind="human",
                    name=user.name,
                    user_id=user.id,
                    token_hash=token_hash(token),
                    side=t.side,  # stored with the seat: a restart before the table fills keeps it
                )
            )
        invite = secrets.token_urlsafe(12) if t.private else None
        control = TimeControl.parse(t.time_control)
        clock = Clock.new(control, t.players).snapshot(0) if control.timed else None
        info = await self.db(
            self.repo.create_game,
            game=kind.name,
            players=t.players,
            options=options,
            rated=t.rated,
            private=t.private,
            invite=invite,
            creator_id=user.id,
            seats=specs,
            clock=clock,
        )
        return await self._start_soon(info), token, invite

    def check_join(self, info: GameInfo, user: User | None, seat: int | None) -> None:
        """Refuses a join that the table as read (`info`) already rules out (`user` None: a visitor not yet
        a guest), so that a refused visitor is not made a guest; the write checks again."""
        if info.rated and (user is None or user.username is None):
            raise ApiError(
                403, "rated_needs_account", "log in with a registered account to join a rated game"
            )
        seat_to_take(info.id, info.status, info.players, info.seats, None if user is None else user.id, seat)

    async def join(self, info: GameInfo, user: User, seat: int | None) -> tuple[GameInfo, str, int]:
        """`user` takes `seat` (None: the first free one) at the table `info`, as read by the caller after
        its invite was checked; the seat itself is taken in one guarded write (full or started: Conflict)."""
        game_id = info.id
        self.check_join(info, user, seat)
        token = new_token()
        info, place = await self.db(
            self.repo.join_seat, game_id, seat, user_id=user.id, name=user.name, token_hash=token_hash(token)
        )
        await self.peek_presence(game_id)
        self.broadcast_table(info)
        return await self._start_soon(info), token, place

    async def _start_soon(self, info: GameInfo) -> GameInfo:
        """Starts a full table (`maybe_start`) whose seats are committed: whatever happens to the start, their
        tokens must reach their owners, so a store failing now has the start retried in the background."""
        try:
            return await self.maybe_start(info)
        except StoreUnavailable:
            log.warning(
                "game %s: the table is full but could not start now; retrying",
                info.id,
                extra={"game_id": info.id},
            )
            self._start_later(info.id)
            return info

    async def start_full_tables(self, tables: list[GameInfo]) -> None:
        """Starts the open tables among `tables` whose seats are all taken: their start failed after the last
        seat was committed and was not retried (the server stopped meanwhile, or its retries ran out). One
        that cannot start now is left for the next sweep of open tables (`Caps.sweep`)."""
        for info in tables:
            if info.status != "open" or len(info.seats) < info.players:
                continue
            log.info("game %s: starting a full table left open", info.id, extra={"game_id": info.id})
            try:
                await self.maybe_start(info)
            except StoreUnavailable:
                log.warning("game %s: the full table cannot start now", info.id, extra={"game_id": info.id})
            except Exception:  # one table that cannot start must not keep the others (or the server) down
                log.exception("game %s: the full table cannot start", info.id, extra={"game_id": info.id})

    def _start_later(self, game_id: int) -> None:
        """Starts a full table whose start failed (store trouble), with backoff, in the background."""
        backoff = Backoff(self.settings.retry_base, self.settings.retry_cap)

        async def retry() -> None:
            for _ in range(20):
                await asyncio.sleep(backoff.failed())
                try:
                    await self.maybe_start(await self.db(self.repo.get_game, game_id))
                    return
                except StoreUnavailable:
                    continue
            log.error(
                "game %s: a full table could not be started after 20 tries",
                game_id,
                extra={"game_id": game_id},
            )

        task = asyncio.create_task(retry())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def leave(self, game_id: int, token: str) -> GameInfo:
        leaving = await self.db(self.repo.seat_by_token, game_id, token_hash(token))
        info = await self.db(self.repo.leave_seat, game_id, token_hash(token))  # its chosen side goes too
        if leaving is not None:  # (a row id is never given to another seat)
            self.unseat_left(game_id, [leaving.id])
            if self.cluster is not None:  # its sockets on the other nodes watch from now on too
                self.cluster.publish_room(game_id, {"t": "unseat", "left": [leaving.id]})
        await self.peek_presence(game_id)
        self.broadcast_table(info)
        return info

    def unseat_left(self, game_id: int, left: Collection[int]) -> bool:
        """The sockets here of the seat rows that `left` the table watch it from now on; True if there was
        one. A socket must not act for a row its seat no longer has."""
        return self._unseat(game_id, left.__contains__)

    def keep_seated(self, game_id: int, rows: Collection[int]) -> bool:
        """The sockets here whose seat row is not among the table's `rows` (it left) watch it from now on;
        True if there was one."""
        return self._unseat(game_id, lambda row: row not in rows)

    def _unseat(self, game_id: int, gone: Callable[[int], bool]) -> bool:
        gone_conns = [c for c in self.seated.get(game_id, ()) if c.occupant is not None and gone(c.occupant)]
        for conn in gone_conns:
            self.remove_conn(conn)
            conn.occupant = conn.seat = conn.session_user = None
            self.add_conn(conn)
        return bool(gone_conns)

    def invite_ok(self, info: GameInfo, invite: str | None) -> bool:
        return bool(invite and secrets.compare_digest(invite.encode(), (info.invite or "").encode()))

    def check_invite(self, info: GameInfo, invite: str | None) -> None:
        """A private table without its invite answers exactly like a game that does not exist."""
        if info.private and not self.invite_ok(info, invite):
            raise ApiError(404, "not_found", f"no game {info.id}")

    async def maybe_start(self, info: GameInfo, order: list[int] | None = None) -> GameInfo:
        """A table whose seats are all taken starts: a fresh 128-bit secret, random seating except the
        sides chosen at creation (or `order`: order[i] is the table place that plays engine seat i)."""
        if info.status != "open" or len(info.seats) < info.players:
            return info
        async with self._lock:
            if order is None:  # the sides chosen at creation are stored with their seats
                order = seating(info.players, {s.seat: s.side for s in info.seats if s.side is not None})
            try:
                started, tokens = await self.db(self.repo.start_game, info.id, new_secret(), order)
            except Conflict:  # started meanwhile, or someone left since `info` was read: not full
                return await self.db(self.repo.get_game, info.id)
            kind = kind_of(started.game)
            state = initial_state(kind, started)
            self.reseat(started.id, {s.id: s.seat for s in started.seats})
            if self.cluster is None or await self.cluster.claim_new(started.id):
                match = self._start_match(started, kind, state)
                # the table chat opens with the game; without other nodes every message passes through here
                match.chat_empty = self.cluster is None
                match.tokens = tokens
        self.broadcast_table(started)
        match = self.matches.get(started.id)
        if match is not None:
            self.broadcast_state(match)
        return started

    async def play_bot(
        self,
        user: User,
        game: str,
        bot: str,
        players: int,
        options: dict[str, Any],
        time_control: dict[str, Any] | None = None,
        side: int | None = None,
    ) -> tuple[GameInfo, str]:
        """One request: a started game between this user and bots of one level (the user's engine seat
        `side`, else random)."""
        bots = {p: bot for p in range(1, players)}
        info, token, _ = await self.create_table(
            user, NewTable(game, players, options, bots, 0, True, False, False, time_control, side)
        )
        assert token is not None
        return info, token

    # ---- connections and messages --------------------------------------------------------------------------
    def add_conn(self, conn: Conn) -> None:
        self.rooms.setdefault(conn.game_id, set()).add(conn)
        if conn.occupant is not None:
            self.seated.setdefault(conn.game_id, set()).add(conn)
        else:
            self.spectators_changed(conn.game_id)
        self._presence(conn.game_id)
        if self.cluster is not None:
            self.cluster.conns_changed(conn.game_id)

    def remove_conn(self, conn: Conn) -> None:
        for rooms in (self.rooms, self.seated):
            room = rooms.get(conn.game_id)
            if room is not None:
                room.discard(conn)
                if not room:
                    del rooms[conn.game_id]
        if conn.occupant is None:
            self.spectators_changed(conn.game_id)
        self._presence(conn.game_id)
        if self.cluster is not None:
            self.cluster.conns_changed(conn.game_id)

    def end_sessions(self, user_id: int) -> None:
        """The account's sessions ended (logout, password change): the sockets they seated, or where they
        chat as a spectator, stop (`session_ended`, close 4401); a client may reconnect with a valid cookie
        or a seat token."""
        message = {"type": "error", "code": "session_ended", "message": "your session ended; log in again"}
        for room in list(self.rooms.values()):
            for conn in list(room):
                if conn.session_user == user_id:
                    conn.end(message, 4401)

    def _presence(self, game_id: int) -> None:
        match = self.matches.get(game_id)
        if match is not None:
            match.presence_changed()

    def reseat(self, game_id: int, seat_of: dict[int, int]) -> bool:
        """Gives each of the game's sockets here its occupant's engine seat once the game started (`seat_of`:
        seat row -> engine seat): while the table was open a socket's seat was its table place, which would
        pass for the engine seat of that number. A row the game does not have left the table: its sockets
        watch. True when a socket's seat changed."""
        changed = self.keep_seated(game_id, seat_of)
        for conn in self.rooms.get(game_id, ()):
            if conn.occupant is not None and conn.seat != seat_of.get(conn.occupant):
                conn.seat, changed = seat_of.get(conn.occupant), True
        return changed

    async def peek_presence(self, game_id: int) -> None:
        """Before a summary made here (a `table` message, a `welcome`): who is connected to the game on the
        other nodes."""
        if self.cluster is not None:
            await self.cluster.peek_presence([game_id])

    def present_seats(self, game_id: int) -> set[int]:
        here = {c.seat for c in self.seated.get(game_id, ()) if c.seat is not None and not c.closed}
        if self.cluster is not None:
            for other in self.cluster.remote_presence(game_id):
                here |= other.seats
        return here

    def present_occupants(self, game_id: int) -> set[int]:
        here = {c.occupant for c in self.seated.get(game_id, ()) if c.occupant is not None and not c.closed}
        if self.cluster is not None:
            for other in self.cluster.remote_presence(game_id):
                here |= other.occupants
        return here

    def spectator_count(self, game_id: int) -> int:
        here = len(self.rooms.get(game_id, ())) - len(self.seated.get(game_id, ()))
        if self.cluster is not None:
            here += sum(other.spectators for other in self.cluster.remote_presence(game_id))
        return here

    def spectators_changed(self, game_id: int) -> None:
        """Spectators coming and going send the room one small `spectators` count at most once per
        SPECTATOR_INTERVAL, never a `table` message each: churn costs O(N) per interval, not O(N) per join."""
        if game_id in self._count_due:
            return
        self._count_due.add(game_id)

        def send() -> None:
            self._count_due.discard(game_id)
            count = self.spectator_count(game_id)
            self.tell_here(game_id, {"type": "spectators", "game_id": game_id, "count": count})

        asyncio.get_running_loop().call_later(SPECTATOR_INTERVAL, send)

    def summary(
        self, info: GameInfo, user_id: int | None = None, owner: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A game as the lobby, the welcome and `table` messages show it. `owner`: its live game's summary
        from the node that runs it (`owner_summary`), which alone knows the seat to play and the take-over
        countdowns; who is connected is this node's latest knowledge."""
        present = self.present_occupants(info.id)
        unavailable = info.id in self.unplayable  # its record is damaged: it cannot be shown or go on
        seats: list[dict[str, Any]] = []
        taken = {s.seat: s for s in info.seats}
        you = None
        for n in range(info.players):
            s = taken.get(n)
            if s is None:
                seats.append({"seat": n, "kind": "open"})
                continue
            entry: dict[str, Any] = {"seat": n, "kind": s.kind, "name": s.name}
            if s.kind == "bot":
                entry["bot"] = s.bot
                if s.takeover:
                    entry["takeover"] = True
            else:
                entry.update(user_id=s.user_id, registered=s.registered, connected=s.id in present)
                left = self._takeover_in(info.id, n) if s.id not in present and not unavailable else None
                if left is not None:
                    entry["takeover_in"] = left  # seconds before a bot takes the seat (or it loses, rated)
            if user_id is not None and s.user_id == user_id and person_seat(s):
                you = {"seat": n}
            seats.append(entry)
        match = self.matches.get(info.id)
        ply = match.ply if match is not None else info.ply
        to_play = match.state.to_play if match is not None and not match.over else None
        if owner is not None:
            ply, to_play = owner.get("ply", ply), owner.get("to_play")
            owned = owner.get("seats", ())
            countdowns = {e.get("seat"): e["takeover_in"] for e in owned if "takeover_in" in e}
            for entry in seats:
                if entry.get("connected") is False and entry["seat"] in countdowns:
                    entry["takeover_in"] = countdowns[entry["seat"]]
        return {
            "id": info.id,
            "game": info.game,
            "renderer": _renderer(info.game),
            "status": info.status,
            "players": info.players,
            "options": info.options,
            "rated": info.rated,
            "private": info.private,
            "created_at": _iso(info.created_at),
            "seats": seats,
            "ply": ply,
            "to_play": to_play,
            "result": info.result,
            "time_control": (info.clock or {}).get("control", {"kind": "untimed"}),
            "you": you,
            "spectators": self.spectator_count(info.id),
            "unavailable": unavailable,
        }

    def _takeover_in(self, game_id: int, seat: int) -> float | None:
        """Seconds before the abandon rule acts on an absent seat of a live game (None: it does not run)."""
        match = self.matches.get(game_id)
        since = None if match is None or match.over else match.away_since.get(seat)
        if since is None or since == float("inf"):
            return None
        return round(max(0.0, since + self.settings.abandon_timeout - time.monotonic()), 1)

    async def table_info(self, game_id: int) -> GameInfo:
        """The game's table as stored: a game played here as its match holds it (each change is committed
        before the match takes it), a finished game's as kept when it ended, else read now."""
        match = self.matches.get(game_id)
        if match is not None:
            return match.info
        finished = self._finished.get(game_id)
        return finished[0] if finished is not None else await self.db(self.repo.get_game, game_id)

    def table_watched(self, game_id: int) -> bool:
        """Whether anyone may be told of a change at the table: a socket of it here, or another node's."""
        return bool(self.rooms.get(game_id)) or self.cluster is not None

    async def owner_summary(self, info: GameInfo) -> dict[str, Any] | None:
        """For `summary`: a live game's summary from its owner on another node, None when this node owns it,
        the game is not live, or no owner answered (it is moving)."""
        if self.cluster is None or info.status != "live" or info.id in self.matches:
            return None
        return await self.cluster.owner_summary(info.id)

    def broadcast_table(self, info: GameInfo) -> None:
        """Sends every socket of the game, on every node, its `table` summary. A live game's summary is its
        owner's to send: another node's would lack the seat to play and the take-over countdowns (the owner
        sends one when the other nodes' presence notes change who is connected)."""
        if self.cluster is not None and info.status == "live" and info.id not in self.matches:
            return
        self.tell_room(info.id, {"type": "table", "game": self.summary(info)})

    def tell_room(self, game_id: int, message: dict[str, Any]) -> None:
        """Sends `message` to every socket of the game, on every node."""
        self.tell_here(game_id, message)
        if self.cluster is not None:
            self.cluster.publish_room(game_id, {"t": "all", "msg": message})

    def tell_here(self, game_id: int, message: dict[str, Any]) -> None:
        """Sends `message` to every socket of the game on this node."""
        for conn in list(self.rooms.get(game_id, ())):
            conn.send(message)

    def state_message(
        self,
        game_id: int,
        kind: GameKind,
        state: Any,
        ply: int,
        status: str,
        result: dict[str, Any] | None,
        seat: int | None,
        cache: dict[int | None, dict[str, Any]] | None = None,
        bot_seats: frozenset[int] = frozenset(),
        events: list[dict[str, Any]] | None = None,
        match: Match | None = None,
        legal: list[str] | None = None,
        clocks: dict[str, Any] | None = None,
        offers: dict[str, Any] | None = None,
        info: GameInfo | None = None,
    ) -> dict[str, Any]:
        """One connection's `state` message. A seat played by a bot (a take-over) is never told to move.
        `events` are those of the moves since the previous `state` this connection got; a live `match`
        adds its clocks and pending offers (and may have ended without the engine: timeout, resignation).
        `cache` (views by seat), `legal` (the legal moves), `clocks` and `offers` let a broadcast compute each
        once. `left` says why a bot plays this connection's own seat in its person's place (resign, timeout,
        abandoned; None otherwise): the seats come from the live `match`, else from `info`."""
        key = None if kind.spec.shared_view else seat  # one view serves every seat when the engine says so
        if cache is not None and key in cache:
            view = cache[key]
        else:
            view = kind.view(state, seat)
            if cache is not None:
                cache[key] = view
        over = bool(state.is_over) or (match is not None and match.over)
        to_play = None if over else state.to_play
        mine = seat is not None and seat == to_play and seat not in bot_seats
        if mine and legal is None:
            legal = list(state.legal_moves())
        if match is not None and clocks is None:
            clocks = match.clocks()
        if match is not None and offers is None:
            offers = match.offers()
        table = match.info if match is not None else info
        own = table.seat(seat) if table is not None and seat is not None else None
        left = own.left if own is not None and own.kind == "bot" and own.takeover else None
        return {
            "type": "state",
            "game_id": game_id,
            "status": status,
            "ply": ply,
            "seat": seat,
            "to_play": to_play,
            "your_turn": mine,
            "legal_moves": legal if mine else [],
            "last_move": view.get("last_move") if isinstance(view, dict) else None,
            "view": view,
            "result": result,
            "left": left,  # why a bot plays this seat for its person: the bot's result is not theirs
            "events": events or [],
            "clocks": clocks,
            "offers": offers
            if offers is not None
            else {
                "draw": None,
                "draw_allowed": False,
                "takeback": None,
                "takeback_accepted": [],
                "undo_allowed": False,
                "rematch": [],
                "rematch_game": None,
            },
        }

    def broadcast_state(self, match: Match) -> None:
        """Sends every connection of the match its seat's `state`. Each seat's view (and the legal moves,
        the clocks) is computed once per broadcast, and each distinct message is encoded once: every socket
        of a seat, and every spectator, that last saw the same ply gets the same bytes."""
        if self.cluster is not None and not self.cluster.holds(match.game_id):
            return  # fenced: a node that lost the game's lease shows nothing of it
        cache: dict[int | None, dict[str, Any]] = {}
        encoded: dict[tuple[int | None, int | None], str] = {}
        status = "finished" if match.over else "live"
        result = match.result
        bots = _bot_seats(match.info)
        legal: list[str] | None = None
        clocks, offers = match.clocks(), match.offers()
        out = match.seats_out()
        for conn in list(self.rooms.get(match.game_id, ())):
            seat = None if conn.seat in out else conn.seat
            key = (seat, conn.events_ply)
            text = encoded.get(key)
            if text is None:
                events = match.events.since(conn.events_ply, match.ply, seat)
                message = self.state_message(
                    match.game_id,
                    match.kind,
                    match.state,
                    match.ply,
                    status,
                    result,
                    seat,
                    cache,
                    bots,
                    events,
                    match,
                    legal,
                    clocks,
                    offers,
                )
                if message["your_turn"]:
                    legal = message["legal_moves"]
                text = encoded[key] = encode(message)
            conn.events_ply = match.ply
            conn.send_text(text)
        if self.cluster is not None:  # the other nodes' sockets: every seat's message, computed here once
            self.cluster.publish_state(match, cache, legal, clocks)

    async def current_state(
        self, game_id: int, seat: int | None, conn: Conn | None = None
    ) -> dict[str, Any] | None:
        """The `state` message for one connection of a live or finished game (None while open); `conn`'s
        first state carries the events of the last move, and it is sent the later ones from there."""
        match = self.matches.get(game_id)
        if match is not None:
            if seat in match.seats_out():
                seat = None
            events = None
            if conn is not None:
                events = match.events.since(conn.events_ply, match.ply, seat)
                conn.events_ply = match.ply
            status = "finished" if match.over else "live"
            return self.state_message(
                game_id,
                match.kind,
                match.state,
                match.ply,
                status,
                match.result,
                seat,
                bot_seats=_bot_seats(match.info),
                events=events,
                match=match,
            )
        self.check_playable(game_id)
        if self.cluster is not None:  # a live game owned by another node: its owner answers
            message = await self.cluster.current_state(game_id, seat, conn)
            if message is not None:
                return message
        loaded = await self.finished_state(game_id)
        if loaded is None:
            return None
        info, state = loaded
        kind = stored_kind(info)
        message = self.state_message(
            game_id, kind, state, info.ply, info.status, info.result, seat, info=info
        )
        if info.status == "finished":  # it may have ended without the engine (timeout, resignation, draw)
            message.update(to_play=None, your_turn=False, legal_moves=[])
            asked, made = await self.db(self.repo.rematch, game_id)  # stored: it outlives a restart
            message["offers"] = {**message["offers"], "rematch": asked, "rematch_game": made}
        if info.clock is not None:
            snap = info.clock
            message["clocks"] = {
                "control": snap["control"],
                "remaining_ms": [max(0, ms) for ms in snap["remaining_ms"]],
                "running": None,
                "server_time": self.now_ms(),
            }
        return message

    async def finished_state(self, game_id: int) -> tuple[GameInfo, Any] | None:
        if game_id in self._finished:
            return self._finished[game_id]
        info = await self.db(self.repo.get_game, game_id)
        if info.status != "finished":
            return None
        moves = await self.db(self.repo.moves, game_id)
        kind = stored_kind(info)
        # Concurrent requests for the same finished game share one rebuild on a CPU thread.
        state = await self.cached(("finished", game_id), partial(rebuild, kind, info, moves))
        if game_id in self._finished:  # another request rebuilt it meanwhile
            return self._finished[game_id]
        if len(self._finished) >= 64:
            self._finished.pop(next(iter(self._finished)))
        self._finished[game_id] = (info, state)
        return info, state

    async def match_finished(self, match: Match) -> None:
        self.matches.pop(match.game_id, None)
        if self.cluster is not None:
            await self.cluster.finished(match)
        # what the match committed last: its finished status and result, its seats, its last ply, its clock
        # stopped at the end (`info.clock` is the one read when the match started)
        clock = match.clock.snapshot(self.now_ms()) if match.clock.timed else match.info.clock
        info = replace(match.info, ply=match.ply, clock=clock)
        self._finished[match.game_id] = (info, match.state)
        self.broadcast_table(info)

    async def submit_move(self, game_id: int, seat: int, move: str, ply: int | None) -> int:
        """Plays a seat's move; every refusal is counted once, by whoever makes it (the owner's task, the
        node that routes it, or here for a game without an owner task)."""
        match = self.matches.get(game_id)
        if match is not None:
            return await match.submit(seat, move, ply)
        try:
            self.check_playable(game_id)
        except StoreError as exc:
            self.metrics.refused.labels(exc.code).inc()
            raise
        if self.cluster is not None:  # owned by another node (or being claimed)
            return int(await self.cluster.route(game_id, "move", seat=seat, move=move, ply=ply))
        info = await self.db(self.repo.get_game, game_id)
        code = "game_over" if info.status in ("finished", "aborted") else "not_live"
        self.metrics.refused.labels(code).inc()
        raise ApiError(409, code, f"game {game_id} is {info.status}")

    async def rematch(
        self, game_id: int, seat: int, before_table: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        """`seat` asks to play a finished game again. Once every person at the table asked (bots accept at
        once), a new game starts with the same players, each one seat on (two seats: sides swapped); each
        seat's connections get `rematch` with the new game and their new seat token. Asks and the rematch
        made are stored: a restart keeps them (a later ask answers `rematch_done` with the new game).
        `before_table` is awaited just before the table is made (a rate limit: its error refuses the ask
        that would make it, and a later ask tries again)."""
        info = await self.db(self.repo.get_game, game_id)
        if info.status != "finished":
            raise MoveRefused("not_finished", "a rematch is asked for once the game is over")
        mine = info.seat(seat)
        if mine is None or not person_seat(mine):
            raise MoveRefused("not_your_seat", f"seat {seat} is played by a bot")
        people = {s.seat for s in info.seats if person_seat(s)}
        if game_id not in self.rematched:
            asked, new_ask, made = await self.db(self.repo.ask_rematch, game_id, seat)
            if made is not None:
                self._remember_rematch(game_id, made)
            elif not new_ask and not people <= set(asked):  # (everyone asked: made below, at last)
                raise MoveRefused("rematch_pending", "you already asked for a rematch")
        if self.rematched.get(game_id) == 0:  # being made by an earlier ask: its `rematch` message follows
            raise MoveRefused("rematch_pending", "the rematch is being made; it starts in a moment")
        if game_id in self.rematched:
            raise MoveRefused(
                "rematch_done", "this game was already played again", new_game_id=self.rematched[game_id]
            )
        if not people <= set(asked):
            self.tell_room(game_id, {"type": "rematch_pending", "game_id": game_id, "seats": asked})
            return
        if before_table is not None:
            await before_table()
        self._remember_rematch(game_id, 0)  # before any await: a second ask meanwhile is refused
        try:
            new = await self._start_rematch(info, mine.user_id)
        except RematchMade as made:  # by another node meanwhile
            self._remember_rematch(game_id, made.new_game_id)
            raise MoveRefused("rematch_done", made.message, new_game_id=made.new_game_id) from None
        except BaseException:
            self.rematched.pop(game_id, None)
            raise
        self._remember_rematch(game_id, new.id)

    def _remember_rematch(self, game_id: int, new_game_id: int) -> None:
        self.rematched[game_id] = new_game_id
        while len(self.rematched) > REMEMBERED_REMATCHES:
            self.rematched.popitem(last=False)

    async def _start_rematch(self, info: GameInfo, creator_id: int | None) -> GameInfo:
        """Makes and starts the rematch of `info` and tells its room; returns the new game."""
        game_id = info.id
        n = info.players
        tokens: dict[int, str] = {}
        specs = []
        for s in info.seats:
            place = (s.seat + 1) % n
            if person_seat(s):
                tokens[s.seat] = new_token()
                hashed = token_hash(tokens[s.seat])
                specs.append(SeatSpec(place, "human", s.name, s.user_id, token_hash=hashed, side=place))
            else:
                specs.append(SeatSpec(place, "bot", s.name, bot=s.bot, side=place))
        clock = None
        if info.clock is not None:
            clock = Clock.new(TimeControl.parse(info.clock["control"]), n).snapshot(0)
        new = await self.db(
            self.repo.create_game,
            game=info.game,
            players=n,
            options=info.options,
            rated=info.rated,
            private=info.private,
            invite=secrets.token_urlsafe(12) if info.private else None,
            creator_id=creator_id,
            seats=specs,
            clock=clock,
            rematch_of=game_id,
        )
        # Whoever starts it (here, or a sweep on any node), each place plays its own engine seat (`side`), and
        # the new tokens go out even when the start must wait for the store.
        new = await self._start_soon(new)
        per_seat: dict[int | None, dict[str, Any]] = {}
        for seat in (None, *range(n)):  # each seat's new token reaches that seat's sockets only
            message: dict[str, Any] = {"type": "rematch", "game_id": game_id, "new_game_id": new.id}
            if seat in tokens:
                message["token"] = tokens[seat]
                if new.private:
                    message["invite"] = new.invite
            per_seat[seat] = message
        for conn in list(self.rooms.get(game_id, ())):
            conn.send(per_seat.get(conn.seat, per_seat[None]))
        if self.cluster is not None:
            msgs = {"s" if seat is None else str(seat): m for seat, m in per_seat.items()}
            self.cluster.publish_room(game_id, {"t": "seats", "msgs": msgs})
        return new

    async def table_control(
        self, game_id: int, seat: int, action: str, accept: bool = False, ply: int | None = None
    ) -> None:
        """A seat resigns, offers a draw or answers one; raises MoveRefused or ApiError. `ply`: the ply a
        takeback request or an undo was asked at (None: whatever the game's). A rematch is `rematch`."""
        match = self.matches.get(game_id)
        if match is None:
            self.check_playable(game_id)
        if match is None and self.cluster is not None:  # owned by another node (or being claimed)
            await self.cluster.route(game_id, "control", seat=seat, action=action, accept=accept, ply=ply)
            return
        if match is None:
            info = await self.db(self.repo.get_game, game_id)
            code = "game_over" if info.status in ("finished", "aborted") else "not_live"
            raise ApiError(409, code, f"game {game_id} is {info.status}")
        await match.control(seat, action, accept, ply)


def seating(players: int, chosen: dict[int, int]) -> list[int]:
    """order[i] = the table place that plays engine seat i: the `chosen` {place: seat} kept, the other
    places drawn at random over the remaining seats."""
    order: list[int | None] = [None] * players
    for place, seat in chosen.items():
        order[seat] = place
    rest = [p for p in range(players) if p not in chosen]
    _rng.shuffle(rest)
    filled = iter(rest)
    return [p if p is not None else next(filled) for p in order]


def person_seat(seat: SeatInfo) -> bool:
    """A seat a person sat at, even if a bot played it on after they resigned, ran out of time or left: that
    person is asked for the rematch and plays it (a bot's own seat stays a bot's)."""
    return seat.kind == "human" or (seat.takeover and seat.user_id is not None)


def _renderer(game: str) -> str | None:
    """The page renderer of `game`; None for a stored game whose kind this server no longer has (listed, not
    playable)."""
    try:
        return kind_of(game).spec.renderer
    except OptionsError:
        return None


def _bot_seats(info: GameInfo) -> frozenset[int]:
    return frozenset(s.seat for s in info.seats if s.kind != "human")


def _iso(ts: Any) -> str | None:
    return ts.isoformat().replace("+00:00", "Z") if ts is not None else None
