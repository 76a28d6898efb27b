"""The end of a game reaches every node: two `throne serve --redis` nodes, the two players of each Leaders
game on different nodes, and the game ended from the owner's node and from the other one. The owner gives
its lease up when the game ends, and a state it publishes passes only while it holds the lease: the final
state must be published first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cluster.nodes import Player, Shared, leaders_table, ready_nodes, until

STEP = 30.0  # seconds any one step may take on a loaded machine

# who resigns: the player whose socket is on the game's owner, or the one on the other node
RESIGNS = ["on the owner's node", "on the other node"]


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_every_player_sees_the_game_end_whichever_node_it_ends_on(shared: Shared, tmp_path: Path) -> None:
    r = shared.redis
    nodes = ready_nodes("e", 2, shared.database, shared.redis_url, tmp_path, 3.0)
    players: list[Player] = []
    try:
        owner, other = nodes
        for resigns in RESIGNS:
            ann, bob = Player(other, "ann"), Player(owner, "bob")
            players += [ann, bob]
            leaders_table(ann, bob)  # bob's join on `owner` starts it there
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
