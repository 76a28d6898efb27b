"""The lobby and the table around its start, across two real nodes: every node tells the same table (who sits,
who is connected, how many watch), whichever node answers or sends the `table` / `spectators` message."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from tests.cluster.nodes import Node, Player, Shared, recv_json, running_nodes, until
from throne.server.cluster.node import presence_key

STEP = 20.0
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]


def announced(shared: Shared, game: int, node: Node) -> dict[str, Any] | None:
    """What `node` announced of its sockets of `game` in Redis (None: nothing)."""
    raw = shared.redis.hget(presence_key(game), node.name)
    return None if raw is None else json.loads(raw)


def _waiting_at_a_table(shared: Shared, player: Player, node: Node) -> int:
    """`player` makes a three-seat Hidden Leaders table and waits at it with a socket on `node` (announced);
    the game id."""
    made = player.http.post("/api/games", json={"game": "hidden-leaders", "players": 3}).json()
    player.token, player.game_id = made["token"], made["game"]["id"]
    player.connect(node)
    until(lambda: announced(shared, player.game_id, node), STEP, f"the presence of {player.name}'s socket")
    return player.game_id


def spectate(stack: contextlib.ExitStack, node: Node, game: int) -> tuple[ClientConnection, dict[str, Any]]:
    """A spectator's socket on `node`; returns it and its `welcome`."""
    ws = stack.enter_context(connect(f"ws://127.0.0.1:{node.port}/ws/games/{game}", open_timeout=20))
    ws.send(json.dumps({"type": "hello", "spectate": True}))
    return ws, recv_json(ws, lambda m: m["type"] == "welcome")


def connected(summary: dict[str, Any]) -> list[bool | None]:
    return [s.get("connected") for s in summary["seats"]]


def test_a_join_through_another_node_shows_the_players_connected_there_as_connected(
    shared: Shared, tmp_path: Path
) -> None:
    """Cleo made a table through n0 and waits on it with a socket on n0; Eve joins through n1. The `table`
    message that tells Cleo of the join (published by n1), and the join's own answer, show Cleo connected, as
    `GET /api/games/{id}` does on both nodes, although n1 does not watch the game yet (it reads the other
    nodes' sockets before it describes the table)."""
    with running_nodes(shared, tmp_path, "join") as (n0, n1):
        cleo, eve = Player(n0, "Cleo"), Player(n1, "Eve")
        try:
            game = _waiting_at_a_table(shared, cleo, n0)
            joined = eve.http.post(f"/api/games/{game}/join", json={}).json()
            table = cleo.recv_until(
                lambda m: m["type"] == "table" and m["game"]["seats"][1]["kind"] == "human", STEP
            )
            for node in (n0, n1):  # (control: the summary read over HTTP is right on both nodes)
                summary = httpx.get(f"{node.base}/api/games/{game}").json()["game"]
                assert connected(summary)[:2] == [True, False], node.name
            assert (connected(joined["game"])[0], connected(table["game"])[0]) == (True, True), (
                "Cleo, connected to n0, is shown disconnected by the join through n1"
            )
        finally:
            cleo.close()


def test_a_spectator_on_another_node_is_told_every_nodes_spectators_and_players(
    shared: Shared, tmp_path: Path
) -> None:
    """A live game owned by n0, both players and two spectators connected to n0. A third spectator
    connects to n1: its `welcome` summary and the `spectators` count n1 sends a second later count all three
    spectators and show both players connected (as `GET /api/games/{id}` does): n1, starting to watch the
    game, reads what the other nodes announced before, and n0's sockets do not change afterwards."""
    with running_nodes(shared, tmp_path, "spec") as (n0, n1):
        ann, bob = Player(n0, "Ann"), Player(n0, "Bob")
        stack = contextlib.ExitStack()
        try:
            made = ann.http.post("/api/games", json={"game": "leaders"}).json()
            ann.token, ann.game_id = made["token"], made["game"]["id"]
            game = ann.game_id
            joined = bob.http.post(f"/api/games/{game}/join", json={}).json()  # starts on n0: its owner
            bob.token, bob.game_id = joined["token"], game
            ann.connect(n0)
            bob.connect(n0)
            for _ in range(2):
                spectate(stack, n0, game)
            until(
                lambda: (p := announced(shared, game, n0)) and p["n"] == 2 and len(p["o"]) == 2,
                STEP,
                "n0's presence of two players and two spectators",
            )
            ws, welcome = spectate(stack, n1, game)
            count = recv_json(ws, lambda m: m["type"] == "spectators")["count"]
            http = httpx.get(f"{n1.base}/api/games/{game}").json()["game"]  # (control: right over HTTP)
            assert (http["spectators"], connected(http)) == (3, [True, True])
            seen = (welcome["game"]["spectators"], connected(welcome["game"]), count)
            assert seen == (3, [True, True], 3), f"n1 told its spectator (welcome count, flags, count) {seen}"
        finally:
            stack.close()
            ann.close()
            bob.close()


def test_leave_invite_and_open_table_cap_hold_across_nodes(shared: Shared, tmp_path: Path) -> None:
    """Leaving a table that started on n1 through n0 is `409
    not_open`; a private table's invite works through the other node (summary, spectating, join) and is
    needed there; a spectator of it never receives the invite or a seat token; the open tables an account
    made through both nodes count for its cap on both."""
    with running_nodes(shared, tmp_path, "misc") as (n0, n1):
        ann, bob, cat = Player(n0, "Ann"), Player(n1, "Bob"), Player(n0, "Cat")
        stack = contextlib.ExitStack()
        try:
            made = ann.http.post("/api/games", json={"game": "leaders"}).json()
            game = made["game"]["id"]
            joined = bob.http.post(f"/api/games/{game}/join", json={}).json()  # starts on n1
            left = ann.http.post(f"/api/games/{game}/leave", headers={"X-Seat-Token": made["token"]})
            assert (left.status_code, left.json()["error"]["code"]) == (409, "not_open"), left.text
            left = httpx.post(f"{n0.base}/api/games/{game}/leave", headers={"X-Seat-Token": joined["token"]})
            assert (left.status_code, left.json()["error"]["code"]) == (409, "not_open"), left.text
            # private
            priv = ann.http.post("/api/games", json={"game": "leaders", "private": True}).json()
            pid, invite = priv["game"]["id"], priv["invite"]
            assert httpx.get(f"{n1.base}/api/games/{pid}").status_code == 404
            assert httpx.get(f"{n1.base}/api/games/{pid}", params={"invite": invite}).status_code == 200
            assert all(
                g["id"] != pid for n in (n0, n1) for g in httpx.get(f"{n.base}/api/games").json()["games"]
            )
            ws = stack.enter_context(connect(f"ws://127.0.0.1:{n1.port}/ws/games/{pid}", open_timeout=20))
            ws.send(json.dumps({"type": "hello", "spectate": True}))  # no invite
            assert recv_json(ws, lambda m: True)["code"] == "unknown_game"
            ws2 = stack.enter_context(connect(f"ws://127.0.0.1:{n1.port}/ws/games/{pid}", open_timeout=20))
            ws2.send(json.dumps({"type": "hello", "spectate": True, "invite": invite}))
            recv_json(ws2, lambda m: m["type"] == "welcome")
            assert bob.http.post(f"/api/games/{pid}/join", json={}).status_code == 404
            pj = bob.http.post(f"/api/games/{pid}/join", json={"invite": invite})
            assert pj.status_code == 200, pj.text
            seen = []
            with contextlib.suppress(TimeoutError):
                while True:
                    seen.append(ws2.recv(timeout=3))
            text = "".join(seen)
            assert invite not in text and pj.json()["token"] not in text and priv["token"] not in text
            assert any('"state"' in m for m in seen), seen
            # caps: 3 open tables per account, made through both nodes
            cat.http.post("/api/games", json={"game": "leaders"}).raise_for_status()
            other = httpx.Client(base_url=n1.base, cookies=cat.http.cookies, timeout=20)
            other.post("/api/games", json={"game": "leaders"}).raise_for_status()
            cat.http.post("/api/games", json={"game": "leaders"}).raise_for_status()
            for c in (cat.http, other):
                r = c.post("/api/games", json={"game": "leaders"})
                assert (r.status_code, r.json()["error"]["code"]) == (429, "too_many_games"), r.text
        finally:
            stack.close()


def test_the_lobby_list_shows_who_is_connected_the_same_on_every_node(shared: Shared, tmp_path: Path) -> None:
    """Three nodes. Cleo waits at her open table with a socket on n1; a spectator watches it from n2; then
    Eve joins through n0 and connects to n0. `GET /api/games` shows Cleo and Eve connected whichever node
    answers: n2, which began watching the game after n1 announced Cleo's socket, read that announcement when
    it began (its list uses what it watches, not a fresh read)."""
    with running_nodes(shared, tmp_path, "three", 3) as (n0, n1, n2):
        cleo, eve = Player(n0, "Cleo"), Player(n0, "Eve")
        stack = contextlib.ExitStack()
        try:
            game = _waiting_at_a_table(shared, cleo, n1)
            spectate(stack, n2, game)
            until(lambda: announced(shared, game, n2), STEP, "n2's presence of the spectator")
            joined = eve.http.post(f"/api/games/{game}/join", json={}).json()
            eve.token, eve.game_id = joined["token"], game
            eve.connect(n0)
            until(lambda: announced(shared, game, n0), STEP, "n0's presence of Eve")
            time.sleep(1.0)  # n0's presence note reaches n1 and n2

            def flags(node: Node) -> list[bool | None]:
                games = httpx.get(f"{node.base}/api/games", params={"status": "open"}).json()["games"]
                (summary,) = [g for g in games if g["id"] == game]
                return connected(summary)[:2]

            seen = {n.name: flags(n) for n in (n0, n1, n2)}
            assert seen == {n.name: [True, True] for n in (n0, n1, n2)}, seen
        finally:
            stack.close()
            cleo.close()
            eve.close()
