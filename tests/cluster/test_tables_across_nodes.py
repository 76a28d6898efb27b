"""A table is told the same on every node of a cluster: a live game's summary (the seat to play, the
take-over countdowns) is its owner's wherever it is asked, a writer's chat burst is one across its sockets on
several nodes, and a seat that left an open table through one node watches from its sockets on the others,
even when the note of it was lost while Redis was down."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection

from tests.cluster.nodes import Node, Player, Shared, leaders_table, running_nodes, until
from tests.cluster.play import lease_owner
from tests.cluster.redisd import RedisServer

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]
STEP = 20.0


def _drain(ws: ClientConnection, seconds: float) -> list[dict[str, Any]]:
    """Every message `ws` receives within `seconds`."""
    out: list[dict[str, Any]] = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            out.append(json.loads(ws.recv(timeout=left)))
        except TimeoutError:
            break
    return out


def _summary(node: Node, game: int) -> dict[str, Any]:
    return httpx.get(f"{node.base}/api/games/{game}", timeout=10).json()["game"]


def test_a_live_games_summary_is_its_owners_on_every_node(shared: Shared, tmp_path: Path) -> None:
    """A live game runs on n0; Ann's socket is on n1, Bob's on n0. Ann's socket closes: the `table` message
    every socket gets, a summary asked of n1 and the `welcome` of Bob's second tab on n1 all name the seat to
    play and count down Ann's take-over as the owner does. Before, n1 made these summaries without the game
    (no seat to play, no countdown) and sent its own `table` to the whole room."""
    with running_nodes(shared, tmp_path, "sum") as (n0, n1):
        ann, bob = Player(n0, "Ann"), Player(n0, "Bob")
        tab = None
        try:
            game = leaders_table(ann, bob)  # Bob's join through n0 starts it there
            until(lambda: lease_owner(shared.redis, game) == n0.name, 10, "n0 runs the game")
            ann.connect(n1)
            bob.connect(n0)
            for player in (ann, bob):
                player.wait_ply(0, STEP)
            ann.close()
            table = bob.recv_until(
                lambda m: m["type"] == "table" and not m["game"]["seats"][ann.seat]["connected"], STEP
            )["game"]
            assert "takeover_in" in table["seats"][ann.seat], f"the table told without a countdown: {table}"
            owner = _summary(n0, game)
            assert owner["to_play"] is not None and "takeover_in" in owner["seats"][ann.seat]
            tab = bob.twin()
            told = {"GET on n1": _summary(n1, game), "welcome on n1": tab.connect(n1)["game"]}
            for where, summary in told.items():
                assert summary["to_play"] == owner["to_play"], f"{where}: {summary}"
                left = summary["seats"][ann.seat].get("takeover_in")
                assert left is not None and abs(left - owner["seats"][ann.seat]["takeover_in"]) < 10, where
        finally:
            for player in (ann, bob, tab):
                if player is not None:
                    player.close()


def test_a_writers_chat_burst_is_one_across_its_sockets_on_two_nodes(shared: Shared, tmp_path: Path) -> None:
    """A writer may post a burst of 4 chat messages, then one every 2 s, across all their connections. Ann
    has a tab on each node: 4 messages on n0 pass, then of 4 more at once on n1 at most one does (the others
    `chat_rate_limited`). Before, each node kept its own bucket: a writer got a burst per node."""
    with running_nodes(shared, tmp_path, "chat") as (n0, n1):
        ann, bob = Player(n0, "Ann"), Player(n0, "Bob")
        tab = None
        try:
            leaders_table(ann, bob)
            ann.connect(n0)
            tab = ann.twin()
            tab.connect(n1)
            for player in (ann, tab):
                player.wait_ply(0, STEP)
            assert ann.ws is not None and tab.ws is not None
            for i in range(4):
                ann.ws.send(json.dumps({"type": "chat", "text": f"n0 line {i}"}))
            for _ in range(4):
                ann.recv_until(lambda m: m["type"] in ("chat", "error"), STEP)
            assert not ann.errors, ann.errors
            for i in range(4):
                tab.ws.send(json.dumps({"type": "chat", "text": f"n1 line {i}"}))
            seen = _drain(tab.ws, 3.0)
            refused = [m for m in seen if m["type"] == "error" and m["code"] == "chat_rate_limited"]
            passed = [m for m in seen if m["type"] == "chat" and m["message"]["text"].startswith("n1 line")]
            assert len(refused) >= 3, f"the burst on n1: {len(passed)} passed, {len(refused)} refused"
        finally:
            for player in (ann, bob, tab):
                if player is not None:
                    player.close()


def test_a_seat_that_left_through_another_node_watches_there(shared: Shared, tmp_path: Path) -> None:
    """Eve sits at an open three-seat table with her socket on n1, and leaves the table through n0 (the
    balancer sent her request there). Her socket watches from then on: every node counts it as a spectator,
    before the start and after it. Before, n1 never learnt of the leave and kept counting it as a seat."""
    with running_nodes(shared, tmp_path, "left") as (n0, n1):
        cleo, eve, bob, dan = (Player(n0, name) for name in ("Cleo", "Eve", "Bob", "Dan"))
        try:
            made = cleo.http.post("/api/games", json={"game": "hidden-leaders", "players": 3}).json()
            game = made["game"]["id"]
            joined = eve.http.post(f"/api/games/{game}/join", json={}).json()
            eve.token, eve.game_id = joined["token"], game
            eve.connect(n1)
            left = eve.http.post(f"/api/games/{game}/leave", headers={"X-Seat-Token": eve.token})
            assert left.status_code == 200, left.text
            eve.seat = None  # it watches from now on

            def counts() -> dict[str, int]:
                return {node.name: _summary(node, game)["spectators"] for node in (n0, n1)}

            with contextlib.suppress(AssertionError):
                until(lambda: set(counts().values()) == {1}, 3, "one spectator counted")
            before_start = counts()
            for player in (bob, dan):  # the table is full and starts on n0
                player.http.post(f"/api/games/{game}/join", json={}).raise_for_status()
            state = eve.recv_until(lambda m: m["type"] == "state", STEP)
            assert state["seat"] is None
            with contextlib.suppress(AssertionError):
                until(lambda: set(counts().values()) == {1}, 3, "one spectator counted")
            after_start = counts()
            assert set(before_start.values()) == set(after_start.values()) == {1}, (before_start, after_start)
        finally:
            for player in (cleo, eve, bob, dan):
                player.close()


def test_a_seat_that_left_while_redis_was_down_watches_on_every_node_once_it_is_back(
    shared: Shared, redis_server: RedisServer, tmp_path: Path
) -> None:
    """As above, but Redis is down while Eve leaves through n0, and comes back empty (a restart): the note
    of her leave is lost with n0's batch of notes. Once Redis is back the nodes resync the table: her socket
    on n1 is sent the table without her and watches, counted as a spectator on both nodes (before: seated on
    n1 until the start)."""
    with running_nodes(shared, tmp_path, "down") as (n0, n1):
        cleo, eve = Player(n0, "Cleo"), Player(n0, "Eve")
        try:
            made = cleo.http.post("/api/games", json={"game": "hidden-leaders", "players": 3}).json()
            game = made["game"]["id"]
            joined = eve.http.post(f"/api/games/{game}/join", json={}).json()
            eve.token, eve.game_id = joined["token"], game
            eve.connect(n1)
            until(lambda: _summary(n0, game)["seats"][1].get("connected"), STEP, "Eve seen connected on n0")
            redis_server.down()
            try:
                left = eve.http.post(f"/api/games/{game}/leave", headers={"X-Seat-Token": eve.token})
                assert left.status_code == 200, left.text
                time.sleep(1.0)  # n0's batch with the note of the leave fails meanwhile
            finally:
                redis_server.start()
            eve.seat = None

            def without_eve(m: dict[str, Any]) -> bool:
                seats = m["game"]["seats"] if m["type"] == "table" else ()
                return len(seats) == 3 and all(s.get("name") != "Eve" for s in seats)

            table = eve.recv_until(without_eve, STEP)
            assert table["game"]["seats"][0]["name"] == "Cleo"
            until(
                lambda: all(_summary(node, game)["spectators"] == 1 for node in (n0, n1)),
                STEP,
                "Eve's socket counted as a spectator on both nodes",
            )
        finally:
            for player in (cleo, eve):
                player.close()
