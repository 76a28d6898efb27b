"""The lobby's choices honoured by the server: the creator's side, a guest's history carried into the
account it signs up as, and open tables that expire once their creator is gone."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, hello
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.lobby import seating

PASSWORD = "rook-to-e4!"


async def _never(*_args, **_kwargs) -> str:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


@pytest.fixture
def make(tmp_path: Path) -> Iterator:
    opened: list[TestClient] = []

    def factory(**settings) -> TestClient:
        s = Settings(data_dir=tmp_path, secret_key="t", rate_limits={}, **settings)
        client = TestClient(create_app(s))
        client.__enter__()
        client.app.state.hub.chooser = _never  # bots never answer: games stay where the test put them
        opened.append(client)
        return client

    yield factory
    for client in opened:
        client.__exit__(None, None, None)


@pytest.mark.parametrize(("players", "chosen"), [(2, {0: 1}), (2, {0: 0}), (4, {0: 3}), (4, {2: 0}), (3, {})])
def test_seating_keeps_the_chosen_sides(players: int, chosen: dict[int, int]) -> None:
    for _ in range(10):
        order = seating(players, chosen)
        assert sorted(order) == list(range(players))
        assert all(order[seat] == place for place, seat in chosen.items())


@pytest.mark.parametrize("side", [0, 1])
def test_play_bot_seats_the_player_on_the_chosen_side(make, side: int) -> None:
    client = make(max_bot_games_per_user=20, max_bot_games_per_ip=20)
    as_guest(client, "Ann")
    for _ in range(6):  # random seating would miss one of six in 2^6
        r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random", "side": side})
        assert r.status_code == 201, r.text
        assert r.json()["seat"] == side


def test_an_open_table_keeps_its_creators_side_until_it_fills(make) -> None:
    client = make()
    for _ in range(4):
        as_guest(client, "Ann")
        r = client.post("/api/games", json={"game": "leaders", "players": 2, "side": 1})
        assert r.status_code == 201, r.text
        game_id, token = r.json()["game"]["id"], r.json()["token"]
        as_guest(client, "Bob")
        assert client.post(f"/api/games/{game_id}/join", json={}).json()["game"]["status"] == "live"
        view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()
        assert view["seat"] == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"game": "leaders", "players": 2, "side": 2}, "bad_options"),
        ({"game": "leaders", "players": 2, "side": -1}, "invalid_request"),
        ({"game": "leaders", "players": 2, "side": 0, "sit": False, "bots": {"0": "random"}}, "bad_options"),
    ],
)
def test_a_side_that_does_not_exist_is_refused(make, body: dict, code: str) -> None:
    client = make()
    as_guest(client, "Ann")
    r = client.post("/api/games", json=body)
    assert r.status_code in (400, 422) and r.json()["error"]["code"] == code, r.text
    assert client.get("/api/games?status=open").json()["games"] == []


def test_meta_names_the_sides_of_leaders() -> None:
    from throne.games import registry

    assert registry.get("leaders").to_json()["seat_names"] == ["south", "north"]
    assert registry.get("hidden-leaders").to_json()["seat_names"] == []


def test_signing_up_keeps_the_guests_games_and_tables(make) -> None:
    client = make()
    as_guest(client, "Ann")
    played = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"}).json()["game"]["id"]
    waiting = client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]
    r = client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD, "name": "Ann"})
    assert r.status_code == 201, r.text
    user = r.json()["user"]["id"]
    history = client.get(f"/api/players/{user}/games").json()
    assert [g["id"] for g in history["games"]] == [played]
    table = client.get(f"/api/games/{waiting}").json()["game"]
    assert (table["you"] or {}).get("seat") is not None  # still the creator's seat, seen as the account's
    client.post("/api/accounts/logout")
    as_guest(client, "Bob")  # a registered user signing up again adopts nothing of anybody else
    r = client.post("/api/accounts/register", json={"username": "bob", "password": PASSWORD, "name": "Bob"})
    assert client.get(f"/api/players/{r.json()['user']['id']}/games").json()["games"] == []


def test_an_open_table_expires_when_its_creator_is_gone(make) -> None:
    client = make(creator_gone_ttl=60)
    caps, hub = client.app.state.caps, client.app.state.hub
    as_guest(client, "Ann")
    gone = client.post("/api/games", json={"game": "leaders", "players": 2}).json()["game"]["id"]
    r = client.post("/api/games", json={"game": "leaders", "players": 2})
    here, token = r.json()["game"]["id"], r.json()["token"]
    r = client.post("/api/games", json={"game": "leaders", "players": 2, "sit": False})
    nobody = r.json()["game"]["id"]
    with client.websocket_connect(f"/ws/games/{here}") as ws:
        hello(ws, token)
        assert client.portal.call(caps.sweep, hub, 1000.0) == 0
        assert client.portal.call(caps.sweep, hub, 1059.0) == 0
        assert client.portal.call(caps.sweep, hub, 1060.0) == 1
        status = {g: client.get(f"/api/games/{g}").json()["game"]["status"] for g in (gone, here, nobody)}
        assert status == {gone: "aborted", here: "open", nobody: "open"}
    # once the creator's socket closes, the clock starts for that table too
    assert client.portal.call(caps.sweep, hub, 2000.0) == 0
    assert client.portal.call(caps.sweep, hub, 2060.0) == 1
    assert client.get(f"/api/games/{here}").json()["game"]["status"] == "aborted"


def test_a_creator_who_leaves_takes_the_chosen_side_along(make) -> None:
    client = make()
    hub = client.app.state.hub
    as_guest(client, "Ann")
    r = client.post("/api/games", json={"game": "leaders", "players": 2, "side": 1})
    game_id, token = r.json()["game"]["id"], r.json()["token"]
    assert [s.side for s in hub.repo.get_game(game_id).seats] == [1]
    r = client.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": token})
    assert r.status_code == 200, r.text
    assert hub.repo.get_game(game_id).seats == []


def test_the_chosen_side_survives_a_restart(make) -> None:
    """The side is stored with the creator's seat: a server restarted before the table fills still seats
    the creator there (six tables: random seating would miss one of them in 2^6)."""
    before = make()
    tables = []
    for _ in range(6):
        as_guest(before, "Ann")
        r = before.post("/api/games", json={"game": "leaders", "players": 2, "side": 1})
        assert r.status_code == 201, r.text
        tables.append((r.json()["game"]["id"], r.json()["token"]))
    before.__exit__(None, None, None)

    after = make()  # the same data directory: a restarted server
    as_guest(after, "Bob")
    for game_id, token in tables:
        assert after.post(f"/api/games/{game_id}/join", json={}).json()["game"]["status"] == "live"
        view = after.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()
        assert view["seat"] == 1
        assert [s.side for s in after.app.state.hub.repo.get_game(game_id).seats] == [None, None]
