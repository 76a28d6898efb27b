"""One node of a cluster: it owns some live games (leases), serves its own sockets of any game, and talks to
the other nodes through Redis.

Channels (Redis pub/sub):
- `throne:n:<node>`: requests to this node (a move, a table control or a seat's current `state` for a game it
  owns) and the answers to the requests it sent;
- `throne:r:<game>`: the room of a game, which every node with a socket of that game (and its owner) listens
  to: the owner's `state` messages (one per seat and one for spectators, computed once on the owner; each
  node forwards a seat's message to that seat's sockets only), table summaries, chat and presence notes;
- `throne:orphans`: a node handing its games over (graceful shutdown) tells the others to claim them now.

The owner's `state` messages are published by a script that first compares the game's lease with the
owner's fencing token (`Leases.publish`), so a node that lost a game can no longer reach other nodes'
sockets; before a move is committed the owner checks its own lease deadline (`holds`), and the move log's
guarded `(game, ply)` append refuses a writer whose position is stale.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import LockError, RedisError

from throne.server.chat import readable
from throne.server.cluster.lease import PREFIX, PUBLISH_SCRIPT, Leases, lease_key
from throne.server.conn import Conn, encode
from throne.server.errors import ApiError
from throne.server.games import OptionsError, kind_of, rebuild_with_last
from throne.server.match import Match, MoveRefused
from throne.store.repo import DamagedRecord, GameInfo, NotFound, StoreError, StoreUnavailable


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)


loads: Callable[[Any], Any] = orjson.loads

if TYPE_CHECKING:
    from throne.server.lobby import Hub

log = logging.getLogger(__name__)

ORPHANS = PREFIX + "orphans"
NODES = PREFIX + "nodes"
SPECTATORS = "s"  # the key of the spectators' message in a room's `state` note
REINDEX_EVERY = 30.0  # seconds between two listings of the store's live games into the orphan index
REJOIN_ROUNDS = 3  # lease rounds in which a node announces its sockets again after Redis was away
PEEKED_MAX = 10_000  # games whose presence a node keeps from its lobby lists
PEEK_WAIT = 0.25  # seconds a request waits for the other nodes' presence before it shows this node's only
GIVE_BACK_EVERY = 0.2  # seconds between two tries to give back a lock taken by a request that timed out
OWNER_SUMMARY_WAIT = 1.0  # seconds a summary waits for the owner of its live game on another node


def node_channel(node: str) -> str:
    return f"{PREFIX}n:{node}"


def room_channel(game: int) -> str:
    return f"{PREFIX}r:{game}"


def presence_key(game: int) -> str:
    return f"{PREFIX}p:{game}"


@dataclass
class Presence:
    """The sockets one node has for one game."""

    occupants: set[int] = field(default_factory=set)
    seats: set[int] = field(default_factory=set)
    spectators: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"o": sorted(self.occupants), "s": sorted(self.seats), "n": self.spectators}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Presence:
        return cls(set(data.get("o", ())), set(data.get("s", ())), int(data.get("n", 0)))


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def _presences(entries: dict[Any, Any]) -> dict[str, Presence]:
    """A game's presence hash as read from Redis, by node; an entry that cannot be read (written by another
    version of the server) is left out rather than stopping every node that reads the game."""
    out = {}
    for node, raw in entries.items():
        try:
            out[_text(node)] = Presence.from_json(loads(raw))
        except (ValueError, TypeError, AttributeError):
            log.warning("cluster: an unreadable presence entry of node %s left out", _text(node))
    return out


def _seat_key(seat: int | None) -> str:
    return SPECTATORS if seat is None else str(seat)


class Cluster:
    """The node's part of the cluster, attached to its hub as `hub.cluster`."""

    def __init__(
        self, hub: Hub, url: str, *, lease_ttl: float = 5.0, node: str | None = None, timeout: float = 2.0
    ) -> None:
        self.hub = hub
        self.node = node or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        # Every command fails after `timeout` seconds (RedisError): a Redis that stops answering holds up
        # a request that long at most (pub/sub reads keep their own, shorter wait). Nothing is retried by
        # the client library: a pub/sub connection it made again without a word would hide the notes
        # missed meanwhile (`_listen` resyncs after a failure it sees).
        self.timeout = timeout
        self.redis = aioredis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0)
        )
        self.leases = Leases(self.redis, self.node, lease_ttl)
        self.ttl = lease_ttl
        self.route_wait = 2 * lease_ttl + 3.0  # how long a routed request looks for an owner
        # A node whose heartbeat is this old is gone for good: what it left in Redis is removed.
        self.forget_after = 100 * lease_ttl
        self.reply_wait = 10.0  # how long it waits for the owner's answer once delivered
        self._pubsub = self.redis.pubsub()
        self._watched: set[int] = set()
        self._sub_lock = asyncio.Lock()
        self._remote: dict[int, dict[str, Presence]] = {}  # game -> node -> its sockets there
        self._peeked: dict[int, dict[str, Presence]] = {}  # the same, read for the last lobby list
        self._alive: set[str] = set()
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._published: dict[int, int] = {}  # game -> the ply of its last state published to other nodes
        self._announced: set[int] = set()  # the games whose presence hash holds this node's sockets
        self._unpublished = False  # a batch of notes failed: the next round announces the sockets again
        self._lost: set[int] = set()  # games whose notes were in a batch that failed (`_resync`)
        # game -> the ply after which the events of its first lost state note begin: its later state notes
        # are not sent until one that begins there got through (`_send`)
        self._gap: dict[int, int] = {}
        self._missed = False  # the pub/sub connection failed: notes of every game here may have been missed
        self._ending: dict[int, Match] = {}  # games that ended here, until their lease is given up
        self._heard = 0  # the messages this node's pub/sub connection brought so far
        self._state_heard: dict[int, int] = {}  # game -> `_heard` at its last state note for this node
        # game -> the release of an ended game's lease, put off until its lost states are sent again
        self._releases: dict[int, asyncio.Future[None]] = {}
        self._outbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._scan_now = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[Any]] = set()
        self._upkeep_ok_at = time.monotonic()  # the end of the keeper's last round that reached Redis
        self._claiming: set[int] = set()
        self.stopping = False

    # ---- life cycle ----------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Joins: listens to its channel, makes the store's live games claimable, claims orphans."""
        await self.redis.ping()
        await self._pubsub.subscribe(node_channel(self.node), ORPHANS)
        await self._heartbeat()
        self._tasks = [
            asyncio.create_task(self._listen(), name="cluster-listen"),
            asyncio.create_task(self._publisher(), name="cluster-publish"),
            asyncio.create_task(self._keeper(), name="cluster-leases"),
        ]
        await self._reindex()
        await self._forget_earlier_presence()
        self._scan_now.set()
        log.info("cluster node %s joined (lease time %.1f s)", self.node, self.ttl)

    async def _forget_earlier_presence(self) -> None:
        """A node restarted under its name (THRONE_NODE_NAME) has none of the sockets its earlier process
        announced: they are withdrawn, else they would count as connected players for ever (no abandon
        clock, no bot take-over)."""
        keys = [key async for key in self.redis.scan_iter(match=f"{PREFIX}p:*", count=1000)]
        pipe = self.redis.pipeline(transaction=False)
        for key in keys:
            pipe.hexists(key, self.node)
        for key, mine in zip(keys, await pipe.execute(), strict=True):
            if mine:
                self._outbox.put_nowait(("presence", int(_text(key).rsplit(":", 1)[1]), None))

    async def stop(self) -> bool:
        """Graceful shutdown: every game this node owns is stopped (clocks stored) and handed over — its
        lease released at once and the other nodes told to claim it — instead of waiting out the lease.
        Whether the store answered every game's stop in time."""
        self.stopping = True
        answered = await Match.stop_all(list(self.hub.matches.values()))
        for match in list(self.hub.matches.values()):
            match.refuse_pending("owner_moved", "the game moved to another server; send it again")
        self.hub.matches.clear()
        for task in [*self._tasks, *self._background]:
            task.cancel()
        # Bounded: a pub/sub connection cancelled mid-read may never close cleanly, and the process exits.
        with contextlib.suppress(asyncio.CancelledError, Exception):
            tasks = [*self._tasks, *self._background]
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 2.0)
        # Every lease still held is handed over: the games this node ran, and one whose adoption the
        # cancelled keeper left half done (claimed, its log being read).
        handed = []
        for game in list(self.leases.held):
            with contextlib.suppress(Exception):
                if await self.leases.release(game, done=False):
                    handed.append(game)
        with contextlib.suppress(Exception):
            if handed:
                await self.redis.publish(ORPHANS, dumps({"from": self.node, "games": handed}))
            await self._send([("presence", game, None) for game in self._announced])
            await self.redis.zrem(NODES, self.node)
        log.info("cluster node %s left; %d games handed over", self.node, len(handed))
        for closing in (self._pubsub.aclose(), self.redis.aclose()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(closing, 2.0)
        return answered

    async def ready(self) -> str | None:
        """None when Redis answers and the leases were kept up within a lease time; else why not
        (readiness: a node that can hold no lease can run no game)."""
        try:
            await asyncio.wait_for(self.redis.ping(), self.timeout)
        except Exception as exc:  # the details (its address among them) go to the log, not to the caller
            log.warning("cluster: redis is unreachable: %r", exc)
            return "redis is unreachable"
        if time.monotonic() - self._upkeep_ok_at > self.ttl:
            return "the lease upkeep is failing"
        return None

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- leases --------------------------------------------------------------------------------------------
    def holds(self, game: int) -> bool:
        return self.leases.holds(game)

    async def claim_new(self, game: int) -> bool:
        """A table that just started here: this node owns it (False if the lease could not be taken, or the
        game could not be set up here: then the lease is given up at once, for another node to claim)."""
        try:
            token = await self.leases.claim(game)
            if token is None:
                return False
            await self.hub.db(self.hub.repo.fence_game, game, token)
            await self.watch(game)
            await self._load_presence(game)  # sockets of the open table on other nodes get the first state
        except Exception as exc:
            if isinstance(exc, RedisError):  # Redis failing: its message says it all
                log.warning(
                    "game %s: no lease for the new game (redis: %s); another node will claim it",
                    game,
                    exc,
                    extra={"game_id": game},
                )
            else:
                log.exception(
                    "game %s: no lease for the new game; another node will claim it",
                    game,
                    extra={"game_id": game},
                )
            self._spawn(self._give_up(game))
            return False
        return True

    async def _give_up(self, game: int) -> None:
        """Leaves a new game this node could not set up to another node: its lease given back and the game
        put in the orphan index. In the background, so that the request that started the game does not wait
        for a Redis that fails (a lease it did not take back runs out by itself, and every node lists the
        store's live games in the index every REINDEX_EVERY seconds)."""
        with contextlib.suppress(Exception):
            await self.leases.release(game, done=False)
        with contextlib.suppress(Exception):
            await self.leases.index([game])

    async def finished(self, match: Match) -> None:
        """The game ended: its lease is given up and the game forgotten by the orphan index, once what was
        queued for the other nodes is published (its final state among it: a note published by the owner
        passes only while the owner holds the lease). If states of it were lost, the release waits until
        the resync has sent them again (`_publisher`): the match is kept until then."""
        game = match.game_id
        self._ending[game] = match
        released: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._outbox.put_nowait(("release", game, released))
        with contextlib.suppress(Exception):  # (a lease not given up runs out by itself)
            await asyncio.wait_for(asyncio.shield(released), self.ttl)
        await self._unwatch_if_idle(game)

    def _forget(self, game: int) -> None:
        """What this node kept of a game for publishing its states, once it no longer owns it."""
        self._published.pop(game, None)
        self._gap.pop(game, None)
        self._ending.pop(game, None)
        release = self._releases.pop(game, None)
        if release is not None and not release.done():
            release.set_result(None)

    async def _keeper(self) -> None:
        """Renews this node's leases (a third of the lease time apart), drops the games it lost, and claims
        orphans: games whose owner died or handed them over."""
        last_index = time.monotonic()
        failed = False  # the last round could not reach Redis
        rejoin = 0  # rounds left in which this node announces its sockets again
        everything = False  # ... and resyncs every game it has sockets of, not only those of lost notes
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._scan_now.wait(), self.ttl / 3)
            self._scan_now.clear()
            try:
                await self._renew()
                renewed = time.monotonic()
                if self._unpublished:  # presence notes were lost: this node's sockets are told again
                    self._unpublished, rejoin = False, max(rejoin, 1)
                if self._missed:  # notes of meanwhile never reached this node
                    await self._reload_presence()  # (if it fails, `_missed` stays: the next round again)
                    self._missed, rejoin, everything = False, REJOIN_ROUNDS, True
                if await self._heartbeat() or failed:
                    # Redis was away, or lost its data (this node's heartbeat entry was gone: a restart
                    # without persistence): its leases, orphan index and presence may be gone too. The
                    # live games are made claimable now, and this node's sockets are announced again for a
                    # few rounds: the other nodes' pub/sub connections come back each in its own time, and
                    # a note published before one listens again never reaches it.
                    last_index = -REINDEX_EVERY
                    rejoin, everything = REJOIN_ROUNDS, True
                failed = False
                self._upkeep_ok_at = time.monotonic()
                if rejoin:
                    rejoin -= 1
                    self._announce_all()
                    # the store is read for every game of this node's sockets once per outage
                    self._resync(everything, reread=everything and rejoin == REJOIN_ROUNDS - 1)
                    everything = everything and rejoin > 0
                if time.monotonic() - last_index > REINDEX_EVERY:
                    last_index = time.monotonic()
                    await self._reindex()
                    await self._forget_dead()
                if not self.stopping:
                    orphans = await self.leases.orphans()
                    random.shuffle(orphans)  # nodes scanning at once start on different games
                    for game in orphans:
                        if game in self.hub.unplayable:
                            continue
                        # Rebuilding many games takes a while: the leases held (the adopted ones too) and
                        # the heartbeat are renewed on time meanwhile.
                        if time.monotonic() - renewed > self.ttl / 3:
                            await self._renew()
                            renewed = time.monotonic()
                            if await self._heartbeat():
                                last_index, rejoin, everything = -REINDEX_EVERY, REJOIN_ROUNDS, True
                        await self._adopt(game)
                if time.monotonic() - renewed > self.ttl / 3:
                    await self._renew()
            except asyncio.CancelledError:
                raise
            except RedisError as exc:  # Redis is down: the games stop once their leases run out
                if not failed:  # once per outage
                    log.warning("cluster: lease upkeep failed (%s); retrying", exc)
                failed = True
            except Exception:
                log.exception("cluster: lease upkeep failed; retrying")
            for game, match in list(self.hub.matches.items()):  # a lease that ran out between renewals
                if not self.leases.holds(game) and not match.over:
                    await self._drop(game)

    async def _renew(self) -> None:
        for game in await self.leases.renew():
            await self._drop(game)

    async def _heartbeat(self) -> bool:
        """Marks this node alive and reads which nodes are; True when its entry was missing (Redis lost
        its data since the last heartbeat).

        A node counts as gone while its heartbeat is late, and its sockets with it; their presence is kept,
        so a node whose heartbeat only lapsed (its keeper busy, Redis slow) counts again once it beats, and
        the games' owners send it the current state it missed meanwhile."""
        now = int(time.time() * 1000)
        added = await self.redis.zadd(NODES, {self.node: now})
        alive = await self.redis.zrangebyscore(NODES, now - int(3000 * self.ttl), "+inf")
        before, self._alive = self._alive, {_text(a) for a in alive}
        changed = before ^ self._alive
        for game, nodes in list(self._remote.items()) if changed else ():
            if changed.isdisjoint(nodes):
                continue
            for node in nodes.keys() & (self._alive - before):
                self._catch_up(game, node)
            self._presence_changed(game, occupants_changed=True)
        return bool(added)

    async def _forget_dead(self) -> None:
        """Removes what the nodes gone for good (no heartbeat for `forget_after` seconds) left in Redis: their
        heartbeat entries and their sockets in every game's presence, which a crashed node never withdrew."""
        cutoff = int((time.time() - self.forget_after) * 1000)
        dead = [_text(node) for node in await self.redis.zrangebyscore(NODES, "-inf", cutoff)]
        if not dead:
            return
        keys = [key async for key in self.redis.scan_iter(match=f"{PREFIX}p:*", count=1000)]
        for start in range(0, len(keys), 1000):
            pipe = self.redis.pipeline(transaction=False)
            for key in keys[start : start + 1000]:
                pipe.hdel(key, *dead)
            await pipe.execute()
        await self.redis.zrem(NODES, *dead)
        log.info("cluster: forgot %d nodes gone for good: %s", len(dead), ", ".join(dead))

    def _announce_all(self) -> None:
        """Announces this node's sockets of every game again (and listens to their rooms): after Redis was
        away or lost its data, or a batch of notes failed, the presence hashes and notes of meanwhile are
        gone, and the owners answer the news with the current state."""
        games = {game for game, conns in self.hub.rooms.items() if conns} | self._announced
        for game in games:  # (those it has no socket of any more are withdrawn)
            self.conns_changed(game)

    def _resync(self, everything: bool, reread: bool = False) -> None:
        """Notes lost while Redis was away (a batch that failed here, or notes this node's pub/sub connection
        missed: `everything`) would leave a table told nothing of a move, an ending, a leave or a join until
        the next one. For each game concerned this node sends again its own states that were lost (or the
        final one, from the store, of a game that ended meanwhile), and asks the other nodes to make good what
        they sent (a `resync` note: the owner sends this node the states since the oldest one its sockets
        saw, and every node reads again the open table it has sockets of). With `reread` it also reads from
        the store every game it has sockets of and does not run, for the final state of one that ended."""
        lost, self._lost = self._lost, set()
        games = set(lost)
        if everything:
            games |= {game for game, conns in self.hub.rooms.items() if conns}
        for game in games:
            match = self.hub.matches.get(game) or self._ending.get(game)
            if game in lost and match is not None and self.holds(game):
                self.publish_state(match, {})  # (the events since the last state that got through)
                if not match.over:  # the live table's summary (who is connected) may have been lost too
                    self.hub.broadcast_table(match.info)
            elif game in lost:
                self._gap.pop(game, None)
                self._spawn(self._show_end_if_over(game))
            release = self._releases.pop(game, None)
            if release is not None:  # an ended game: its lease is given up after the state just queued
                self._outbox.put_nowait(("release", game, release))
            self._spawn(self._refresh_table(game, started_too=reread))
            seen = [c.events_ply for c in self.hub.rooms.get(game, ()) if c.events_ply is not None]
            self.publish_room(game, {"t": "resync", "since": min(seen) if seen else None})

    async def _refresh_table(self, game: int, started_too: bool = False) -> None:
        """What this node's sockets of a game it does not run may have missed, read again from the store: an
        open table's seats and summary (a seat that left through another node watches from then on), and
        with `started_too` the final state of a game that ended. A live game's states are its owner's."""
        hub = self.hub
        conns = hub.rooms.get(game, ())
        started = any(c.events_ply is not None for c in conns)
        if not conns or game in hub.matches or (started and not started_too):
            return  # no socket here, this node runs it, or its owner's states say what is
        seated = {c.occupant for c in hub.seated.get(game, ()) if c.occupant is not None}  # as of the read
        try:
            info = await hub.db(hub.repo.get_game, game)
        except (NotFound, StoreError):
            return
        if info.status == "finished":
            await self._show_end(info, everywhere=False)
            return
        if info.status == "aborted":  # a table closed without a game (its `table` note was lost)
            hub.tell_here(game, {"type": "table", "game": hub.summary(info)})
            return
        if info.status != "open" or game in hub.matches:
            return
        # Only the sockets seated when the table was read: a seat taken since is not in what was read.
        if hub.unseat_left(game, seated - {s.id for s in info.seats}):
            self.conns_changed(game)
        await hub.peek_presence(game)
        if game in hub.matches or any(c.events_ply is not None for c in hub.rooms.get(game, ())):
            return  # it started meanwhile: the open table's summary is out of date
        hub.tell_here(game, {"type": "table", "game": hub.summary(info)})

    async def _show_end_if_over(self, game: int) -> None:
        """The final state of a game whose last notes were lost, if it ended, or the summary of a table closed
        without a game (from the store)."""
        with contextlib.suppress(NotFound, StoreError):
            info = await self.hub.db(self.hub.repo.get_game, game)
            if info.status == "finished":
                await self._show_end(info)
            elif info.status == "aborted":
                self.hub.broadcast_table(info)

    async def _reindex(self) -> None:
        with contextlib.suppress(Exception):
            await self.leases.index(await self.hub.db(self.hub.repo.games_with_status, "live"))

    async def _adopt(self, game: int) -> None:
        """Claims an orphan, rebuilds it from its seed and move log and continues it here."""
        hub = self.hub
        if game in hub.matches or game in self._claiming:
            return
        self._claiming.add(game)
        try:
            token = await self.leases.claim(game)
            if token is None:
                return
            # The token goes into the store first: from now on the previous owner's moves are refused, so
            # the log read next is the whole truth.
            if not await hub.db(hub.repo.fence_game, game, token):
                # A newer token is stored: another claim won, or the game ended (its counter was deleted
                # with its lease, so this claim's token is a low one) and is forgotten again, or Redis lost
                # its data (a restart) and counts from 0 again, below the stored token: then its counter is
                # doubled and the game claimed again at once, which passes the stored token in a few
                # rounds instead of one claim per token and round.
                live = await self._is_live(game)
                if live:
                    await self.leases.raise_fence(game, 2 * token)
                    self._scan_now.set()
                await self.leases.release(game, done=not live)
                return
            try:
                info = await hub.db(hub.repo.get_game, game)
            except NotFound:
                await self.leases.release(game, done=True)
                return
            if info.status != "live":
                # Its owner stored the end and died before the final state went out (the lease of a game
                # that ended is given up only after that): every node's sockets are shown it now.
                await self._show_end(info)
                await self.leases.release(game, done=True)
                return
            try:
                moves = await hub.db(hub.repo.moves, game)
                kind = kind_of(info.game)
                state, before = await hub.cpu(rebuild_with_last, kind, info, moves)
            except (DamagedRecord, OptionsError) as exc:  # not claimed again by this node (`unplayable`)
                hub.mark_unplayable(game, exc.detail if isinstance(exc, DamagedRecord) else str(exc))
                await self.leases.release(game, done=False)
                return
            info.ply = len(moves)
            await self.watch(game)
            await self._load_presence(game)
            if not self.leases.holds(game) or self.stopping:
                await self.leases.release(game, done=False)
                return
            # sockets greeted here while the table was open, whose start note never came: their own seats
            if hub.reseat(game, {s.id: s.seat for s in info.seats}):
                self.conns_changed(game)
            try:
                match = hub._start_match(info, kind, state)
            except Exception as exc:  # its stored clock, say: not claimed again by this node (`unplayable`)
                hub.mark_unplayable(game, f"it cannot be resumed: {type(exc).__name__}: {exc}")
                await self.leases.release(game, done=False)
                return
            if before is not None:
                match.describe_last(before, *moves[-1])
            self._forget(game)  # (what its sockets elsewhere missed: the view says; events are new)
            log.info(
                "game %s claimed by node %s at ply %d", game, self.node, info.ply, extra={"game_id": game}
            )
            hub.broadcast_state(match)  # sockets that reconnected meanwhile resume from here
            hub.broadcast_table(match.info)  # who is connected, and the countdowns, as the owner sees them
        except Exception:
            log.exception("game %s: claim failed; handing it back", game, extra={"game_id": game})
            with contextlib.suppress(Exception):
                await self.leases.release(game, done=False)
        finally:
            self._claiming.discard(game)

    async def _show_end(self, info: GameInfo, everywhere: bool = True) -> None:
        """Sends every socket of an ended game, on every node (or on this one), its seat's final `state` (the
        sockets greeted while the table was open are seated first: the note of its start may never have
        come)."""
        game, seated = info.id, {s.id: s.seat for s in info.seats}
        messages: dict[str, dict[str, Any]] = {}
        for seat in (None, *range(info.players)):
            message = await self.hub.current_state(game, seat)
            if message is not None:
                messages[_seat_key(seat)] = message
        self.hub.reseat(game, seated)
        for conn in list(self.hub.rooms.get(game, ())):
            if _seat_key(conn.seat) in messages:
                conn.send(messages[_seat_key(conn.seat)])
        if everywhere:
            self.publish_room(game, {"t": "seats", "msgs": messages, "seated": seated})

    async def _is_live(self, game: int) -> bool:
        try:
            return (await self.hub.db(self.hub.repo.get_game, game)).status == "live"
        except NotFound:
            return False

    async def _drop(self, game: int) -> None:
        """This node lost the lease of `game` (it expired): it stops acting for it at once."""
        match = self.hub.matches.pop(game, None)
        self.leases.held.pop(game, None)
        self._forget(game)
        if match is None:
            await self._unwatch_if_idle(game)  # (an ended game whose last states were still to be sent)
            return
        log.warning(
            "game %s: node %s lost its lease; another node continues the game",
            game,
            self.node,
            extra={"game_id": game},
        )
        await match.halt()
        match.refuse_pending("owner_moved", "the game moved to another server; send it again")
        await self._unwatch_if_idle(game)

    # ---- rooms and presence --------------------------------------------------------------------------------
    async def watch(self, game: int) -> None:
        """Listens to the room of `game` (idempotent), and reads which sockets the other nodes announced
        before it listened: from then on their notes keep that up to date."""
        if game in self._watched:
            return
        async with self._sub_lock:
            if game in self._watched:
                return
            await self._pubsub.subscribe(room_channel(game))
            self._watched.add(game)
        with contextlib.suppress(RedisError):  # (then the notes to come fill it in)
            await self._load_presence(game, newer_kept=True)

    async def _unwatch_if_idle(self, game: int) -> None:
        """Stops listening to a game this node neither runs, nor has sockets of, nor still publishes the
        last states of (an ended game whose lease is not given up yet needs the others' presence)."""
        if self._idle(game):
            async with self._sub_lock:
                if game in self._watched and self._idle(game):
                    self._watched.discard(game)
                    self._remote.pop(game, None)
                    self._state_heard.pop(game, None)
                    with contextlib.suppress(Exception):
                        await self._pubsub.unsubscribe(room_channel(game))

    def _idle(self, game: int) -> bool:
        return game not in self.hub.matches and game not in self._ending and not self.hub.rooms.get(game)

    def conns_changed(self, game: int) -> None:
        """A socket of `game` came or went on this node: the other nodes are told (presence)."""
        if not self.stopping:  # a node that is leaving takes its presence with it
            self._spawn(self._announce(game))

    async def _announce(self, game: int) -> None:
        """Tells the other nodes which sockets of `game` this node has now. It listens to the game's room
        before it says so, since the owner answers news of sockets with the current state."""
        if self.hub.rooms.get(game):
            await self.watch(game)
        if self.stopping:
            return
        hub = self.hub
        seated = [c for c in hub.seated.get(game, ()) if not c.closed]
        mine = Presence(
            {c.occupant for c in seated if c.occupant is not None},
            {c.seat for c in seated if c.seat is not None},
            len(hub.rooms.get(game, ())) - len(hub.seated.get(game, ())),
        )
        empty = not hub.rooms.get(game)  # read now, after the wait: the last note sent says what is
        self._outbox.put_nowait(("presence", game, None if empty else mine))
        if empty:
            await self._unwatch_if_idle(game)

    def remote_presence(self, game: int) -> list[Presence]:
        """The other nodes' sockets of `game`: kept up to date for the games this node watches, else as
        last read by `peek_presence`."""
        nodes = self._remote.get(game)
        if nodes is None:
            nodes = self._peeked.get(game, {})
        return [p for n, p in nodes.items() if n in self._alive and n != self.node]

    async def peek_presence(self, games: list[int]) -> None:
        """Reads the presence of games this node does not watch (a lobby list, a table described here), in one
        round trip. Best effort, within PEEK_WAIT: a Redis that hangs costs a request one failed command (its
        rate limit's), not two."""
        unwatched = [g for g in games if g not in self._remote]
        if not unwatched:
            return
        pipe = self.redis.pipeline(transaction=False)
        for game in unwatched:
            pipe.hgetall(presence_key(game))
        try:
            hashes = await asyncio.wait_for(pipe.execute(), min(self.timeout, PEEK_WAIT))
        except Exception:
            return  # the flags show this node's sockets only
        if len(self._peeked) + len(unwatched) > PEEKED_MAX:  # the last reads of several requests, kept
            self._peeked = {}
        self._peeked.update({game: _presences(e) for game, e in zip(unwatched, hashes, strict=True)})

    async def _load_presence(self, game: int, newer_kept: bool = False) -> None:
        """Reads the other nodes' sockets of `game` from its presence hash (`newer_kept`: a node's entry that
        a note already brought is newer than the hash read after it)."""
        entries = _presences(await self.redis.hgetall(presence_key(game)))
        entries.pop(self.node, None)
        nodes = self._remote.setdefault(game, {})
        for node, presence in entries.items():
            if not newer_kept or node not in nodes:
                nodes[node] = presence
        self._alive |= entries.keys()  # (nodes that joined since the last heartbeat round)

    async def _reload_presence(self) -> None:
        """Reads again the other nodes' sockets of every game this node watches: presence notes sent while
        its pub/sub connection was down never came, and a socket that left would count as connected for
        good (its seat never taken over). An entry a note changed during the read is newer, and kept."""
        games = list(self._watched | self._remote.keys())
        if not games:
            return
        before = {game: dict(self._remote.get(game, {})) for game in games}
        pipe = self.redis.pipeline(transaction=False)
        for game in games:
            pipe.hgetall(presence_key(game))
        hashes = await pipe.execute()
        for game, entries in zip(games, hashes, strict=True):
            read = _presences(entries)  # (who is alive is the heartbeats' to say: a dead node's entry stays)
            read.pop(self.node, None)
            nodes = self._remote.get(game)
            if nodes is None:
                continue  # no longer watched
            changed = False
            for node in before[game].keys() | read.keys():
                if nodes.get(node) is not before[game].get(node):
                    continue  # a note came during the read
                if node not in read:
                    del nodes[node]
                elif nodes.get(node) != read[node]:
                    nodes[node] = read[node]
                else:
                    continue
                changed = True
            if changed:
                self._presence_changed(game, occupants_changed=True)

    def _catch_up(self, game: int, node: str, since: int | None = None) -> None:
        """Node `node` has new sockets of `game` (or missed notes of it: the events of the plies after
        `since`). If this node owns the game, it sends that node the current state: the note saying so can
        arrive after states this node did not publish (nobody else had a socket of the game) or published
        before that node listened, while its sockets' seats wait for it."""
        match = self.hub.matches.get(game)
        if match is not None and self.holds(game):
            self.publish_state(match, {}, to=node, since=since)

    def _presence_changed(self, game: int, occupants_changed: bool = False) -> None:
        """Who is connected changed on another node: the owner restarts or stops the take-over countdowns,
        and sends the table its summary when a seat came or went (the other nodes leave that to it)."""
        match = self.hub.matches.get(game)
        if match is not None:
            match.presence_changed()
            if occupants_changed and not match.over:
                self.hub.broadcast_table(match.info)

    # ---- publishing ----------------------------------------------------------------------------------------
    def publish_state(
        self,
        match: Match,
        cache: dict[int | None, dict[str, Any]],
        legal: list[str] | None = None,
        clocks: dict[str, Any] | None = None,
        to: str | None = None,
        since: int | None = None,
    ) -> None:
        """Fans the owner's `state` messages out to the other nodes (or only to node `to`): one per seat and
        one for spectators, the views, legal moves and clocks reused where the local broadcast already
        computed them. The events are those since the last state published (or of the plies after `since`:
        states lost on their way), which a node's sockets that saw a later state leave out."""
        game = match.game_id
        if not self.remote_presence(game):
            self._gap.pop(game, None)  # (nothing to hold back: the next node's sockets get the whole state)
            return  # no other node has a socket of this game
        hub = self.hub
        if since is None:
            since = self._published.get(game)
        status = "finished" if match.over else "live"
        result = match.result
        bots = frozenset(s.seat for s in match.info.seats if s.kind != "human")
        views: dict[str, Any] = {}
        out = match.seats_out()
        for seat in (None, *range(match.info.players)):
            if seat in out:  # (its person's sockets are shown what spectators see)
                views[_seat_key(seat)] = views[_seat_key(None)]
                continue
            events = match.events.since(since, match.ply, seat)
            message = hub.state_message(
                game, match.kind, match.state, match.ply, status, result, seat, cache, bots, events, match,
                legal, clocks if clocks is not None else match.clocks(),
            )  # fmt: skip
            if message["your_turn"]:
                legal = message["legal_moves"]
            views[_seat_key(seat)] = encode(message)  # text: a node forwards it without decoding it
        if to is None:
            self._published[game] = match.ply
        seats = {s.id: s.seat for s in match.info.seats}  # a socket seated while the table was open
        after = match.ply - 1 if since is None else since  # the events are those of the plies after this
        note = {
            "t": "state",
            "from": self.node,
            "ply": match.ply,
            "after": after,
            "views": views,
            "seats": seats,
        }
        if to is not None:
            note["to"] = to
        self._outbox.put_nowait(("fenced", game, room_channel(game), dumps(note), after, to is None))

    def publish_room(self, game: int, note: dict[str, Any]) -> None:
        """A note for the other nodes' sockets of a game: {"t": "all", "msg": …} goes to every socket,
        {"t": "seats", "msgs": {seat: …}} to each seat's sockets only ("s": spectators), chat by channel;
        {"t": "unseat", "left": […]}: the sockets of these seat rows left the table and watch."""
        self._outbox.put_nowait(("plain", game, room_channel(game), dumps({**note, "from": self.node})))

    async def _publisher(self) -> None:
        """Sends the outbox in order, in pipelines: whatever queued up while one was sent goes in the next.
        The leases of finished games are given up after the pipeline that holds their last notes."""
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 256:
                batch.append(self._outbox.get_nowait())
            await self._send([item for item in batch if item[0] != "release"])
            for _, game, released in (item for item in batch if item[0] == "release"):
                if game in self._gap and self.holds(game):  # its last states were lost: `_resync` first
                    self._releases[game] = released
                    continue
                try:
                    await self.leases.release(game, done=True)
                except Exception as exc:
                    if not released.done():
                        released.set_exception(exc)
                else:
                    if not released.done():
                        released.set_result(None)
                self._forget(game)  # (a lease not given up runs out by itself)
                self._spawn(self._unwatch_if_idle(game))

    async def _send(self, batch: list[tuple[Any, ...]]) -> None:
        """Publishes `batch` (state notes fenced by their lease, room notes, presence) in one pipeline."""
        if not batch:
            return
        pipe = self.redis.pipeline(transaction=False)
        fenced: list[int | None] = []
        announced: dict[int, bool] = {}  # game -> whether its presence hash holds this node's sockets now
        mended: set[int] = set()  # games whose gap a state note of this batch closes (later ones follow it)
        for item in batch:
            if item[0] == "fenced":
                _, game, channel, payload, after, to_all = item
                token = self.leases.token(game)
                if token is None:
                    continue
                gap = None if game in mended else self._gap.get(game)
                if gap is not None and after > gap:
                    continue  # its events would follow a lost state's: the resync's state sends them all
                if gap is not None and to_all:
                    mended.add(game)
                pipe.eval(PUBLISH_SCRIPT, 1, lease_key(game), f"{self.node}|{token}", channel, payload)
                fenced.append(game)
            elif item[0] == "plain":
                pipe.publish(item[2], item[3])
                fenced.append(None)
            else:  # presence
                _, game, mine = item
                announced[game] = mine is not None
                if mine is None:
                    pipe.hdel(presence_key(game), self.node)
                    note = {"t": "presence", "from": self.node, "p": None}
                else:
                    pipe.hset(presence_key(game), self.node, dumps(mine.to_json()))
                    note = {"t": "presence", "from": self.node, "p": mine.to_json()}
                pipe.publish(room_channel(game), dumps(note))
                fenced += [None, None]
        try:
            results = await pipe.execute(raise_on_error=False)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, RedisError):  # Redis away: expected, and made good once it answers
                log.warning("cluster: %d messages not published (%s); resynced later", len(batch), exc)
            else:
                log.exception("cluster: %d messages not published", len(batch))
            self._unpublished = True
            for item in batch:
                if item[0] == "fenced":  # the next state published carries the events of this one too
                    game, after = item[1], item[4]
                    self._published[game] = min(self._published.get(game, after), after)
                    self._gap[game] = min(self._gap.get(game, after), after)
                if item[0] in ("fenced", "plain"):
                    self._lost.add(item[1])
            return
        for game in mended:
            self._gap.pop(game, None)
        for game, holds in announced.items():
            if holds:
                self._announced.add(game)
            else:
                self._announced.discard(game)
        for game, result in zip(fenced, results, strict=False):
            if game is not None and result == -1:
                log.warning(
                    "game %s: state not published: this node no longer holds the lease",
                    game,
                    extra={"game_id": game},
                )

    # ---- receiving -----------------------------------------------------------------------------------------
    async def _listen(self) -> None:
        failing = False
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not failing:  # once per outage, not every half second
                    log.warning("cluster: the pub/sub connection failed (%s); listening again", exc)
                failing = True
                await asyncio.sleep(0.5)
                continue
            if failing:  # listening again: what was published meanwhile never reached this node
                failing, self._missed = False, True
                self._scan_now.set()
            if message is None or message.get("type") != "message":
                continue
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else channel
            try:
                self._dispatch(channel, loads(message["data"]))
            except Exception:
                room = channel.startswith(f"{PREFIX}r:")
                extra = {"game_id": int(channel.rsplit(":", 1)[1])} if room else {}
                log.exception("cluster: a message on %s could not be handled", channel, extra=extra)

    def _dispatch(self, channel: str, note: dict[str, Any]) -> None:
        self._heard += 1
        if channel == ORPHANS:
            self._scan_now.set()
        elif channel == node_channel(self.node):
            if note.get("op") == "reply":
                future = self._pending.get(note.get("id", ""))
                if future is not None and not future.done():
                    future.set_result({**note, "heard": self._heard})
            else:
                self._spawn(self._answer(note))
        elif channel.startswith(f"{PREFIX}r:") and note.get("from") != self.node:
            self._room(int(channel.rsplit(":", 1)[1]), note)

    def _room(self, game: int, note: dict[str, Any]) -> None:
        kind = note.get("t")
        conns: list[Conn] = list(self.hub.rooms.get(game, ()))
        if kind == "state":
            if game in self.hub.matches or note.get("to", self.node) != self.node:
                return  # this node owns the game (a stale owner's note never passes the fence), or not for us
            if not _is_state_note(note):
                log.warning(
                    "cluster: a malformed state note for game %s was ignored", game, extra={"game_id": game}
                )
                return
            ply, views = note["ply"], note["views"]
            self._state_heard[game] = self._heard
            # a table that started on another node seated its sockets' occupants
            if self.hub.reseat(game, {int(k): v for k, v in note["seats"].items()}):
                self.conns_changed(game)  # the owner learns which seats are present here
            encoded: dict[tuple[int | None, int | None], str] = {}  # re-encoded messages, once each
            for conn in conns:
                text = views.get(_seat_key(conn.seat))
                last = conn.events_ply  # (a takeback sends a lower ply: the notes of a game come in order)
                if text is None:
                    continue
                after = ply - 1 if last is None else last
                if after != note["after"]:  # a socket that saw another ply last: its events only
                    key = (conn.seat, last)
                    if key not in encoded:
                        message = loads(text)
                        events = [e for e in message.get("events", ()) if e.get("ply", 0) > after]
                        encoded[key] = encode({**message, "events": events})
                    text = encoded[key]
                conn.events_ply = ply
                conn.send_text(text)
        elif kind == "all":
            for conn in conns:
                conn.send(note["msg"])
        elif kind == "seats":
            if "seated" in note and self.hub.reseat(game, {int(k): v for k, v in note["seated"].items()}):
                self.conns_changed(game)
            for conn in conns:
                message = note["msgs"].get(_seat_key(conn.seat))
                if message is not None:
                    conn.send(message)
        elif kind == "unseat":  # a seat left the open table through another node: its sockets here watch
            rows = note.get("left")
            well_formed = isinstance(rows, list) and all(type(r) is int for r in rows)
            if well_formed and self.hub.unseat_left(game, rows):
                self.conns_changed(game)
        elif kind == "resync":  # notes of this game between that node and the others may have been lost
            since = note.get("since")
            match = self.hub.matches.get(game)
            if match is not None:
                self._catch_up(game, note["from"], since if type(since) is int else None)
                if not match.over and self.holds(game):  # its `table` notes (who is connected) too
                    self.hub.broadcast_table(match.info)
            self._spawn(self._refresh_table(game))
        elif kind == "chat":
            for conn in conns:
                if note["channel"] in readable(note["status"], conn.seat is not None):
                    conn.send(note["msg"])
        elif kind == "presence":
            # It speaks: alive, even if it joined after the last heartbeat. One counted gone until now (its
            # heartbeat late, Redis restarted) may have missed states, as may new sockets: both catch up.
            present = self.hub.present_occupants(game)  # (before a node counted gone counts again)
            revived = note["from"] not in self._alive
            self._alive.add(note["from"])
            nodes = self._remote.setdefault(game, {})
            before = nodes.get(note["from"])
            if note.get("p") is None:
                nodes.pop(note["from"], None)
            else:
                now = nodes[note["from"]] = Presence.from_json(note["p"])
                known = before is not None and now.occupants <= before.occupants and now.seats <= before.seats
                if revived or not known:
                    self._catch_up(game, note["from"])
            self._presence_changed(game, self.hub.present_occupants(game) != present)

    # ---- routing -------------------------------------------------------------------------------------------
    async def route(self, game: int, op: str, **fields: Any) -> Any:
        """Runs `op` (move, control, state) on the owner of `game`, wherever it is; raises what the owner
        raised. A request is sent again only when it certainly reached no owner. While Redis cannot be
        reached it is refused `owner_unavailable` at once (the client sends it again)."""
        try:
            return await self._route(game, op, fields)
        except RedisError as exc:
            log.warning(
                "game %s: a %s could not be routed: redis failed (%s)", game, op, exc, extra={"game_id": game}
            )
            raise self._refusal(
                op, "owner_unavailable", "the servers cannot reach each other right now; try again shortly"
            ) from None
        except StoreUnavailable:  # (the store read that tells an ownerless game's status)
            raise self._refusal(
                op, "store_unavailable", "the game store is failing; try again shortly"
            ) from None

    def _refusal(self, op: str, code: str, message: str) -> MoveRefused:
        """A request this node refuses itself (an owner counts the refusals it makes): a move's is counted."""
        self._count_refusal(op, code)
        return MoveRefused(code, message)

    def _count_refusal(self, op: str, code: str) -> None:
        if op == "move":
            self.hub.metrics.refused.labels(code).inc()

    async def _route(self, game: int, op: str, fields: dict[str, Any]) -> Any:
        end = time.monotonic() + self.route_wait
        request = {"op": op, "game": game, "from": self.node, **fields}
        while True:
            match = self.hub.matches.get(game)
            if match is not None:  # claimed here meanwhile
                return await self._local(game, op, fields)
            owner = await self.leases.owner(game)
            if owner is not None and owner[0] != self.node:
                rid = secrets.token_hex(8)
                future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
                self._pending[rid] = future
                try:
                    payload = dumps({**request, "id": rid})
                    delivered = await self.redis.publish(node_channel(owner[0]), payload)
                    if delivered:
                        try:
                            reply = await asyncio.wait_for(future, self.reply_wait)
                        except TimeoutError:
                            raise self._refusal(
                                op, "owner_unavailable", "the server of this game did not answer; try again"
                            ) from None
                        if not reply.get("moved"):
                            return _answer_of(op, reply)
                finally:
                    self._pending.pop(rid, None)
            elif owner is None:
                info = await self.hub.db(self.hub.repo.get_game, game)
                if info.status != "live":
                    code = "game_over" if info.status in ("finished", "aborted") else "not_live"
                    self._count_refusal(op, code)
                    raise ApiError(409, code, f"game {game} is {info.status}")
                if game in self.hub.unplayable:  # an orphan this node could not rebuild
                    self._count_refusal(op, "game_unavailable")
                    self.hub.check_playable(game)
                self._scan_now.set()  # an orphan: claim it (here or elsewhere) without waiting
            if time.monotonic() > end:
                raise self._refusal(
                    op, "owner_unavailable", "the game is moving to another server; try again"
                )
            await asyncio.sleep(0.05)

    async def _local(self, game: int, op: str, fields: dict[str, Any]) -> Any:
        hub = self.hub
        if op == "move":
            return await hub.submit_move(game, fields["seat"], fields["move"], fields.get("ply"))
        if op == "control":
            await hub.table_control(
                game, fields["seat"], fields["action"], fields.get("accept", False), fields.get("ply")
            )
            return None
        if op == "summary":
            match = hub.matches.get(game)
            if match is None:
                raise _Moved
            return hub.summary(match.info)
        if op == "state":
            match = hub.matches.get(game)
            if match is None:
                raise _Moved
            seat = fields.get("seat")
            message = await hub.current_state(game, seat)
            if message is not None:  # as that seat's view: a seat out of the game sees what spectators do
                message["events"] = match.events.since(None, match.ply, message["seat"])
            if fields.get("listener"):  # that node listens from now on (before its presence note arrives)
                self._remote.setdefault(game, {}).setdefault(fields["listener"], Presence())
                self._alive.add(fields["listener"])
            return message
        raise ValueError(f"unknown request {op!r}")

    async def _answer(self, request: dict[str, Any]) -> None:
        game = int(request["game"])
        reply: dict[str, Any] = {"op": "reply", "id": request.get("id")}
        try:
            if game not in self.hub.matches or not self.leases.holds(game):
                raise _Moved
            fields = {k: v for k, v in request.items() if k not in ("op", "game", "from", "id")}
            if request["op"] == "state":
                fields["listener"] = request["from"]
            reply["ok"] = await self._local(game, request["op"], fields)
            if request["op"] == "state":  # in order with the game's notes: older ones first, newer after
                self._outbox.put_nowait(("plain", game, node_channel(request["from"]), dumps(reply)))
                return
        except _Moved:
            reply["moved"] = True
        except MoveRefused as exc:
            reply["refused"] = [exc.code, exc.message, exc.extra]
        except ApiError as exc:
            reply["api"] = [exc.status, exc.code, exc.message]
        except Exception:
            log.exception("game %s: a routed %s failed", game, request.get("op"), extra={"game_id": game})
            reply["refused"] = ["server_error", "the server failed to handle the request", {}]
        with contextlib.suppress(Exception):
            await self.redis.publish(node_channel(request["from"]), dumps(reply))

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str, hold: float = 10.0, wait: float = 5.0) -> AsyncIterator[None]:
        """One holder of `name` at a time across the nodes until the block ends: a Redis lock, which expires
        after `hold` seconds if its node dies. Waited for `wait` seconds at most; without it (a long wait, a
        failing Redis) the block runs anyway: it guards caps, not the game's truth."""
        lock = self.redis.lock(PREFIX + name, timeout=hold, blocking_timeout=wait)
        token = secrets.token_hex(16)
        try:
            held = bool(await lock.acquire(token=token))
        except RedisError as exc:
            log.warning("cluster: the lock %s could not be taken (%s); going on without it", name, exc)
            # The request may still reach a Redis that hangs, and take the lock once it resumes: the next
            # holder would wait for it in vain. It is given back as soon as Redis answers.
            self._spawn(self._give_back(lock, token, hold))
            held = False
        try:
            yield
        finally:
            if held:
                with contextlib.suppress(RedisError, LockError):
                    await lock.release()

    async def _give_back(self, lock: Any, token: str, hold: float) -> None:
        """Deletes `lock` if `token` holds it, trying until it would have expired anyway."""
        end = time.monotonic() + hold
        while time.monotonic() < end:
            with contextlib.suppress(RedisError, LockError):
                await lock.do_release(token.encode())
                return
            await asyncio.sleep(GIVE_BACK_EVERY)

    async def owner_summary(self, game: int) -> dict[str, Any] | None:
        """The summary of a live game as its owner on another node shows it; None if no owner answered
        within a second (the game is moving: a summary made here will do)."""
        try:
            answer = await asyncio.wait_for(self.route(game, "summary"), OWNER_SUMMARY_WAIT)
        except (TimeoutError, MoveRefused, ApiError, StoreError, RedisError):
            return None
        return answer if isinstance(answer, dict) else None

    async def current_state(self, game: int, seat: int | None, conn: Conn | None) -> dict[str, Any] | None:
        """A live game's `state` for a seat from its owner on another node (None: the game is not live). A
        request without a socket (`conn`) whose owner cannot be reached is refused (MoveRefused
        `owner_unavailable`: send it again); a socket gets the state with the owner's next broadcast."""
        info = await self.hub.db(self.hub.repo.get_game, game)
        if info.status != "live":
            return None
        if conn is not None and conn.occupant is not None:
            # the table may have started (and drawn the seats) since hello
            seat = next((s.seat for s in info.seats if s.id == conn.occupant), None)
            if seat != conn.seat:
                conn.seat = seat
                self.conns_changed(game)
        try:
            if conn is not None:
                await self.watch(game)  # before asking: no later state is missed
            message = await self.route(game, "state", seat=seat)
        except (MoveRefused, ApiError, RedisError) as exc:
            if conn is None and isinstance(exc, MoveRefused):  # a request: refused, to be sent again
                raise
            # The game ended or moves (the next broadcast brings the state), or Redis is away (once it is
            # back, this node announces its sockets again and the owner sends them the state).
            return None
        heard = message.pop("_heard", None) if isinstance(message, dict) else None
        if message is None or conn is None:
            return message
        if conn.events_ply is not None and conn.events_ply >= message["ply"]:
            return None  # a newer state already reached the socket
        if heard is not None and self._state_heard.get(game, 0) > heard:
            return None  # a state note came after the answer: a newer one (an undo's ply is lower), shown
        conn.events_ply = message["ply"]
        return message


class _Moved(Exception):
    """The request reached a node that no longer owns the game: it is sent again to the owner."""


def _is_state_note(note: dict[str, Any]) -> bool:
    """Whether a `state` note has the shape `publish_state` gives it (anything else changes nothing)."""
    views, seats = note.get("views"), note.get("seats")
    return (
        all(type(note.get(k)) is int for k in ("ply", "after"))
        and isinstance(views, dict)
        and all(isinstance(text, str) for text in views.values())
        and isinstance(seats, dict)
        and all(str(k).isdigit() and (v is None or type(v) is int) for k, v in seats.items())
    )


def _answer_of(op: str, reply: dict[str, Any]) -> Any:
    """What the owner answered; a `state` carries `_heard`, when its reply came (`current_state`)."""
    answer = _unpack(reply)
    if op == "state" and isinstance(answer, dict):
        answer["_heard"] = reply["heard"]
    return answer


def _unpack(reply: dict[str, Any]) -> Any:
    if "refused" in reply:
        code, message, extra = reply["refused"]
        raise MoveRefused(code, message, **(extra or {}))
    if "api" in reply:
        status, code, message = reply["api"]
        raise ApiError(status, code, message)
    return reply.get("ok")
