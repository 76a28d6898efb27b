"""Live Leaders games over real WebSocket connections: people, bots, spectators, reconnects, replays."""

from __future__ import annotations

import random

from fastapi.testclient import TestClient

from tests.server.helpers import hello, read_until, two_player_leaders


def test_two_people_and_a_spectator_play_a_whole_game(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    rng = random.Random(1)
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ws0,
        client.websocket_connect(f"/ws/games/{game_id}") as ws1,
        client.websocket_connect(f"/ws/games/{game_id}") as spectator,
    ):
        sockets = {0: ws0, 1: ws1}
        for seat, ws in sockets.items():
            welcome, _ = hello(ws, tokens[seat])
            assert welcome["seat"] == seat
        welcome, _ = hello(spectator, None, spectate=True)
        assert welcome["seat"] is None
        states = {seat: read_until(ws, "state", 0)[0] for seat, ws in [*sockets.items(), (None, spectator)]}
        ply = 0
        described: list[list[dict]] = []
        while states[None]["status"] == "live":
            to_play = states[None]["to_play"]
            mover = states[to_play]
            assert mover["your_turn"] and mover["legal_moves"] == mover["view"]["legal_moves"]
            assert states[1 - to_play]["legal_moves"] == [] and not states[None]["your_turn"]
            sockets[to_play].send_json({"type": "move", "move": rng.choice(mover["legal_moves"]), "ply": ply})
            ply += 1
            states = {
                seat: read_until(ws, "state", ply)[0] for seat, ws in [*sockets.items(), (None, spectator)]
            }
            assert states[0]["view"] == states[1]["view"] == states[None]["view"]  # Leaders views are public
            events = states[None]["events"]  # the move's events, the same for everyone
            assert events == states[0]["events"] == states[1]["events"]
            assert all(e["ply"] == ply and e["seat"] == to_play for e in events)
            described.append(events)
        result = states[None]["result"]
    assert result is not None and result["termination"] in {"capture", "surround", "repetition", "turn-limit"}
    game = client.get(f"/api/games/{game_id}").json()["game"]
    assert (game["status"], game["ply"], game["result"]) == ("finished", ply, result)
    record = client.get(f"/api/games/{game_id}/record").json()
    assert len(record["moves"]) == ply and sorted(record["seats"]) == ["Ann", "Bob"]
    replay = client.get(f"/api/games/{game_id}/replay").json()
    assert replay["total"] == ply + 1 and [s["ply"] for s in replay["steps"]] == list(range(ply + 1))
    assert [s["move"] for s in replay["steps"][1:]] == record["moves"]
    assert replay["steps"][-1]["view"]["is_over"] is True
    assert [s["events"] for s in replay["steps"][1:]] == described  # replays carry the same events
    assert described[-1][-1]["type"] == "game-end" and described[-1][-1]["reason"] == result["termination"]


def test_play_a_bot_now_runs_to_the_end(client: TestClient) -> None:
    r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random", "name": "Solo"})
    assert r.status_code == 201, r.text
    body = r.json()
    game_id, seat = body["game"]["id"], body["seat"]
    assert body["game"]["status"] == "live" and seat in (0, 1)
    assert {s["kind"] for s in body["game"]["seats"]} == {"human", "bot"}
    rng = random.Random(2)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        welcome, _ = hello(ws)  # no token: the session cookie's seat
        assert welcome["seat"] == seat
        while True:
            msg, _ = read_until(ws, "state")
            if msg["status"] == "finished":
                break
            if msg["your_turn"]:
                ws.send_json({"type": "move", "move": rng.choice(msg["legal_moves"]), "ply": msg["ply"]})
    history = client.get(f"/api/players/{client.get('/api/accounts/me').json()['user']['id']}/games").json()
    assert history["total"] == 1 and history["games"][0]["status"] == "finished"


def test_reconnect_resumes_from_the_current_state(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[0])
        state, _ = read_until(ws, "state", 0)
        ws.send_json({"type": "move", "move": state["legal_moves"][0], "ply": 0})
        read_until(ws, "state", 1)
    r = client.post(
        f"/api/games/{game_id}/move", json={"move": "end", "ply": 1}, headers={"X-Seat-Token": tokens[0]}
    )
    assert r.status_code == 200 and r.json() == {"ok": True, "ply": 2}
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[0])
        state, _ = read_until(ws, "state")
        assert state["ply"] == 2 and state["seat"] == 0
        assert {e["ply"] for e in state["events"]} <= {2}  # a first state carries the last move's events
        view = client.get(f"/api/games/{game_id}/view").json()
        assert state["view"] == view["view"]


def test_live_record_is_public_and_replay_shows_spectator_views(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    first = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[0]}).json()[
        "legal_moves"
    ][0]
    r = client.post(f"/api/games/{game_id}/move", json={"move": first}, headers={"X-Seat-Token": tokens[0]})
    assert r.status_code == 200
    record = client.get(f"/api/games/{game_id}/record").json()
    assert record["moves"] == [first] and "start" not in record and record["result"] is None
    steps = client.get(f"/api/games/{game_id}/replay").json()["steps"]
    assert [s["move"] for s in steps] == [None, first]
    assert "deck" not in steps[-1]["view"]


def test_strategist_mode_is_a_table_option(client: TestClient) -> None:
    """/api/meta offers the Leaders mode; a Strategist table starts with banishments."""
    meta = client.get("/api/meta").json()["games"]["leaders"]
    options = {o["name"]: o for o in meta["options"]}
    assert options["mode"]["choices"] == ["discovery", "strategist"]
    assert options["mode"]["default"] == "discovery"
    body = {"game": "leaders", "bot": "easy", "options": {"mode": "strategist"}}
    r = client.post("/api/play-bot", json=body)
    assert r.status_code == 201, r.text
    game_id = r.json()["game"]["id"]
    rng = random.Random(3)
    bans = 0
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws)
        while True:
            msg, _ = read_until(ws, "state")
            assert msg["view"]["mode"] == "strategist" and msg["view"]["deck_size"] == 0
            if msg["status"] == "finished":
                break
            if msg["your_turn"]:
                bans += any(m.startswith("ban ") for m in msg["legal_moves"])
                ws.send_json({"type": "move", "move": rng.choice(msg["legal_moves"]), "ply": msg["ply"]})
    assert bans >= 1  # every player banishes before the first recruitment
    record = client.get(f"/api/games/{game_id}/record").json()
    assert [m for m in record["moves"] if m.startswith("ban ")][:2] == record["moves"][:2]
    bad = client.post("/api/play-bot", json={"game": "leaders", "bot": "easy", "options": {"mode": "expert"}})
    assert bad.status_code == 400 and "mode" in bad.text
