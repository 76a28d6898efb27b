"""The end of a game reaches every node: two `throne serve --redis` nodes, the two players of each Leaders
game on different nodes, and the game ended from the owner's node and from the other one. The owner gives
its lease up when the game ends, and a state it publishes passes only while it holds the lease: the final
state must be published first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from tests.cluster.nodes import Node, Player, until
from tests.cluster.redisd import RedisServer
from tests.store.pg import PgCluster
from throne.store import Database

STEP = 30.0  # seconds any one step may take on a loaded machine

# who resigns: the player whose socket is on the game's owner, or the one on the other node
RESIGNS = ["on the owner's node", "on the other node"]


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_every_player_sees_the_game_end_whichever_node_it_ends_on(
    pg_cluster: PgCluster, redis_server: RedisServer, tmp_path: Path
) -> None:
    url = pg_cluster.new_database()
    db = Database(url)
    db.upgrade()  # once, before the nodes start
    db.dispose()
    r = redis.Redis.from_url(redis_server.url)
    r.flushdb()
    nodes = [Node(f"e{i}", url, redis_server.url, tmp_path, 3.0) for i in range(2)]
    players: list[Player] = []
    try:
        until(lambda: all(n.ready() for n in nodes), 120, "two ready nodes", every=0.2)
        owner, other = nodes
        for resigns in RESIGNS:
            ann, bob = Player(other, "ann"), Player(owner, "bob")
            players += [ann, bob]
            made = ann.http.post("/api/games", json={"game": "leaders"}).json()
            ann.token, ann.game_id = made["token"], made["game"]["id"]
            joined = bob.http.post(f"/api/games/{ann.game_id}/join", json={}).json()
            bob.token, bob.game_id = joined["token"], ann.game_id  # bob's join on `owner` starts it there
            lease = r.get(f"throne:lease:{ann.game_id}")
            assert lease is not None and lease.decode().startswith(f"{owner.name}|")
            ann.connect(other)
            bob.connect(owner)
            for p in (ann, bob):
                p.wait_ply(0, STEP)
            quitter = bob if resigns == RESIGNS[0] else ann
            assert quitter.ws is not None
            quitter.ws.send(json.dumps({"type": "resign"}))
            for p in (ann, bob):
                p.recv_until(lambda m: m["type"] == "state" and m["status"] == "finished", STEP)
                assert p.state is not None and p.state["result"]["winner"] == 1 - quitter.seat, resigns
            until(lambda game=ann.game_id: r.get(f"throne:lease:{game}") is None, STEP, "the lease given up")
    finally:
        for p in players:
            p.close()
        for n in nodes:
            n.stop()
        r.close()
