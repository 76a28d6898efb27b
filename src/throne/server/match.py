"""One owner task per live game: it alone holds and changes the engine state.

Moves (from people, bots and take-over timers) arrive in the owner's inbox and are handled one at a time:
the engine validates, the move is appended to the log and committed, and only then is every connection
sent its own view. Bots think in worker processes (throne.ai) while the owner keeps answering everyone else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from throne.clock import Clock, TimeControl
from throne.games import Outcome
from throne.logs import GAME_ID
from throne.server.events import EventLog
from throne.server.games import GameKind
from throne.server.resilience import Backoff
from throne.store.repo import (
    Conflict,
    DamagedRecord,
    GameInfo,
    NewMove,
    SeatInfo,
    StalePly,
    StoreUnavailable,
)

if TYPE_CHECKING:
    from throne.server.lobby import Hub
    from throne.server.takeback import Kept

log = logging.getLogger(__name__)

# Seconds a shutdown waits for the store to take the games' clocks: a hung disk must not keep the process.
STOP_WAIT = 10.0


class MoveRefused(ValueError):
    """A move the owner did not apply; `code` is the protocol error code."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra


@dataclass
class _Move:
    seat: int
    move: str
    ply: int | None
    done: asyncio.Future[int] | None
    bot: bool = False
    at: float = field(default_factory=time.perf_counter)  # when it arrived (the move latency metric)


@dataclass
class _Takeover:
    seat: int


@dataclass
class _Wake:
    """The store recovered: retry what waits for it now."""


@dataclass
class _Reclaim:
    """The player of a seat left by abandonment is back and the seat must decide: give it back."""

    seat: int


@dataclass
class _Tick:
    """A clock may have run out: look at it now."""


@dataclass
class _Control:
    """A table control (resign, draw offer or answer) from a seat; `done` gets None or MoveRefused."""

    seat: int
    action: str
    accept: bool
    done: asyncio.Future[None]
    # the ply a takeback request or undo was asked at: one sent again is refused, not applied twice
    ply: int | None = None


class Match:
    def __init__(self, hub: Hub, info: GameInfo, kind: GameKind, state: Any) -> None:
        self.hub = hub
        self.info = info
        self.kind = kind
        self.state = state
        self.ply = info.ply
        self.events = EventLog()
        # True while no chat message can exist for the game: set by the hub for a game it has just started
        # alone (every message is posted through it), cleared by the first message posted
        self.chat_empty = False
        # the seats' token hashes (seat id of each) when the hub started the game here; None: unknown (a game
        # resumed or claimed), a hello then reads the token's seat from the store
        self.tokens: dict[str, int] | None = None
        self.inbox: asyncio.Queue[_Move | _Takeover | _Wake | _Tick | _Control | _Reclaim | None] = (
            asyncio.Queue()
        )
        self.task: asyncio.Task[None] | None = None
        self._bot_task: asyncio.Task[None] | None = None
        self._bot_ply: int | None = None
        self._timer: asyncio.Task[None] | None = None
        self._dirty = False  # True while memory may differ from the committed log
        self._damaged = False  # its committed log, read back, does not replay: the owner loop stops
        self._reload_at = 0.0  # when to read a dirty game back next (monotonic)
        self._takeover_at = 0.0  # no take-over attempt before this (backoff after a failed one)
        self._retry: asyncio.Task[None] | None = None  # a bot move waiting to be stored again
        self._retry_item: _Move | None = None
        # The move or control the owner loop took from the inbox and has not answered yet: a halt cancels
        # the loop in the middle of it (a commit under way), and `refuse_pending` answers it then.
        self._handling: _Move | _Control | None = None
        s = hub.settings
        self.backoff = Backoff(s.retry_base, s.retry_cap)
        self.away_since: dict[int, float] = {
            s.seat: time.monotonic() for s in info.seats if s.kind == "human"
        }
        self.clock = self._load_clock(info)
        self._flag_timer: asyncio.Task[None] | None = None
        self._flag_retry_at = 0.0  # a fallen flag whose end could not be stored is tried again from then
        self._checkpoints: asyncio.Task[None] | None = None
        self.ended: dict[str, Any] | None = None  # a result the engine did not reach (timeout, resign, draw)
        self.draw_offer: int | None = None  # the seat offering a draw, until answered or a move is played
        self._returning: set[int] = set()  # seats left by abandonment whose player is connected again
        self.takeback: int | None = None  # the seat asking to take its last move back, until answered
        self._takeback_yes: set[int] = set()  # the seats that accepted it so far

    def _load_clock(self, info: GameInfo) -> Clock:
        now = self.hub.now_ms()
        if info.clock is None:
            clock = Clock.new(TimeControl(), info.players)
        else:
            clock = Clock.restore(info.clock, now)  # the time the server was down is not charged
        clock.start(None if self.state.is_over else self.state.to_play, now)
        return clock

    @property
    def game_id(self) -> int:
        return self.info.id

    @property
    def over(self) -> bool:
        return bool(self.state.is_over) or self.ended is not None

    @property
    def result(self) -> dict[str, Any] | None:
        return self.ended if self.ended is not None else self.kind.result(self.state)

    @property
    def to_play(self) -> int | None:
        return None if self.over else self.state.to_play

    def clocks(self) -> dict[str, Any] | None:
        """The protocol's `clocks` (None for an untimed game)."""
        return self.clock.to_json(self.hub.now_ms())

    def seats_out(self) -> frozenset[int]:
        """The seats shown what spectators see (GameInfo.seats_out); none once the game is over."""
        return frozenset() if self.over else self.info.seats_out()

    def offers(self) -> dict[str, Any]:
        """Pending offers, as the `state` message carries them."""
        return {
            "draw": self.draw_offer,
            "draw_allowed": self._decides_alone(),
            "takeback": self.takeback,
            "takeback_accepted": sorted(self._takeback_yes) if self.takeback is not None else [],
            "undo_allowed": not self.info.rated,
            "rematch": [],  # asked once the game is over (the finished game's state carries them)
            "rematch_game": None,
        }

    # ---- called by the hub / connections ------------------------------------------------------------------
    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"game-{self.game_id}")
        if self.clock.timed:
            self._checkpoints = asyncio.create_task(self._checkpoint_loop())

    async def _checkpoint_loop(self) -> None:
        GAME_ID.set(self.game_id)  # started by whoever started the match: its lines name this game
        while not self.over:
            await asyncio.sleep(self.hub.settings.clock_checkpoint)
            await self.checkpoint()

    async def checkpoint(self) -> None:
        """Stores the running clock as it stands now, so that a crash costs at most one interval."""
        if self.over or self._dirty or not self.clock.timed:
            return
        ply, snapshot = self.ply, self.clock.snapshot(self.hub.now_ms())
        with contextlib.suppress(StoreUnavailable, MoveRefused):
            self.hub.fence(self.game_id)  # a node that lost the game's lease writes nothing for it
            fence = self.hub.fence_token(self.game_id)
            await self.hub.db(self.hub.repo.save_clock, self.game_id, ply, snapshot, fence)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):  # a clean shutdown stores the clocks exactly
            await self.checkpoint()
        await self.halt()

    @staticmethod
    async def stop_all(matches: list[Match]) -> bool:
        """Stops `matches` together, storing their clocks, for at most STOP_WAIT seconds; those the store
        has not answered by then stop without it (their clocks as of the last checkpoint). Whether every
        one stopped in time."""
        stops = asyncio.gather(*(m.stop() for m in matches), return_exceptions=True)
        try:
            await asyncio.wait_for(stops, STOP_WAIT)
        except TimeoutError:
            log.error("the store did not answer in %g s; %d games stop as they are", STOP_WAIT, len(matches))
            for match in matches:
                await match.halt()
            return False
        return True

    async def halt(self) -> None:
        """Stops the owner and its timers without writing anything (a node that lost the game's lease)."""
        tasks = (self._bot_task, self._timer, self._retry, self._flag_timer, self._checkpoints, self.task)
        for task in tasks:
            if task is not None:
                task.cancel()
        for task in tasks:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def submit(self, seat: int, move: str, ply: int | None) -> int:
        """Queues a move by a person; returns the new ply or raises MoveRefused."""
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.inbox.put_nowait(_Move(seat, move, ply, done))
        return await done

    async def control(self, seat: int, action: str, accept: bool = False, ply: int | None = None) -> None:
        """Queues a resignation or a draw offer/answer by a seat's person; raises MoveRefused."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self.inbox.put(_Control(seat, action, accept, done, ply))
        await done

    def poke(self) -> None:
        """Looks at the clocks now (the flag timer does this by itself; tests with a fake time call it)."""
        self.inbox.put_nowait(_Tick())

    def wake(self) -> None:
        """The store works again: retries stop waiting out their backoff (each after a short jitter, so
        that games do not all write at once)."""
        self.backoff.reset()
        jitter = random.uniform(0, 0.5)
        now = time.monotonic()
        if self._takeover_at > now:
            self._takeover_at = now + jitter
        if self._flag_retry_at > now:
            self._flag_retry_at = now + jitter
        if self._dirty:
            self._reload_at = now + jitter
        if self._retry is not None and not self._retry.done() and self._retry_item is not None:
            self._retry_later(self._retry_item, jitter)
        self.inbox.put_nowait(_Wake())

    def presence_changed(self) -> None:
        """A connection came or went: restart the abandon clock of seats nobody watches."""
        now = time.monotonic()
        present = self.hub.present_seats(self.game_id)
        back = {
            s.seat for s in self.info.seats if s.kind == "bot" and s.left == "abandoned" and s.seat in present
        }
        if back != self._returning:
            self._returning = back
            if back:
                self.inbox.put_nowait(
                    _Wake()
                )  # the owner loop reschedules: the seat's next decision is theirs
        for seat in list(self.away_since):
            if seat in present:
                self.away_since[seat] = float("inf")
            elif self.away_since[seat] == float("inf"):
                self.away_since[seat] = now
        self._arm_timer()

    # ---- the owner loop ------------------------------------------------------------------------------------
    async def _run(self) -> None:
        GAME_ID.set(self.game_id)  # every line this task and the tasks it starts log names the game
        self._schedule()
        while not self._damaged and (not self.over or self._dirty):
            if self._dirty:  # memory may differ from the store: read the truth back, with backoff
                try:
                    wait = max(0.0, self._reload_at - time.monotonic())
                    item = await asyncio.wait_for(self.inbox.get(), wait)
                except TimeoutError:
                    if await self._reload():
                        self._schedule()
                    continue
            else:
                item = await self.inbox.get()
            if item is None:
                break
            if isinstance(item, (_Move, _Control)):
                self._handling = item
            try:
                if type(item) is _Move:  # the common case first: a move (bots' too)
                    new_ply = await self._apply(item)
                    if item.done is not None and not item.done.done():
                        item.done.set_result(new_ply)
                elif isinstance(item, _Takeover):
                    await self._takeover(item.seat)
                elif isinstance(item, _Wake):
                    pass  # the loop reads a dirty game back and _schedule re-arms timers
                elif isinstance(item, _Tick):
                    await self._check_flag()
                elif isinstance(item, _Reclaim):
                    await self._reclaim(item.seat)
                elif isinstance(item, _Control):
                    try:
                        await self._control(item)
                        if not item.done.done():
                            item.done.set_result(None)
                    except MoveRefused as exc:
                        if not item.done.done():
                            item.done.set_exception(exc)
            except MoveRefused as exc:
                if isinstance(item, _Move):
                    self.hub.metrics.refused.labels(exc.code).inc()
                    if item.done is not None and not item.done.done():
                        item.done.set_exception(exc)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("game %s: unexpected error; reloading it from the move log", self.game_id)
                if isinstance(item, (_Move, _Control)) and item.done is not None and not item.done.done():
                    what = "apply the move" if isinstance(item, _Move) else "handle the request"
                    item.done.set_exception(MoveRefused("server_error", f"the server failed to {what}"))
                self._mark_dirty()
            self._handling = None
            self._schedule()
        if self._damaged:
            return
        self._refuse_pending()
        if self.over:
            await self.hub.match_finished(self)

    def _refuse_pending(self) -> None:
        self.refuse_pending("game_over", "the game is over")

    def refuse_pending(self, code: str, message: str) -> None:
        """Answers every move and control still queued with MoveRefused(code), and the one a halted owner
        loop was handling (its commit may have been stored or not: sent again with its ply, a stored move is
        answered `stale`)."""
        waiting = [self._handling] if self._handling is not None else []
        self._handling = None
        while not self.inbox.empty():
            waiting.append(self.inbox.get_nowait())
        for item in waiting:
            if isinstance(item, (_Move, _Control)) and item.done is not None and not item.done.done():
                item.done.set_exception(MoveRefused(code, message))
                if isinstance(item, _Move):
                    self.hub.metrics.refused.labels(code).inc()

    async def _apply(self, item: _Move) -> int:
        if self._dirty:
            raise MoveRefused(
                "store_unavailable", "the game is being read back from the store; try again shortly"
            )
        live = self.state
        if self.over:
            raise MoveRefused("game_over", "the game is over")
        if self.clock.running is not None and await self._check_flag():  # only a running clock falls
            raise MoveRefused("flag_fell", "the time of the seat to move ran out before the move arrived")
        if item.ply is not None and item.ply != self.ply:
            raise MoveRefused("stale", f"the move answers ply {item.ply} but the game is at ply {self.ply}")
        if item.seat != live.to_play:
            raise MoveRefused("not_your_turn", f"seat {live.to_play} is to play, not seat {item.seat}")
        seat_info = self.info.seat(item.seat)
        if not item.bot and (seat_info is None or seat_info.kind != "human"):
            raise MoveRefused("not_your_turn", f"seat {item.seat} is played by a bot")
        # Commit, then show: the move is played on a copy, which replaces the live state only once the
        # move is committed. Until then every reader (views, summaries, bots) sees the committed position.
        state = live.clone()
        try:
            state.play(item.move)
        except self.kind.illegal_errors() as exc:
            raise MoveRefused(
                "illegal_move", self.kind.illegal_message(live, item.seat, item.move, exc)
            ) from None
        result = self.kind.result(state)
        ply = self.ply
        rate = self.hub.rating_hook(self.info) if result is not None else None
        now = self.hub.now_ms()
        clock = self._clock_after(item.seat, None if state.is_over else state.to_play, now)
        snapshot = clock.snapshot(now) if clock.timed else None
        fence = self.hub.fence_token(self.game_id)  # a cluster: a newer owner's token makes this stale
        move = NewMove(self.game_id, ply, item.seat, item.move, result, rate, snapshot, fence)
        await self._store(item, move)
        self.state, self.ply, self.clock = state, ply + 1, clock  # one step: state, ply and clock agree
        log.debug("ply %d committed: seat %d played %r", ply, item.seat, item.move)
        if self.draw_offer is not None and self.draw_offer != item.seat:
            self.draw_offer = None  # a move instead of an answer declines the draw
        self.takeback = None  # a move instead of an answer declines a takeback
        try:
            self.events.add(self.kind, self.ply, item.seat, live, item.move, state)
        except Exception:  # a description that fails must not undo a committed move
            log.exception(
                "game %s: no events for move %d", self.game_id, self.ply, extra={"game_id": self.game_id}
            )
        if result is not None:
            self.info.status, self.info.result = "finished", result
        self.hub.broadcast_state(self)
        self.hub.metrics.moved(self.kind.name, time.perf_counter() - item.at)
        return self.ply

    async def _store(self, item: _Move, move: NewMove) -> None:
        """Commits a move (in the hub's group commit: returns once its transaction committed). A store that
        fails refuses a person's move at once (the client may retry) and retries a bot's after a growing,
        jittered delay; a log that moved on under us is read back."""
        try:
            self.hub.fence(self.game_id)
        except MoveRefused:  # a late lease: the keeper renews it (then a bot's move is stored) or drops it
            if item.bot:
                self._retry_later(item, self.backoff.failed())
            raise
        try:
            await self.hub.commits.append(move)
        except StalePly:
            log.warning("game %s: the stored log is not at ply %d; reading it back", self.game_id, self.ply)
            self._mark_dirty()
            raise MoveRefused("stale", "the game moved on; its position is being read back") from None
        except StoreUnavailable as exc:
            delay = self.backoff.failed()
            if self.backoff.worth_logging:
                log.warning(
                    "game %s: move %d not stored (%d failures in a row; backoff %.2f s): %s",
                    self.game_id,
                    self.ply,
                    self.backoff.failures,
                    delay,
                    exc.message,
                )
            if item.bot:
                self._retry_later(item, delay)
            raise MoveRefused(
                "store_unavailable", "the move could not be stored; try again shortly"
            ) from None
        self.backoff.reset()

    def _clock_after(self, seat: int, to_play: int | None, now: int) -> Clock:
        if not self.clock.timed:
            return self.clock  # an untimed clock has nothing to change
        clock = self.clock.copy()
        clock.moved(seat, to_play, now)
        if to_play is None:
            clock.stop(now)
        return clock

    # ---- clocks and table controls -------------------------------------------------------------------------
    def _decides_alone(self) -> bool:
        """A two-seat game with draws (rated by Glicko-2): a seat that runs out of time or resigns loses
        to the other, and the two may agree a draw. In a game with one winner among the seats, the game
        goes on without the seat: a bot plays it to the end."""
        return self.kind.spec.rating == "glicko2" and self.info.players == 2

    async def _check_flag(self) -> bool:
        """Ends the game (two seats) or hands the seat to a bot when the running clock ran out; True if
        a flag fell."""
        if self.over or self._dirty:
            return False
        seat = self.clock.flagged(self.hub.now_ms())
        info = None if seat is None else self.info.seat(seat)
        if seat is None or info is None or _bot_in_place(info):
            return False
        if time.monotonic() < self._flag_retry_at:  # its end could not be stored a moment ago
            return True
        log.info("game %s: seat %d ran out of time", self.game_id, seat)
        try:
            await self._lose(seat, "timeout")
        except MoveRefused as exc:
            if exc.code in ("store_unavailable", "owner_moved"):
                # tried again after a growing delay (the flag timer waits for it), not at once and for ever
                self._flag_retry_at = time.monotonic() + self.backoff.failed()
            raise
        self._flag_retry_at = 0.0
        return True

    async def _lose(self, seat: int, termination: str) -> None:
        """`seat` loses by `termination` (timeout, resign, abandoned)."""
        if self._decides_alone():
            winner = 1 - seat
            outcome = Outcome.single(winner, 2, termination, termination=termination)
            await self._end(outcome.to_json())
        else:
            await self._hand_to_bot(seat, termination)

    async def _end(self, result: dict[str, Any]) -> None:
        """Finishes the game with a result the engine did not reach (stored, then shown)."""
        now = self.hub.now_ms()
        clock = self.clock.copy()
        clock.stop(now)
        rate = self.hub.rating_hook(self.info)
        snapshot = clock.snapshot(now) if clock.timed else None
        self.hub.fence(self.game_id)
        try:
            fence = self.hub.fence_token(self.game_id)
            finish = self.hub.repo.finish_game
            await self.hub.db(finish, self.game_id, self.ply, result, rate, snapshot, fence)
        except StalePly:
            self._mark_dirty()
            raise MoveRefused("stale", "the game moved on; its position is being read back") from None
        except StoreUnavailable:
            raise MoveRefused("store_unavailable", "the game store is failing; try again shortly") from None
        self.ended, self.clock, self.draw_offer = result, clock, None
        if self._bot_task is not None:
            self._bot_task.cancel()  # a bot thinking for the ended game has nothing left to decide
        self.info.status, self.info.result = "finished", result
        self.hub.broadcast_state(self)

    async def _reclaim(self, seat: int) -> None:
        if seat not in self._returning or self.over:
            self._bot_ply = None  # the bot plays the seat after all
            return
        try:
            self.hub.fence(self.game_id)
        except MoveRefused:  # the lease is late: asked again once the keeper renewed it (or dropped the game)
            again = partial(self.inbox.put_nowait, _Reclaim(seat))
            asyncio.get_running_loop().call_later(self.backoff.failed(), again)
            return
        try:
            fence = self.hub.fence_token(self.game_id)
            self.info = await self.hub.db(self.hub.repo.reclaim, self.game_id, seat, fence)
        except (StoreUnavailable, Conflict):  # (StalePly among them: a newer owner has the game)
            self._returning.discard(seat)
            self._bot_ply = None
            return
        self._returning.discard(seat)
        self.away_since[seat] = float("inf")
        log.info("game %s: the player of seat %d is back and takes it over again", self.game_id, seat)
        self.hub.broadcast_table(self.info)
        self.hub.broadcast_state(self)

    async def _hand_to_bot(self, seat: int, reason: str) -> None:
        bot = self.hub.settings.takeover_bot
        self.hub.fence(self.game_id)
        try:
            fence = self.hub.fence_token(self.game_id)
            self.info = await self.hub.db(self.hub.repo.takeover, self.game_id, seat, bot, reason, fence)
        except StoreUnavailable:
            raise MoveRefused("store_unavailable", "the game store is failing; try again shortly") from None
        except StalePly:
            raise MoveRefused("owner_moved", "the game moved to another server; send it again") from None
        self.away_since.pop(seat, None)
        await self._seat_changed_hands(seat)
        log.info("game %s: seat %d %s; bot %r plays it to the end", self.game_id, seat, reason, bot)
        self.hub.broadcast_table(self.info)
        self.hub.broadcast_state(self)

    async def _control(self, item: _Control) -> None:
        if self._dirty:
            raise MoveRefused("store_unavailable", "the game is being read back from the store; try again")
        if self.over:
            raise MoveRefused("game_over", "the game is over")
        if await self._check_flag() and self.over:  # (with more seats the game goes on without that one)
            raise MoveRefused("game_over", "the game is over: a flag fell")
        info = self.info.seat(item.seat)
        if info is None or info.kind != "human":
            raise MoveRefused("not_your_seat", f"seat {item.seat} is played by a bot")
        if item.action == "resign":
            await self._lose(item.seat, "resign")
            return
        if item.action == "claim_win":
            other = self.info.seat(1 - item.seat) if self._decides_alone() else None
            if other is None or other.kind != "bot" or other.left != "abandoned":
                raise MoveRefused(
                    "no_claim", "a win is claimed only once the opponent left and a bot took over"
                )
            outcome = Outcome.single(item.seat, 2, "abandoned", termination="abandoned")
            await self._end(outcome.to_json())
            return
        if item.action in ("takeback_request", "undo"):
            if item.ply is not None and item.ply != self.ply:
                raise MoveRefused(
                    "stale", f"the {item.action} answers ply {item.ply} but the game is at ply {self.ply}"
                )
            await self._ask_takeback(item.seat, undo=item.action == "undo")
            return
        if item.action == "takeback_answer":
            await self._answer_takeback(item.seat, item.accept)
            return
        if not self._decides_alone():
            raise MoveRefused("draw_unavailable", "draws are agreed only in two-seat games")
        if item.action == "draw_offer":
            if self.draw_offer == item.seat:
                raise MoveRefused("offer_pending", "your draw offer is already waiting for an answer")
            if self.draw_offer is not None:
                raise MoveRefused("offer_pending", "your opponent offered a draw: answer it with draw_answer")
            other = self.info.seat(1 - item.seat)
            if other is not None and other.kind != "human":
                raise MoveRefused("draw_declined", "the bot declines the draw")
            self.draw_offer = item.seat
            self.hub.broadcast_state(self)
            return
        # draw_answer
        if self.draw_offer is None or self.draw_offer == item.seat:
            raise MoveRefused("no_offer", "there is no draw offer for you to answer")
        if item.accept:
            await self._end(Outcome.single(None, 2, "agreement", termination="agreement").to_json())
        else:
            self.draw_offer = None
            self.hub.broadcast_state(self)

    # ---- takebacks -----------------------------------------------------------------------------------------
    async def _ask_takeback(self, seat: int, undo: bool) -> None:
        """An undo (the seat's own last move, within its turn, unrated games) is made at once; a takeback
        request waits for every other person's answer (bots accept in unrated games)."""
        if undo:
            if self.info.rated:
                raise MoveRefused("undo_unavailable", "a rated game has no undo: ask for a takeback")
            if self.state.to_play != seat:
                raise MoveRefused("not_your_turn", "an undo takes back a move of your own turn")
        else:
            if self.takeback is not None:
                raise MoveRefused("offer_pending", "a takeback request is already waiting for an answer")
            if self.kind.spec.decision_pending(self.state) and self.state.to_play != seat:
                raise MoveRefused(
                    "decision_pending", f"seat {self.state.to_play} must decide first; ask again afterwards"
                )
        keep, kept = await self._takeback_point(seat, undo)
        others = [s for s in self.info.seats if s.seat != seat]
        if not undo and self.info.rated and any(s.kind != "human" for s in others):
            raise MoveRefused("takeback_declined", "the bot declines takebacks in a rated game")
        if undo or all(s.kind != "human" for s in others):
            await self._take_back(keep, kept)
            return
        self.takeback, self._takeback_yes = seat, set()
        self.hub.broadcast_state(self)

    async def _answer_takeback(self, seat: int, accept: bool) -> None:
        asker = self.takeback
        if asker is None or asker == seat:
            raise MoveRefused("no_offer", "there is no takeback request for you to answer")
        if not accept:
            self.takeback = None
            self.hub.broadcast_state(self)
            return
        self._takeback_yes.add(seat)
        if not await self._take_back_if_agreed():
            self.hub.broadcast_state(self)

    async def _take_back_if_agreed(self) -> bool:
        """Makes the pending takeback once every other person accepted it; False while one has not."""
        asker = self.takeback
        agreed = {asker, *self._takeback_yes}
        if any(s.kind == "human" and s.seat not in agreed for s in self.info.seats):
            return False
        keep, kept = await self._takeback_point(asker, False)
        await self._take_back(keep, kept)
        return True

    async def _seat_changed_hands(self, seat: int) -> None:
        """A bot plays `seat` from now on: its person's draw offer or takeback request goes with them, and a
        takeback request waits no more for their answer (a bot accepts in unrated games, declines in rated
        ones)."""
        if self.draw_offer == seat:
            self.draw_offer = None
        if self.takeback is None:
            return
        self._takeback_yes.discard(seat)
        if self.takeback == seat or self.info.rated:
            self.takeback = None
            return
        try:
            await self._take_back_if_agreed()
        except MoveRefused:  # the position could not be taken back: the request is dropped
            self.takeback = None

    async def _takeback_point(self, seat: int, undo: bool) -> tuple[int, Kept]:
        from throne.server import takeback as tb

        try:
            moves = await self.hub.db(self.hub.repo.moves, self.game_id)
        except StoreUnavailable:
            raise MoveRefused("store_unavailable", "the game store is failing; try again shortly") from None
        if len(moves) != self.ply:
            self._mark_dirty()
            raise MoveRefused("stale", "the game moved on; its position is being read back")
        try:
            keep = tb.keep_point(moves, seat, undo)
            kept = await self.hub.cpu(tb.take_back, self.kind, self.info, moves, keep)
        except tb.Refused as exc:
            if self.takeback is not None and not undo:
                self.takeback = None
                self.hub.broadcast_state(self)
            raise MoveRefused(exc.code, exc.message) from None
        return keep, kept

    async def _take_back(self, keep: int, kept: Kept) -> None:
        """Removes the moves after `keep` from the log (one transaction), then shows the position kept with
        the clocks stored with its last move."""
        state = kept.state
        now = self.hub.now_ms()
        start = Clock.new(self.clock.control, self.info.players).snapshot(now) if self.clock.timed else None
        self.hub.fence(self.game_id)
        try:
            fence = self.hub.fence_token(self.game_id)
            stored = await self.hub.db(self.hub.repo.take_back, self.game_id, self.ply, keep, start, fence)
        except StalePly:
            self._mark_dirty()
            raise MoveRefused("stale", "the game moved on; its position is being read back") from None
        except StoreUnavailable:
            raise MoveRefused("store_unavailable", "the game store is failing; try again shortly") from None
        clock = Clock.restore(stored, now) if stored is not None else self.clock.copy()
        clock.start(None if state.is_over else state.to_play, now)  # as a restart would resume it
        self.state, self.ply, self.clock = state, keep, clock
        self.takeback, self.draw_offer = None, None
        self.events.clear()  # the moves taken back were described; the client rereads the state
        if kept.last is not None:
            self.describe_last(*kept.last)
        for task in (self._bot_task, self._retry):  # a bot's decision for a position that is gone
            if task is not None:
                task.cancel()
        self._retry_item = None
        self._bot_ply = None
        log.info("game %s: moves after ply %d taken back", self.game_id, keep)
        self.hub.broadcast_state(self)

    def _arm_flag(self) -> None:
        if self._flag_timer is not None:
            self._flag_timer.cancel()
            self._flag_timer = None
        running = self.clock.running
        if running is None or self.over:
            return
        if _bot_in_place(self.info.seat(running)):  # its flag does not fall
            return
        due = max(self.clock.due_in(self.hub.now_ms()) or 0, (self._flag_retry_at - time.monotonic()) * 1000)

        async def fire() -> None:
            await asyncio.sleep(due / 1000 + 0.01)
            await self.inbox.put(_Tick())

        self._flag_timer = asyncio.create_task(fire())

    def _retry_later(self, item: _Move, delay: float) -> None:
        self._retry_item = item

        async def again() -> None:
            await asyncio.sleep(delay)
            if self.ply == item.ply and not self.over:
                await self.inbox.put(item)

        if self._retry is not None:
            self._retry.cancel()
        self._retry = asyncio.create_task(again())

    def _mark_dirty(self) -> None:
        self._dirty = True
        self._reload_at = time.monotonic()  # the first read-back is immediate; later ones back off

    def describe_last(self, before: Any, seat: int, move: str) -> None:
        """The events of the move `seat` played from `before` to this position, for a game rebuilt from its
        log (a resumed or adopted game): a connection's first state carries them, as in a game played here."""
        try:
            self.events.add(self.kind, self.ply, seat, before, move, self.state)
        except Exception:  # a description that fails must not stop the game
            log.exception(
                "game %s: no events for move %d", self.game_id, self.ply, extra={"game_id": self.game_id}
            )

    async def _found_damaged(self, exc: DamagedRecord) -> None:
        """The committed log, read back, does not replay: the game stops here and is refused
        `game_unavailable` from now on, as one found so at start-up; its sockets and waiting requests are
        told."""
        self._damaged = True
        for task in (self._bot_task, self._timer, self._retry, self._flag_timer, self._checkpoints):
            if task is not None:
                task.cancel()
        self.hub.mark_unplayable(self.game_id, exc.detail)
        self.refuse_pending(exc.code, exc.message)
        self.hub.tell_room(self.game_id, {"type": "error", "code": exc.code, "message": exc.message})
        if self.hub.cluster is not None:  # the lease goes: every node finds the record damaged once
            with contextlib.suppress(Exception):
                await self.hub.cluster.leases.release(self.game_id, done=False)

    async def _reload(self) -> bool:
        """Rebuilds the state from what is committed (the database is the truth); False if that failed.

        Failures back off (jittered, growing delays); connections are resent the state only when the
        committed position differs from the one they were shown."""
        from throne.server.games import rebuild_with_last

        try:
            info = await self.hub.db(self.hub.repo.get_game, self.game_id)
            moves = await self.hub.db(self.hub.repo.moves, self.game_id)
            state, before = await self.hub.cpu(rebuild_with_last, self.kind, info, moves)
        except DamagedRecord as exc:
            await self._found_damaged(exc)
            return False
        except Exception as exc:
            delay = self.backoff.failed()
            self._reload_at = time.monotonic() + delay
            if self.backoff.worth_logging:
                log.warning(
                    "game %s: cannot read the game back (%d failures in a row; next try in %.2f s): %s",
                    self.game_id,
                    self.backoff.failures,
                    delay,
                    exc,
                )
            self._dirty = True
            return False
        changed = len(moves) != self.ply or info.status != self.info.status
        if len(moves) > self.ply and self.hub.cluster is None:
            # Committed by this process although its commit call failed (a store that answered too late):
            # alone on its store, nobody else wrote them, so they are counted here. In a cluster another
            # node may have written and counted them.
            self.hub.metrics.moved(self.kind.name, None, len(moves) - self.ply)
        self.state, self.info, self.ply, self._dirty = state, info, len(moves), False
        self.clock = self._load_clock(info)
        self.takeback = None
        if info.status == "finished" and not state.is_over:
            self.ended = info.result
        if changed:
            self.events.clear()  # the moves read back were never described here: the last one is now
            if before is not None:
                self.describe_last(before, *moves[-1])
        self.backoff.reset()
        self._bot_ply = None
        if changed:
            self.hub.broadcast_state(self)  # everyone resynchronises on what is committed
        return True

    # ---- bots and abandoned seats --------------------------------------------------------------------------
    def _schedule(self) -> None:
        self._arm_flag()
        if self.over:
            return
        seat = self.state.to_play
        info = self.info.seat(seat)
        if seat in self._returning and self._bot_ply != self.ply:
            self._bot_ply = self.ply  # the player decides this one, not the bot
            self.inbox.put_nowait(_Reclaim(seat))
        elif info is not None and info.kind == "bot" and self._bot_ply != self.ply:
            self._bot_ply = self.ply
            bot = info.bot or self.hub.settings.takeover_bot
            self._bot_task = asyncio.create_task(self._think(seat, bot))
        self._arm_timer()

    async def _think(self, seat: int, bot: str) -> None:
        ply = self.ply
        try:
            move = await self.hub.choose_move(self.kind.name, self.state, seat, bot, ply=ply)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "game %s: bot %r failed at ply %d; playing a random legal move", self.game_id, bot, ply
            )
            move = random.Random(ply).choice(self.state.legal_moves())
        if self.ply == ply:
            await self.inbox.put(_Move(seat, move, ply, None, bot=True))

    def _arm_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.over:
            return
        seat = self.state.to_play
        since = self.away_since.get(seat)
        info = self.info.seat(seat)
        if since is None or since == float("inf") or info is None or info.kind != "human":
            return
        now = time.monotonic()
        delay = max(0.0, since + self.hub.settings.abandon_timeout - now, self._takeover_at - now)

        async def fire() -> None:
            await asyncio.sleep(delay)
            await self.inbox.put(_Takeover(seat))

        self._timer = asyncio.create_task(fire())

    async def _takeover(self, seat: int) -> None:
        info = self.info.seat(seat)
        since = self.away_since.get(seat, float("inf"))
        if info is None or info.kind != "human" or since == float("inf"):
            return
        now = time.monotonic()
        if now - since < self.hub.settings.abandon_timeout - 0.01 or now < self._takeover_at - 0.01:
            return
        if self.info.rated and self._decides_alone():
            # A rated game is not silently unrated: the player who left loses it.
            try:
                await self._lose(seat, "abandoned")
            except MoveRefused:
                self._takeover_at = time.monotonic() + self.backoff.failed()
            return
        bot = self.hub.settings.takeover_bot
        try:
            self.hub.fence(self.game_id)  # a lapsed lease waits: the keeper renews it or drops the game
            fence = self.hub.fence_token(self.game_id)
            self.info = await self.hub.db(self.hub.repo.takeover, self.game_id, seat, bot, fence=fence)
        except StalePly:  # a newer owner has the game: this node's keeper drops it
            return
        except (StoreUnavailable, MoveRefused) as exc:
            delay = self.backoff.failed()
            self._takeover_at = time.monotonic() + delay  # _schedule re-arms the timer no sooner
            if self.backoff.worth_logging:
                log.warning(
                    "game %s: take-over of seat %d not stored (%d failures in a row; next try in %.2f s): %s",
                    self.game_id,
                    seat,
                    self.backoff.failures,
                    delay,
                    exc.message,
                )
            return
        self.backoff.reset()
        self._takeover_at = 0.0
        self.away_since.pop(seat, None)
        await self._seat_changed_hands(seat)
        log.info("game %s: seat %d abandoned, bot %r takes over", self.game_id, seat, bot)
        self.hub.broadcast_table(self.info)
        self.hub.broadcast_state(self)  # the seat's connections, if any come back, are no longer to move


BotChooser = Callable[..., Awaitable[str]]


def _bot_in_place(seat: SeatInfo | None) -> bool:
    """A seat a bot plays in its person's place (resigned, out of time, away): its flag does not fall. A
    person who took the seat back plays it again, on the clock."""
    return seat is not None and seat.takeover and seat.kind == "bot"
