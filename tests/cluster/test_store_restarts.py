"""The shared stores go away under live games and come back, and no node is restarted: Redis restarted
without persistence (every lease, fencing counter, orphan index entry and presence hash lost) and PostgreSQL
stopped for a few seconds. Meanwhile moves are refused with a retryable code (the sockets stay open) and
`/api/ready` says 503; afterwards each game has one owner again, moves routed from other nodes and the
owner's fan-out to them work again, and every log is gap-free with every seat's view equal to a replay."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import redis
import sqlalchemy as sa

from tests.cluster.nodes import Node, Player, leaders_table, ready_nodes, until
from tests.cluster.play import RETRY, STEP, advance, check_log_and_views, lease_owner, play, resting
from tests.cluster.redisd import RedisServer
from tests.processes import terminate
from tests.store.pg import PgCluster
from throne.store import Database, Repo

LEASE_TTL = 3.0
LONG_LEASE = 20.0  # an owner keeps its games through a short outage (its lease's deadline is its own)
OUTAGE = 15.0  # seconds a refusal, a 503 or a recovery may take on a loaded machine
REDIS_TIMEOUT = 2.0  # THRONE_REDIS_TIMEOUT of the test that makes Redis hang


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A Redis of this test alone: the test stops and restarts it (same port, data lost)."""
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_pg() -> Iterator[PgCluster]:
    """A PostgreSQL of this test alone: the test stops and restarts it."""
    cluster = PgCluster()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


def _migrated(url: str) -> str:
    db = Database(url)
    db.upgrade()  # once, before the nodes start
    db.dispose()
    return url


@dataclass
class Live:
    """A test's cluster: the store and Redis to check it with, its nodes, and the players to close."""

    db: Database
    repo: Repo
    r: redis.Redis
    nodes: list[Node]
    players: list[Player] = field(default_factory=list)


@contextmanager
def live_cluster(
    database: str, redis_url: str, prefix: str, count: int, tmp_path: Path, lease_ttl: float = LEASE_TTL
) -> Iterator[Live]:
    """`count` ready nodes on the migrated `database` and the Redis at `redis_url`; at the end every player
    in `players` is closed and every node stopped."""
    db = Database(_migrated(database))
    r = redis.Redis.from_url(redis_url)
    try:
        live = Live(db, Repo(db), r, ready_nodes(prefix, count, database, redis_url, tmp_path, lease_ttl))
        try:
            yield live
        finally:
            for p in live.players:
                p.close()
            for n in live.nodes:
                n.stop()
    finally:
        r.close()
        db.dispose()


def _pg_stop(cluster: PgCluster) -> None:
    cluster._run("pg_ctl", "-D", str(cluster.data), "-m", "fast", "-w", "stop")


def _pg_start(cluster: PgCluster) -> None:  # the options of PgCluster.start
    opts = f"-p {cluster.port} -k {cluster.root} -c listen_addresses='' -c fsync=off"
    log = str(cluster.root / "log")
    cluster._run("pg_ctl", "-D", str(cluster.data), "-o", opts, "-l", log, "-w", "-t", "60", "start")


def _to_move(players: list[Player]) -> tuple[Player, int]:
    """The player whose turn it is once the game rests, and the ply."""
    ply = resting(players)
    mover = next(p for p in players if p.wait_ply(ply, STEP)["your_turn"])
    return mover, ply


def _refused_and_open(mover: Player, move: str, ply: int, codes: tuple[str, ...]) -> str:
    """Sends `move`: it is refused with one of `codes` in time, and the socket still answers a ping."""
    mover.errors.clear()
    mover.move(move, ply)
    error = mover.recv_until(lambda m: m["type"] == "error", OUTAGE)
    assert error["code"] in codes, error
    assert mover.ws is not None
    mover.ws.send(json.dumps({"type": "ping"}))
    mover.recv_until(lambda m: m["type"] == "pong", OUTAGE)
    return str(error["code"])


def _two_games(a: Node, b: Node, c: Node) -> tuple[list[Player], list[Player]]:
    """Two Leaders games, one owned by b and one by c, each with no socket on its owner."""
    ann, bob = Player(a, "ann"), Player(b, "bob")
    leaders_table(ann, bob)  # bob's join on b starts it: b owns it
    carl, dora = Player(a, "carl"), Player(c, "dora")
    leaders_table(carl, dora)  # c owns it
    ann.connect(a)
    bob.connect(c)
    carl.connect(b)
    dora.connect(a)
    return [ann, bob], [carl, dora]


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_games_go_on_after_redis_restarts(
    pg_cluster: PgCluster, own_redis: RedisServer, tmp_path: Path
) -> None:
    rng = random.Random(7)
    with live_cluster(pg_cluster.new_database(), own_redis.url, "r", 3, tmp_path) as live:
        db, repo, r, nodes = live.db, live.repo, live.r, live.nodes
        games = _two_games(*nodes)
        live.players += [p for seated in games for p in seated]
        assert [lease_owner(r, g[0].game_id) for g in games] == ["r1", "r2"]
        for seated in games:
            advance(seated, 3, rng)

        terminate(own_redis.proc, grace=10)  # Redis goes down: its data is gone with it
        until(lambda: not any(n.ready() for n in nodes), OUTAGE, "every node not ready")
        first = games[0]
        mover, ply = _to_move(first)
        move = rng.choice(mover.state["legal_moves"]) if mover.state else ""
        _refused_and_open(mover, move, ply, RETRY)  # routed: its node cannot reach the owner
        with db.engine.begin() as conn:  # as if the games had changed owners many times before: the
            conn.execute(sa.text("UPDATE games SET fence = 1000"))  # restarted Redis counts from 0 again
        for owner in nodes[1:]:  # the owners stop their games once their leases run out
            until(lambda owner=owner: "lost its lease" in owner.log.read_text(), OUTAGE, "the games stopped")

        own_redis.start()  # the same port, empty
        back = time.monotonic()
        until(lambda: all(n.ready() for n in nodes), OUTAGE, "every node ready again")
        play(mover, move, ply)  # sent again: played once
        for seated in games:  # each game has an owner again, soon: the next move of each is played in time
            p, at = _to_move(seated)
            play(p, rng.choice(p.state["legal_moves"]) if p.state else "", at)
            assert lease_owner(r, seated[0].game_id) is not None
        assert time.monotonic() - back < OUTAGE, "the games had no owner for too long"
        for seated in games:
            advance(seated, 4, rng)
        for seated in games:
            assert check_log_and_views(repo, db.engine, seated[0].game_id, seated) >= 7


def _game_across_two_nodes(live: Live) -> tuple[Player, Player]:
    """A Leaders game owned by the first node: the socket of the seat to move first there, the other seat's
    on the second node, both seen connected on both nodes (every note of the sockets went through)."""
    n0, n1 = live.nodes
    ann, bob = Player(n0, "Ann"), Player(n0, "Bob")
    live.players += [ann, bob]
    game = leaders_table(ann, bob)  # Bob's join through n0 starts it there
    until(lambda: lease_owner(live.r, game) == n0.name, STEP, "n0 owns the game")
    for p in (ann, bob):
        p.connect(n0)
    first, other = (ann, bob) if ann.wait_ply(0, STEP)["your_turn"] else (bob, ann)
    other.connect(n1)
    other.wait_ply(0, STEP)

    def connected(node: Node) -> bool:
        seats = httpx.get(f"{node.base}/api/games/{game}", timeout=10).json()["game"]["seats"]
        return all(s.get("connected") for s in seats)

    until(lambda: connected(n0) and connected(n1), STEP, "both seats seen connected on both nodes")
    return first, other


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_game_that_ends_while_redis_is_down_ends_on_every_node(
    pg_cluster: PgCluster, own_redis: RedisServer, tmp_path: Path
) -> None:
    """Redis goes down and Ann resigns through the owner, which still holds its lease and stores the end;
    the note of the final state is lost. Once Redis is back Bob's socket, on the other node, is shown the
    end (before: the live game, waiting for Ann, for good)."""
    with live_cluster(pg_cluster.new_database(), own_redis.url, "end", 2, tmp_path, LONG_LEASE) as live:
        ann, bob = _game_across_two_nodes(live)  # Ann's socket on the owner
        own_redis.down()
        try:
            assert ann.ws is not None
            ann.ws.send(json.dumps({"type": "resign"}))
            ann.recv_until(lambda m: m["type"] == "state" and m["status"] == "finished", STEP)
        finally:
            own_redis.start()
        end = bob.recv_until(lambda m: m["type"] == "state" and m["status"] != "live", OUTAGE)
        assert end["status"] == "finished" and end["result"] is not None


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_games_go_on_after_postgres_restarts(
    own_pg: PgCluster, redis_server: RedisServer, tmp_path: Path
) -> None:
    redis.Redis.from_url(redis_server.url).flushdb()
    rng = random.Random(8)
    with live_cluster(own_pg.new_database(), redis_server.url, "q", 2, tmp_path) as live:
        db, repo, r, nodes = live.db, live.repo, live.r, live.nodes
        a, b = nodes
        ann, bob = Player(a, "ann"), Player(b, "bob")
        game = leaders_table(ann, bob)  # b owns it
        seated = [ann, bob]
        live.players += seated
        ann.connect(a)  # routed
        bob.connect(b)  # on the owner
        advance(seated, 3, rng)
        mover, ply = _to_move(seated)
        twin = mover.twin()  # the same seat on the other node: one move on the owner, one routed to it
        twin.connect(b if mover.node is a else a)
        twin.wait_ply(ply, STEP)
        assert twin.ws is not None  # its hello is done once a ping sent after it is answered (in order)
        twin.ws.send(json.dumps({"type": "ping"}))
        twin.recv_until(lambda m: m["type"] == "pong", STEP)
        live.players.append(twin)
        move = rng.choice(mover.state["legal_moves"]) if mover.state else ""

        db.dispose()
        _pg_stop(own_pg)
        until(lambda: not any(n.ready() for n in nodes), OUTAGE, "every node not ready")
        for p in (mover, twin, mover):
            _refused_and_open(p, move, ply, ("store_unavailable",))
        assert lease_owner(r, game) == "q1"

        _pg_start(own_pg)
        until(lambda: all(n.ready() for n in nodes), OUTAGE, "every node ready again")
        play(mover, move, ply)  # sent again: played once
        twin.move(move, ply)  # and once more through the other node: refused, not played twice
        assert twin.recv_until(lambda m: m["type"] == "error", STEP)["code"] in ("stale", "not_your_turn")
        twin.close()
        advance(seated, 4, rng)
        assert lease_owner(r, game) == "q1"  # the same owner all along
        assert check_log_and_views(repo, db.engine, game, seated) >= 7


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_hung_redis_fails_a_routed_move_in_time(
    pg_cluster: PgCluster, own_redis: RedisServer, tmp_path: Path
) -> None:
    """A Redis that stops answering without closing its connections (SIGSTOP, a network that drops
    packets): a move routed to the owner is refused in time, the socket stays open, and once Redis answers
    again the move sent again is played once."""
    rng = random.Random(9)
    assert own_redis.proc is not None
    with live_cluster(pg_cluster.new_database(), own_redis.url, "h", 2, tmp_path) as live:
        a, b = live.nodes
        ann, bob = Player(a, "ann"), Player(b, "bob")
        seated = [ann, bob]
        live.players += seated
        leaders_table(ann, bob)  # bob's join on b starts it: b owns it
        ann.connect(a)
        bob.connect(a)  # both on the node that does not own the game: every move is routed
        advance(seated, 2, rng)
        mover, ply = _to_move(seated)
        move = rng.choice(mover.state["legal_moves"]) if mover.state else ""
        os.kill(own_redis.proc.pid, signal.SIGSTOP)
        try:
            _refused_and_open(mover, move, ply, RETRY)
        finally:
            os.kill(own_redis.proc.pid, signal.SIGCONT)
        play(mover, move, ply)  # sent again: played once
        advance(seated, 2, rng)
        assert check_log_and_views(live.repo, live.db.engine, ann.game_id, seated) >= ply + 1


def _answered_in_time(send: Callable[[], httpx.Response]) -> httpx.Response:
    """Sends a request: it is answered after one failed Redis command at most (and some slack for a loaded
    machine), not after waiting for Redis to answer, nor after several failed commands in a row, nor after
    the Redis client's own default timeout (5 s)."""
    started = time.monotonic()
    response = send()
    took = time.monotonic() - started
    assert took < 1.5 * REDIS_TIMEOUT, f"{response.request.url} answered after {took:.1f} s"
    return response


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_hung_redis_leaves_no_request_waiting(
    pg_cluster: PgCluster, own_redis: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While Redis stops answering without closing its connections, no request waits for it longer than
    THRONE_REDIS_TIMEOUT: the lobby list, a game's page and a join that starts the game are answered, and
    `/api/ready` says 503. Once Redis answers again, a node takes the new game's lease and it is played."""
    rng = random.Random(10)
    assert own_redis.proc is not None
    monkeypatch.setenv("THRONE_REDIS_TIMEOUT", str(REDIS_TIMEOUT))  # the nodes' environment
    with live_cluster(pg_cluster.new_database(), own_redis.url, "w", 2, tmp_path) as live:
        a, b = live.nodes
        ann, bob = Player(a, "ann"), Player(b, "bob")
        live.players += [ann, bob]
        made = ann.http.post("/api/games", json={"game": "leaders"}).json()
        ann.token, ann.game_id = made["token"], made["game"]["id"]
        os.kill(own_redis.proc.pid, signal.SIGSTOP)
        try:
            lobby = _answered_in_time(lambda: bob.http.get("/api/games"))
            assert lobby.status_code == 200 and ann.game_id in [g["id"] for g in lobby.json()["games"]]
            page = _answered_in_time(lambda: bob.http.get(f"/api/games/{ann.game_id}"))
            assert page.status_code == 200, page.text
            joined = _answered_in_time(lambda: bob.http.post(f"/api/games/{ann.game_id}/join", json={}))
            assert joined.status_code == 200, joined.text
            bob.token, bob.game_id = joined.json()["token"], ann.game_id
            assert _answered_in_time(lambda: httpx.get(a.base + "/api/ready", timeout=20)).status_code == 503
        finally:
            os.kill(own_redis.proc.pid, signal.SIGCONT)
        until(lambda: all(n.ready() for n in live.nodes), OUTAGE, "every node ready again")
        ann.connect(a)
        bob.connect(b)
        advance([ann, bob], 4, rng)
        assert check_log_and_views(live.repo, live.db.engine, ann.game_id, [ann, bob]) >= 4
