"""Server bots in a cluster: a game with bots keeps going on whichever node owns it, whatever happens to the
owner's lease while a bot thinks: a bot's move refused by the owner's lease check in a late renewal is played
once the lease is renewed, and a seat its player takes back from the bot in that moment is not left to
nobody."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.cluster.inprocess import holding
from tests.server.helpers import as_guest, two_player_leaders
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.match import MoveRefused


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=3600.0)
    with TestClient(create_app(settings)) as c:
        yield c


def test_a_bot_move_refused_while_the_lease_was_late_is_played_once_it_is_renewed(client: TestClient) -> None:
    """The owner's own deadline on its lease (80 % of the lease time) passes while a bot thinks (a renewal
    late: a slow Redis, a busy event loop), and the renewal then succeeds: the node still owns the game and
    the keeper does not drop it. The bot's move, refused `owner_moved` by `Hub.fence` in that moment, is
    tried again (as a take-over or a fallen flag are, with backoff) and the game goes on, instead of waiting
    for ever for a bot that is never asked again."""
    hub = client.app.state.hub
    release = None

    async def bot(game: str, state: Any, seat: int, name: str, *, seed: int, ply: int) -> str:
        await release.wait()  # type: ignore[union-attr]
        return state.legal_moves()[0]

    async def make_event() -> asyncio.Event:
        return asyncio.Event()

    release = client.portal.call(make_event)
    hub.chooser = bot
    as_guest(client, "Ann")
    r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random", "side": 1})
    assert r.status_code == 201, r.text
    game_id = r.json()["game"]["id"]
    match = hub.matches[game_id]
    assert match.state.to_play == 0  # the bot (engine seat 0) thinks about the first move
    cluster = holding(client, game_id, time.monotonic() + 60)

    async def scenario() -> int:
        cluster.leases.held[game_id].deadline = time.monotonic() - 0.01  # the renewal is late...
        release.set()  # ...when the bot answers
        await asyncio.sleep(0.3)
        cluster.leases.held[game_id].deadline = time.monotonic() + 60  # ...and then succeeds
        for _ in range(50):
            if match.ply >= 1:
                break
            await asyncio.sleep(0.1)
        return match.ply

    try:
        ply = client.portal.call(scenario)
    finally:
        hub.cluster = None
    assert game_id in hub.matches and not match.over
    assert ply >= 1, "the bot's move refused while the lease was late was never tried again: the game hangs"


def test_a_seat_taken_back_while_the_lease_was_late_is_not_left_to_nobody(client: TestClient) -> None:
    """A seat a bot took over (its player away) whose player is connected again: at its next decision the
    owner stores the reclaim (`Match._reclaim`). If the owner's own lease deadline has just passed at that
    moment (a renewal late, then done: the node still owns the game), the reclaim is tried again and the
    game goes on, instead of waiting for ever with the bot not asked and the player's moves refused (the seat
    still a bot's)."""
    hub = client.app.state.hub
    game_id, _ = two_player_leaders(client)  # unrated: an abandoned seat is handed to a bot
    match = hub.matches[game_id]
    seat = match.state.to_play
    other = 1 - seat

    async def make_event() -> asyncio.Event:
        return asyncio.Event()

    release = client.portal.call(make_event)

    async def bot(game: str, state: Any, s: int, name: str, *, seed: int, ply: int) -> str:
        await release.wait()
        return state.legal_moves()[0]

    hub.chooser = bot
    present: set[int] = set()
    hub.present_seats = lambda g: set(present)  # type: ignore[method-assign]
    cluster = holding(client, game_id, time.monotonic() + 60)
    reclaim = match._reclaim
    tried: list[int] = []

    async def late_reclaim(s: int) -> None:
        tried.append(match.ply)
        if len(tried) == 1:  # the first reclaim comes just as the lease deadline passed...
            cluster.leases.held[game_id].deadline = time.monotonic() - 0.01
            try:
                await reclaim(s)
            finally:
                cluster.leases.held[game_id].deadline = time.monotonic() + 60  # ...renewed right after
        else:
            await reclaim(s)

    match._reclaim = late_reclaim  # type: ignore[method-assign]

    async def scenario() -> tuple[str, int, int, list[int]]:
        match.away_since[seat] = time.monotonic() - 7200.0  # its player left two hours ago
        match._arm_timer()
        for _ in range(50):
            if match.info.seat(seat).kind == "bot":
                break
            await asyncio.sleep(0.05)
        assert match.info.seat(seat).kind == "bot", "the abandoned seat was not taken over"
        present.update({seat, other})  # its player is back (on any node)
        match.presence_changed()
        await asyncio.sleep(0.1)
        release.set()  # the bot plays the decision it had started; the next one is the player's
        for _ in range(60):
            if tried and match.ply > tried[0]:
                break
            if match.state.to_play == other and not match.over:
                with contextlib.suppress(MoveRefused):
                    await match.submit(other, match.state.legal_moves()[0], match.ply)
                continue
            await asyncio.sleep(0.05)
        kind = (await hub.db(hub.repo.get_game, game_id)).seat(seat).kind
        return kind, match.ply, match.state.to_play, tried

    try:
        kind, ply, to_play, tried_at = client.portal.call(scenario)
    finally:
        hub.cluster = None
    assert tried_at, "the returned player's reclaim was never attempted"
    assert kind == "human" or ply > tried_at[0], (
        f"ply {ply}: seat {to_play} to play is still a bot's in the store ({kind}), no bot thinks for it "
        f"and its player cannot move: the game hangs (reclaims tried at plies {tried_at})"
    )
