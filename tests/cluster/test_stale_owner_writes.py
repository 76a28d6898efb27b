"""A seat take-over (abandon) written by an owner whose lease ran out while the write waited for the
database is refused by the store once a newer owner stored its token, as moves, takebacks and game ends are:
the newer owner's reading of the seats stays the truth."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import two_player_leaders
from throne.server.app import create_app
from throne.server.cluster.lease import Lease
from throne.server.cluster.node import Cluster
from throne.server.config import Settings

UNREACHABLE = "redis://127.0.0.1:9"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=5.0))) as c:
        yield c


def test_a_stale_owners_take_over_is_refused_by_the_store(client: TestClient) -> None:
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)  # unrated: an abandoned seat is handed to a bot
    match = hub.matches[game_id]
    cluster = Cluster(hub, UNREACHABLE, node="n1")
    cluster.leases.held[game_id] = Lease(game_id, 7, time.monotonic() + 0.2)  # token 7, lease nearly over
    hub.cluster = cluster
    seat = match.state.to_play
    db = hub.db

    async def slow_db(fn: Any, *args: Any, **kwargs: Any) -> Any:  # the write waits in a busy writer queue
        if fn == hub.repo.takeover:
            await asyncio.sleep(1.0)
        return await db(fn, *args, **kwargs)

    async def scenario() -> tuple[str, bool]:
        hub.db = slow_db
        match.away_since[seat] = time.monotonic() - 60.0
        work = asyncio.ensure_future(match._takeover(seat))  # hub.fence passes: the lease is still held
        await asyncio.sleep(0.5)
        # meanwhile the lease ran out and node n2 claimed the game with token 8 and read its seats
        fenced = await db(hub.repo.fence_game, game_id, 8)
        seats_read_by_n2 = (await db(hub.repo.get_game, game_id)).seat(seat).kind
        assert seats_read_by_n2 == "human"
        await work
        hub.db = db
        return (await db(hub.repo.get_game, game_id)).seat(seat).kind, fenced

    try:
        kind, fenced = client.portal.call(scenario)
    finally:
        hub.cluster, hub.db = None, db
    assert fenced
    assert kind == "human", "the old owner (token 7) wrote a take-over after token 8 was stored"
