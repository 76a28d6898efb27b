"""Secrecy across nodes: a socket is shown the view of the seat its person holds in the live game, on every
node, whichever node starts, adopts or hands over the game."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, read_until
from throne.games.randomness import new_secret
from throne.server.app import create_app
from throne.server.cluster.node import Cluster
from throne.server.config import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=600.0)
    with TestClient(create_app(settings)) as c:
        yield c


def _full_open_table(client: TestClient, people: list[str]) -> tuple[int, dict[str, str], dict[str, int]]:
    """A full Hidden Leaders table that has not started here (as if its last join went through another node,
    whose start then failed to take the lease): returns the game id, {name: token}, {name: table place}."""
    hub = client.app.state.hub
    tokens: dict[str, str] = {}
    places: dict[str, int] = {}
    game_id = 0
    real_start = hub.maybe_start

    async def no_start(info: Any, order: Any = None) -> Any:
        return info

    hub.maybe_start = no_start
    try:
        for n, name in enumerate(people):
            as_guest(client, name)
            if n == 0:
                r = client.post("/api/games", json={"game": "hidden-leaders", "players": len(people)})
                assert r.status_code == 201, r.text
                game_id = r.json()["game"]["id"]
                places[name] = 0
            else:
                r = client.post(f"/api/games/{game_id}/join", json={})
                assert r.status_code == 200, r.text
                places[name] = r.json()["seat"]
            tokens[name] = r.json()["token"]
    finally:
        hub.maybe_start = real_start
        client.cookies.clear()
    return game_id, tokens, places


def test_sockets_greeted_at_the_open_table_see_their_own_seat_when_this_node_adopts_the_game(
    client: TestClient, redis_url: str
) -> None:
    """A table whose last seat was taken through node A starts there (its seats drawn anew: table place p
    plays engine seat order.index(p)), but A fails to set the game up (no lease) and hands it to the orphan
    index (or A dies, or is stopped, before its first state note went out); node B, where the players'
    sockets were greeted while the table was open (seated at their table places), adopts it. Each socket
    is then shown the view of its person's engine seat (or nothing), never that of the engine seat numbered
    like its old table place, which is another person's hand: the adopting node reseats its sockets
    (`Hub.reseat`), as the node that starts a table and the state notes of an owner do."""
    hub = client.app.state.hub
    people = ["Ann", "Bob", "Cy"]
    game_id, tokens, places = _full_open_table(client, people)
    assert places == {"Ann": 0, "Bob": 1, "Cy": 2}
    sockets = {name: client.websocket_connect(f"/ws/games/{game_id}") for name in people}
    entered = {name: ws.__enter__() for name, ws in sockets.items()}
    try:
        for name, ws in entered.items():
            ws.send_json({"type": "hello", "token": tokens[name]})
            welcome, _ = read_until(ws, "welcome")
            assert welcome["seat"] == places[name]  # seated at the open table's place
        # Node A starts the table: engine seat e is played by table place order[e].
        order = [1, 2, 0]  # Bob plays engine seat 0, Cy 1, Ann 2
        client.portal.call(hub.db, hub.repo.start_game, game_id, new_secret(), order)
        engine = {name: order.index(place) for name, place in places.items()}

        async def adopt() -> Cluster:
            cluster = hub.cluster = Cluster(hub, redis_url, lease_ttl=1.0, node="b")
            await cluster.start()  # lists the live game as an orphan and claims it
            for _ in range(100):
                if game_id in hub.matches:
                    break
                await asyncio.sleep(0.05)
            return cluster

        cluster = client.portal.call(adopt)
        try:
            assert game_id in hub.matches, "node B did not adopt the game"
            shown = {}
            for name, ws in entered.items():
                state, _ = read_until(ws, "state")
                shown[name] = state["seat"]
        finally:
            client.portal.call(cluster.stop)
            hub.cluster = None
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)
    leaks = {name: seat for name, seat in shown.items() if seat is not None and seat != engine[name]}
    assert not leaks, (
        f"sockets shown another engine seat's view (name: seat shown): {leaks}; their seats are {engine}"
    )
