"""Caps: open tables and games with bots per account and per address (requests sent at once too), tables of
bots only, the expiry of stale open tables, and game sockets per address."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests import asyncrun
from tests.server.helpers import as_guest, hello, read_until
from throne.server.app import create_app
from throne.server.caps import Caps
from throne.server.config import Settings
from throne.server.ratelimit import client_key

PASSWORD = "rook-to-e4!"
OPEN = {"game": "leaders", "players": 2}
ALL_BOTS = {"game": "leaders", "players": 2, "sit": False, "bots": {"0": "random", "1": "random"}}
PLAY_BOT = {"game": "leaders", "bot": "random"}


async def _never(*_args, **_kwargs) -> str:
    """A bot that thinks for ever: its games stay live for the whole test."""
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def _client(tmp_path: Path, **caps) -> TestClient:
    settings = Settings(data_dir=tmp_path, secret_key="t", rate_limits={}, **caps)
    return TestClient(create_app(settings))


@pytest.fixture
def make(tmp_path: Path) -> Iterator:
    opened: list[TestClient] = []

    def factory(**caps) -> TestClient:
        client = _client(tmp_path, **caps)
        client.__enter__()
        client.app.state.hub.chooser = _never
        opened.append(client)
        return client

    yield factory
    for client in opened:
        client.__exit__(None, None, None)


def _register(client: TestClient, username: str) -> None:
    client.cookies.clear()
    r = client.post("/api/accounts/register", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text


def _refused(r, status: int = 429, code: str = "too_many_games") -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    if status in (429, 503):
        assert int(r.headers["retry-after"]) > 0


def test_open_tables_per_player(make) -> None:
    client = make(max_open_tables_per_user=2)
    as_guest(client, "Ann")
    first = client.post("/api/games", json=OPEN).json()
    assert client.post("/api/games", json=OPEN).status_code == 201
    _refused(client.post("/api/games", json=OPEN))
    assert client.post("/api/play-bot", json=PLAY_BOT).status_code == 201  # starts at once: never open
    left = client.post(f"/api/games/{first['game']['id']}/leave", headers={"X-Seat-Token": first["token"]})
    assert left.json()["game"]["status"] == "aborted"
    assert client.post("/api/games", json=OPEN).status_code == 201


def test_open_tables_per_address(make) -> None:
    client = make(max_open_tables_per_ip=2)
    for name in ("Ann", "Bob"):
        as_guest(client, name)
        assert client.post("/api/games", json=OPEN).status_code == 201
    as_guest(client, "Cid")
    _refused(client.post("/api/games", json=OPEN))
    client.cookies.clear()
    _refused(client.post("/api/games", json=OPEN))
    assert "throne_session" not in client.cookies  # no guest was made for a refused table


def test_games_with_bots_per_player_and_per_address(make) -> None:
    client = make(max_bot_games_per_user=2, max_bot_games_per_ip=3)
    as_guest(client, "Ann")
    for _ in range(2):
        assert client.post("/api/play-bot", json=PLAY_BOT).status_code == 201
    _refused(client.post("/api/play-bot", json=PLAY_BOT))
    _refused(client.post("/api/games", json={**OPEN, "bots": {"1": "random"}}))
    assert client.post("/api/games", json=OPEN).status_code == 201  # a table of people is not capped here
    as_guest(client, "Bob")
    assert client.post("/api/play-bot", json=PLAY_BOT).status_code == 201
    _refused(client.post("/api/play-bot", json=PLAY_BOT))  # the address has 3


@pytest.mark.parametrize("path", ["/api/play-bot", "/api/games"])
def test_requests_sent_at_once_pass_a_cap_one_at_a_time(make, path: str) -> None:
    """Six requests of one account for a game with a bot, sent at the same moment: the cap (3) holds, three
    tables are made and three refused. Each request counts the account's games once the one before it has
    made its table (`Caps.making`); before, all six counted none and all six were made."""
    client = make(max_bot_games_per_user=3, max_bot_games_per_ip=100)
    as_guest(client, "Ann")
    body = PLAY_BOT if path == "/api/play-bot" else {**OPEN, "bots": {"1": "random"}}
    cookies = dict(client.cookies)

    async def at_once() -> list[int]:
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", cookies=cookies) as c:
            return [r.status_code for r in await asyncio.gather(*(c.post(path, json=body) for _ in range(6)))]

    codes = client.portal.call(at_once)
    assert sorted(codes) == [201, 201, 201, 429, 429, 429], codes


def test_open_tables_with_a_bot_count_as_games_with_bots(make) -> None:
    client = make(max_bot_games_per_user=2)
    as_guest(client, "Ann")
    waiting = {"game": "hidden-leaders", "players": 3, "bots": {"1": "random"}}  # waits for one more person
    for _ in range(2):
        assert client.post("/api/games", json=waiting).json()["game"]["status"] == "open"
    _refused(client.post("/api/play-bot", json=PLAY_BOT))


def test_tables_of_bots_only(make) -> None:
    client = make(max_all_bot_games=2)
    as_guest(client, "Guest")
    _refused(client.post("/api/games", json=ALL_BOTS), 403, "account_needed")
    client.cookies.clear()
    _refused(client.post("/api/games", json=ALL_BOTS), 403, "account_needed")
    _register(client, "ann")
    assert client.post("/api/games", json=ALL_BOTS).json()["game"]["status"] == "live"
    _refused(client.post("/api/games", json=ALL_BOTS))  # one at a time
    _register(client, "bob")
    assert client.post("/api/games", json=ALL_BOTS).status_code == 201
    _register(client, "cid")
    _refused(client.post("/api/games", json=ALL_BOTS), 503, "bots_busy")  # two on the whole server


def test_finished_bot_games_no_longer_count(tmp_path: Path) -> None:
    with _client(tmp_path, max_bot_games_per_user=1) as client:  # real random bots: the games end
        _register(client, "ann")
        game = client.post("/api/games", json=ALL_BOTS).json()["game"]["id"]
        deadline = time.monotonic() + 60
        while client.get(f"/api/games/{game}").json()["game"]["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert client.post("/api/games", json=ALL_BOTS).status_code == 201


def test_stale_open_tables_are_aborted(make) -> None:
    client = make(empty_table_ttl=3600, open_table_ttl=7200)
    caps, hub = client.app.state.caps, client.app.state.hub
    as_guest(client, "Ann")
    nobody = client.post("/api/games", json={**OPEN, "sit": False}).json()["game"]["id"]
    seated = client.post("/api/games", json=OPEN).json()["game"]["id"]
    assert client.portal.call(caps.sweep, hub) == 0
    caps.settings.empty_table_ttl = 0
    with client.websocket_connect(f"/ws/games/{nobody}") as watcher:
        hello(watcher, None, spectate=True)
        assert client.portal.call(caps.sweep, hub) == 1
        table, _ = read_until(watcher, "table")
        assert table["game"]["status"] == "aborted"
    assert client.get(f"/api/games/{seated}").json()["game"]["status"] == "open"
    caps.settings.open_table_ttl = 0
    assert client.portal.call(caps.sweep, hub) == 1
    assert client.get("/api/games").json()["games"] == []


def test_the_sweep_runs_by_itself(make) -> None:
    client = make(empty_table_ttl=0.2)
    as_guest(client, "Ann")
    game = client.post("/api/games", json={**OPEN, "sit": False}).json()["game"]["id"]
    deadline = time.monotonic() + 10
    while client.get(f"/api/games/{game}").json()["game"]["status"] != "aborted":
        assert time.monotonic() < deadline, "the empty table was never aborted"
        time.sleep(0.2)


def test_game_sockets_per_address(make) -> None:
    client = make(max_sockets_per_ip=2)
    as_guest(client, "Ann")
    game = client.post("/api/games", json=OPEN).json()["game"]["id"]
    path = f"/ws/games/{game}"
    with client.websocket_connect(path) as one, client.websocket_connect(path):
        one.send_json({"type": "ping"})
        assert one.receive_json()["type"] == "pong"
        with client.websocket_connect(path) as third:
            error = third.receive_json()
            assert error["code"] == "too_many_sockets"
            with pytest.raises(WebSocketDisconnect) as closed:
                third.receive_json()
            assert closed.value.code == 1013
    with client.websocket_connect(path) as again:  # the closed ones were counted off
        again.send_json({"type": "ping"})
        assert again.receive_json()["type"] == "pong"


def test_a_table_looks_up_only_its_own_address_games_and_forgets_those_over(monkeypatch) -> None:
    """The open-table count of an address reads that address's remembered games only (a busy server
    remembers thousands), and a game found over, or pushed out of memory, leaves no trace."""
    asked: list[list[int]] = []
    status = {1: "open", 2: "finished", 3: "open", 4: "open", 5: "live"}

    class Hub:
        matches = {5: object()}  # played here: live, never looked up
        repo = SimpleNamespace(statuses="the repository's statuses")

        async def db(self, _fn, ids):
            asked.append(sorted(ids))
            return {game_id: status[game_id] for game_id in ids}

    caps = Caps(Settings(secret_key="t"))
    for game_id, ip in ((1, "10.0.0.1"), (2, "10.0.0.1"), (3, "10.0.0.2"), (4, "10.0.0.1"), (5, "10.0.0.1")):
        caps.created(game_id, ip)
    assert asyncrun.run(caps._open_from(Hub(), client_key("10.0.0.1"))) == 2
    assert asked == [[1, 2, 4]]  # not game 3 (another address) nor 5 (live here)
    assert asyncrun.run(caps._open_from(Hub(), client_key("10.0.0.1"))) == 2
    assert asked[-1] == [1, 4]  # game 2 was found over and forgotten
    monkeypatch.setattr("throne.server.caps.REMEMBERED", 2)
    caps.created(6, "10.0.0.3")
    assert set(caps._creator_ip) == {5, 6}  # the oldest forgotten, by address too
    assert caps._made_from == {client_key("10.0.0.1"): {5}, client_key("10.0.0.3"): {6}}
