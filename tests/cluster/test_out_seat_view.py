"""A seat whose person resigned (a bot plays it on) is shown what spectators see, on every node: the state
its owner sends another node's socket (`Cluster._local`, op "state": a hello or a reconnect there) carries the
spectators' events, never the bot's private cards."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.cluster.inprocess import UNREACHABLE
from tests.server.test_hidden_controls import hidden_table, random_bots
from throne.server.app import create_app
from throne.server.cluster.node import Cluster
from throne.server.config import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=600.0))) as c:
        yield c


def test_routed_state_of_an_out_seat_has_spectator_events(client: TestClient) -> None:
    hub = client.app.state.hub
    random_bots(hub)
    game_id, _, _ = hidden_table(client, ["Ann", "Bob", "Cy"])
    match = hub.matches[game_id]
    cluster = Cluster(hub, UNREACHABLE, node="n1")  # the owner answering another node's "state" request
    rng = random.Random(7)

    async def scenario() -> list[tuple[int, list, list]]:
        out = match.state.to_play
        await match.control(out, "resign")  # a bot plays `out` to the end
        assert out in match.seats_out()
        leaks = []
        for _ in range(200):
            if match.over:
                break
            ply = match.ply
            if match.state.to_play != out:
                seat = match.state.to_play
                await match.submit(seat, rng.choice(list(match.state.legal_moves())), ply)
            else:
                for _ in range(200):
                    if match.ply > ply:
                        break
                    await asyncio.sleep(0.01)
            if out not in match.seats_out():
                break
            routed = await cluster._local(game_id, "state", {"seat": out})
            local = await hub.current_state(game_id, out)  # what the owner's own socket gets (no events)
            assert routed["seat"] is None and local["seat"] is None and local["view"] == routed["view"]
            spectators = match.events.since(None, match.ply, None)
            if routed["events"] != spectators:
                leaks.append((match.ply, routed["events"], spectators))
        await cluster.redis.aclose()
        return leaks

    leaks = client.portal.call(scenario)
    assert leaks == [], f"{len(leaks)} states leak the out seat's own events; first: {leaks[0]}"
