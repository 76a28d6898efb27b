"""Three `throne serve --redis` nodes on loopback sharing PostgreSQL and Redis: Leaders and Hidden Leaders
games whose players sit on different nodes survive the SIGKILL of the node that owns them (another node
claims each game, rebuilds it from the log and goes on, bots included), a duplicate move sent through two
nodes is applied once, and a node stopped with SIGTERM hands its games over at once. Afterwards every log is
gap-free and every seat's last view equals the engine's replay of the log."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from tests.cluster.nodes import Node, Player, Shared, leaders_table, ready_nodes, until
from tests.cluster.play import STEP, advance, check_log_and_views, lease_owner
from throne.store import Database, Repo

LEASE_TTL = 3.0  # a loaded machine may stall a node's loop for a second; its games must not move then
def _connected(node: Node, game: int) -> list[bool]:
    seats = httpx.get(f"{node.base}/api/games/{game}", timeout=10).json()["game"]["seats"]
    return [bool(s.get("connected")) for s in seats]


def survivor_of(r: redis.Redis, game: int, nodes: list[Node]) -> Node | None:
    """The node that owns `game` now."""
    return next((n for n in nodes if n.name == lease_owner(r, game)), None)


def _poll_errors(*players: Player) -> list[dict[str, Any]]:
    for player in players:
        with contextlib.suppress(TimeoutError):
            player.recv_until(lambda m: m["type"] == "error", 0.2)
    return [e for p in players for e in p.errors]


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_games_survive_their_owner_across_three_nodes(shared: Shared, tmp_path: Path) -> None:
    db = Database(shared.database)
    repo = Repo(db)
    r = shared.redis
    rng = random.Random(16)
    nodes = ready_nodes("n", 3, shared.database, shared.redis_url, tmp_path, LEASE_TTL)
    players: list[Player] = []
    try:
        a, b, c = nodes
        # Leaders: ann creates the table on a, bob's join on b starts it: b owns it.
        ann, bob = Player(a, "ann"), Player(b, "bob")
        leaders_table(ann, bob)
        # Hidden Leaders, two people and two bots: carl creates on c, dora's join on b starts it.
        carl, dora = Player(c, "carl"), Player(b, "dora")
        made = carl.http.post(
            "/api/games",
            json={"game": "hidden-leaders", "players": 4, "seat": 0, "bots": {"2": "random", "3": "random"}},
        ).json()
        carl.token, carl.game_id = made["token"], made["game"]["id"]
        carl.connect(a)  # carl waits at the open table on a; the game starts on b, which draws the seats
        joined = dora.http.post(f"/api/games/{carl.game_id}/join", json={}).json()
        carl.seat = carl.http.get(f"/api/games/{carl.game_id}").json()["game"]["you"]["seat"]
        dora.token, dora.game_id = joined["token"], carl.game_id
        players = [ann, bob, carl, dora]
        leaders, hidden = [ann, bob], [carl, dora]
        for game in (ann.game_id, carl.game_id):
            assert lease_owner(r, game) == "n1"
        # Players on different nodes, one of each game on the owner.
        ann.connect(b)
        bob.connect(c)
        dora.connect(b)
        assert carl.wait_ply(0, STEP)["seat"] == carl.seat  # his seat's view, wherever the game started
        # Presence is shared: a node without a socket of the Leaders game sees both players connected.
        until(lambda: _connected(a, ann.game_id) == [True, True], STEP, "presence across nodes")
        advance(leaders, 6, rng)
        advance(hidden, 6, rng)

        b.kill()  # SIGKILL: no handover, the leases run out
        ann.connect(a)  # the sockets on b are gone: the clients reconnect through another node
        dora.connect(c)
        for game in (ann.game_id, carl.game_id):
            until(lambda game=game: lease_owner(r, game) in ("n0", "n2"), STEP, "a new owner")
        advance(leaders, 6, rng)
        advance(hidden, 6, rng)

        # The same move through two nodes is applied once: the second is refused as stale.
        ply = max(p.wait_ply(0, STEP)["ply"] for p in leaders)
        mover = next(p for p in leaders if p.wait_ply(ply, STEP)["your_turn"])
        other_node = c if mover.node is a else a
        twin = mover.twin()
        twin.connect(other_node)
        twin.wait_ply(ply, STEP)
        move = rng.choice(mover.state["legal_moves"])
        mover.errors.clear()
        mover.move(move, ply)
        twin.move(move, ply)
        for p in (*leaders, twin):
            p.wait_ply(ply + 1, STEP)
        refused = until(lambda: _poll_errors(mover, twin), STEP, "the refusal")
        assert len(refused) == 1 and refused[0]["code"] in ("stale", "not_your_turn"), refused
        assert len(repo.moves(ann.game_id)) == ply + 1
        twin.close()

        # Table controls are routed too, and a change without a move reaches the other node's socket: a draw
        # offered from one node is seen and declined from the other.
        offerer, other = (ann, bob) if ann.node is not survivor_of(r, ann.game_id, nodes) else (bob, ann)
        ply = offerer.wait_ply(0, STEP)["ply"]
        assert offerer.ws is not None and other.ws is not None
        offerer.ws.send(json.dumps({"type": "draw_offer"}))
        other.recv_until(lambda m: m["type"] == "state" and m["offers"]["draw"] == offerer.seat, STEP)
        other.ws.send(json.dumps({"type": "draw_answer", "accept": False}))
        offerer.recv_until(lambda m: m["type"] == "state" and m["offers"]["draw"] is None, STEP)
        assert offerer.wait_ply(ply, STEP)["status"] == "live"

        # SIGTERM: the owner of the Leaders game hands it over instead of letting its lease run out.
        owner = next(n for n in (a, c) if n.name == lease_owner(r, ann.game_id))
        survivor = c if owner is a else a
        owner.proc.terminate()
        owner.wait_exit(STEP)
        assert lease_owner(r, ann.game_id) != owner.name  # released at once, not left to expire
        for p in players:
            if p.node is owner:
                p.connect(survivor)
        until(lambda: lease_owner(r, ann.game_id) == survivor.name, STEP, "the handover")
        advance(leaders, 4, rng)
        advance(hidden, 4, rng)

        for game, seated in ((ann.game_id, leaders), (carl.game_id, hidden)):
            assert check_log_and_views(repo, db.engine, game, seated) > 12
    finally:
        for p in players:
            p.close()
        for n in nodes:
            n.stop()
        db.dispose()
