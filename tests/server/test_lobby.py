"""Tables: create, list, join, leave, private invites, start when full (random seating), take-overs."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, hello, read_until
from throne.server.app import create_app
from throne.server.config import Settings


def test_table_fills_up_and_starts_by_itself(client: TestClient) -> None:
    as_guest(client, "Host")
    r = client.post(
        "/api/games",
        json={
            "game": "hidden-leaders",
            "players": 4,
            "bots": {"3": "random"},
            "options": {"variant": "full", "modules": ["core"]},
        },
    )
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    game_id = game["id"]
    assert game["status"] == "open" and [s["kind"] for s in game["seats"]] == ["human", "open", "open", "bot"]
    assert game["you"] == {"seat": 0}
    listed = client.get("/api/games?status=open&game=hidden-leaders").json()["games"]
    assert [g["id"] for g in listed] == [game_id]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        welcome, _ = hello(ws, r.json()["token"])
        assert welcome["seat"] == 0 and welcome["game"]["status"] == "open"
        as_guest(client, "Second")
        assert client.post(f"/api/games/{game_id}/join", json={"seat": 2}).status_code == 200
        table, _ = read_until(ws, "table")
        while table["game"]["seats"][2]["kind"] == "open":  # the first may answer our own hello
            table, _ = read_until(ws, "table")
        assert table["game"]["seats"][2]["name"] == "Second"
        as_guest(client, "Third")
        joined = client.post(f"/api/games/{game_id}/join", json={}).json()
        assert joined["game"]["status"] == "live"
        state, _ = read_until(ws, "state", 0)
        assert state["status"] == "live" and state["seat"] in range(4)
    live = client.get(f"/api/games/{game_id}").json()["game"]
    assert sorted(s["name"] for s in live["seats"]) == ["Host", "Second", "Third", "random"]
    assert live["you"] == {"seat": joined["seat"]} and live["seats"][joined["seat"]]["name"] == "Third"
    assert [g["id"] for g in client.get("/api/games?status=live").json()["games"]] == [game_id]
    assert client.get("/api/games?status=open").json()["games"] == []


def test_seating_and_seeds_are_random(client: TestClient) -> None:
    souths = set()
    for _ in range(20):  # all equal by chance: 2 in a million
        as_guest(client, "Host")
        created = client.post("/api/games", json={"game": "leaders"}).json()
        as_guest(client, "Guest")
        joined = client.post(f"/api/games/{created['game']['id']}/join", json={}).json()
        souths.add(joined["game"]["seats"][0]["name"])
    assert souths == {"Host", "Guest"}


def test_leave_before_start_and_abort(client: TestClient) -> None:
    as_guest(client, "Host")
    created = client.post("/api/games", json={"game": "hidden-leaders", "players": 3}).json()
    game_id = created["game"]["id"]
    as_guest(client, "Other")
    other = client.post(f"/api/games/{game_id}/join", json={}).json()
    r = client.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": other["token"]})
    assert r.status_code == 200 and r.json()["game"]["seats"][1]["kind"] == "open"
    r = client.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": other["token"]})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"  # that seat is gone
    r = client.post(f"/api/games/{game_id}/leave", headers={"X-Seat-Token": created["token"]})
    assert r.json()["game"]["status"] == "aborted"
    assert client.get("/api/games?status=open").json()["games"] == []


def test_private_tables_need_the_invite(client: TestClient) -> None:
    as_guest(client, "Host")
    created = client.post("/api/games", json={"game": "leaders", "private": True}).json()
    game_id, invite = created["game"]["id"], created["invite"]
    assert invite and client.get("/api/games").json()["games"] == []
    client.cookies.clear()
    assert client.get(f"/api/games/{game_id}").status_code == 404
    assert client.post(f"/api/games/{game_id}/join", json={"invite": "wrong"}).status_code == 404
    assert client.get(f"/api/games/{game_id}?invite={invite}").status_code == 200
    joined = client.post(f"/api/games/{game_id}/join", json={"invite": invite, "name": "Friend"})
    assert joined.status_code == 200 and joined.json()["game"]["status"] == "live"
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_json({"type": "hello", "spectate": True})
        assert read_until(ws, "error")[0]["code"] == "unknown_game"
        assert ws.receive()["code"] == 4404  # closed, exactly like a game that does not exist
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        welcome, _ = hello(ws, None, spectate=True, invite=invite)
        assert welcome["seat"] is None


def test_an_abandoned_seat_is_taken_over_by_a_bot(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=0.3, takeover_bot="random")
    with TestClient(create_app(settings)) as client:
        as_guest(client, "Stays")
        created = client.post("/api/games", json={"game": "leaders"}).json()
        game_id = created["game"]["id"]
        as_guest(client, "Vanishes")
        client.post(f"/api/games/{game_id}/join", json={})
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            welcome, _ = hello(ws, created["token"])
            seat = welcome["seat"]
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                msg = ws.receive_json()
                if msg["type"] == "table" and any(s.get("takeover") for s in msg["game"]["seats"]):
                    break
                if msg["type"] == "state" and msg["your_turn"]:
                    ws.send_json({"type": "move", "move": msg["legal_moves"][0], "ply": msg["ply"]})
            game = client.get(f"/api/games/{game_id}").json()["game"]
            gone = game["seats"][1 - seat]
            assert gone == {
                "seat": 1 - seat,
                "kind": "bot",
                "name": "Vanishes",
                "bot": "random",
                "takeover": True,
            }
            assert game["seats"][seat]["kind"] == "human"
            start = game["ply"]
            while True:  # the bot now answers for the vanished player
                msg = ws.receive_json()
                if msg["type"] == "state" and msg["your_turn"] and msg["ply"] > start:
                    break
                if msg["type"] == "state" and msg["your_turn"]:
                    ws.send_json({"type": "move", "move": msg["legal_moves"][0], "ply": msg["ply"]})
                if msg["type"] == "state" and msg["status"] == "finished":
                    break


def test_a_game_everyone_left_is_finished_by_bots(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, secret_key="k", abandon_timeout=0.2, takeover_bot="random")
    with TestClient(create_app(settings)) as client:
        as_guest(client, "A")
        game_id = client.post("/api/games", json={"game": "leaders"}).json()["game"]["id"]
        as_guest(client, "B")
        client.post(f"/api/games/{game_id}/join", json={})
        client.cookies.clear()
        deadline = time.monotonic() + 120  # a generous bound, not a speed check
        game = client.get(f"/api/games/{game_id}").json()["game"]
        while game["status"] == "live" and time.monotonic() < deadline:
            time.sleep(0.2)
            game = client.get(f"/api/games/{game_id}").json()["game"]
        assert game["status"] == "finished"
        assert all(s["kind"] == "bot" and s["takeover"] for s in game["seats"])
        assert len(client.get(f"/api/games/{game_id}/record").json()["moves"]) == game["ply"]


def test_legends_is_a_table_option(client: TestClient) -> None:
    """The Forgotten Legends module is offered by /api/meta and a table with it deals a legends game."""
    meta = client.get("/api/meta").json()["games"]["hidden-leaders"]
    options = {o["name"]: o for o in meta["options"]}
    assert options["modules"]["choices"] == ["core", "kickstarter", "queens", "legends"]
    assert options["modules"]["required"] == ["core"] and options["modules"]["default"] == ["core"]
    r = client.post("/api/play-bot", json={"game": "hidden-leaders", "players": 3, "bot": "random",
                                          "options": {"modules": ["core", "legends"]}})
    assert r.status_code == 201, r.text
    with client.websocket_connect(f"/ws/games/{r.json()['game']['id']}") as ws:
        hello(ws, r.json()["token"])
        state, _ = read_until(ws, "state")
        view = state["view"]
        assert view["modules"] == ["core", "legends"] and view["markers"]["guardian"] >= 1
        assert view["leader_pool"] == {"base": 3, "guardians": 1}
    bad = client.post("/api/play-bot", json={"game": "hidden-leaders", "players": 3, "bot": "random",
                                            "options": {"modules": ["legends"]}})
    assert bad.status_code == 400 and "core" in bad.text


def test_a_players_history_neither_lists_nor_counts_private_games(client: TestClient) -> None:
    """A profile's game list must not give away private tables, not even as a count in `total`."""
    client.cookies.clear()
    me = client.post("/api/accounts/guest", json={"name": "Priv"}).json()["user"]["id"]
    for private in (False, True):
        r = client.post("/api/games", json={"game": "leaders", "players": 2, "bots": {"1": "random"},
                                            "private": private})
        assert r.status_code == 201 and r.json()["game"]["status"] == "live", r.text
    history = client.get(f"/api/players/{me}/games").json()
    assert [g["private"] for g in history["games"]] == [False]
    assert history["total"] == 1
