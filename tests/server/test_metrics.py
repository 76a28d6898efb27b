"""Operations endpoints: liveness at /api/health, Prometheus metrics at /metrics that move with the games."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from tests.server.helpers import hello, read_until, two_player_leaders, until_finished


def _scrape(client: TestClient) -> dict[str, float]:
    r = client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    return {
        sample.name + "".join(f"[{v}]" for v in sample.labels.values() if sample.name != "_"): sample.value
        for family in text_string_to_metric_families(r.text)
        for sample in family.samples
    }


def test_health_answers_while_the_process_lives(client: TestClient) -> None:
    r = client.get("/api/health")
    assert r.status_code == 200 and r.json() == {"ok": True}


def test_metrics_move_when_a_move_is_played(client: TestClient) -> None:
    before = _scrape(client)
    assert before["throne_live_games"] == 0 and before["throne_sockets"] == 0
    assert before["throne_bot_queue"] == 0 and before["throne_commit_queue"] == 0
    assert before.get("throne_moves_total[leaders]", 0) == 0
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[0])
        state, _ = read_until(ws, "state", 0)
        live = _scrape(client)
        assert live["throne_live_games"] == 1 and live["throne_sockets"] == 1
        token = tokens[state["to_play"]]
        legal = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()
        for move, ply in ((legal["legal_moves"][0], 0), ("nonsense", 1)):
            r = client.post(
                f"/api/games/{game_id}/move", json={"move": move, "ply": ply}, headers={"X-Seat-Token": token}
            )
            assert (r.status_code == 200) == (ply == 0), r.text
        read_until(ws, "state", 1)
    after = _scrape(client)
    assert after["throne_moves_total[leaders]"] == 1
    assert after["throne_move_seconds_count"] == before["throne_move_seconds_count"] + 1
    assert after["throne_move_seconds_sum"] > before["throne_move_seconds_sum"]
    assert after["throne_commit_seconds_count"] == before["throne_commit_seconds_count"] + 1
    assert after["throne_commit_group_moves_sum"] == before["throne_commit_group_moves_sum"] + 1
    refused = {k: v for k, v in after.items() if k.startswith("throne_moves_refused_total")}
    assert sum(refused.values()) == 1, refused
    assert after["throne_sockets"] == 0


def test_the_bot_queue_counts_decisions_not_answered_yet(client: TestClient) -> None:
    hub = client.app.state.hub
    release = threading.Event()

    async def slow_bot(_game, state, _seat, _bot, **_kw):
        while not release.is_set():
            await asyncio.sleep(0.01)
        return state.legal_moves()[0]

    hub.chooser = slow_bot
    client.cookies.clear()
    r = client.post("/api/accounts/guest", json={"name": "Ann"})
    r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random", "side": 1})
    assert r.status_code == 201, r.text
    game_id = r.json()["game"]["id"]
    try:
        for _ in range(500):
            if _scrape(client)["throne_bot_queue"] == 1:
                break
            threading.Event().wait(0.01)
        assert _scrape(client)["throne_bot_queue"] == 1
    finally:
        release.set()
    for _ in range(500):
        if client.get(f"/api/games/{game_id}/view").json()["ply"] == 1:
            break
        threading.Event().wait(0.01)
    assert _scrape(client)["throne_bot_queue"] == 0


def _wait_for(check: Any, what: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_a_move_refused_game_over_after_the_game_ended_is_counted(client: TestClient) -> None:
    """A move sent to a game that ended, once its owner task is gone, is refused `409 game_over` and counted
    in `throne_moves_refused_total` like any refused move."""
    hub = client.app.state.hub
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[0])
        read_until(ws, "state", 0)
        ws.send_json({"type": "resign"})
        until_finished(ws)
    _wait_for(lambda: game_id not in hub.matches, "the finished game's owner task ended")
    before = _scrape(client).get("throne_moves_refused_total[game_over]", 0.0)
    view = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[1]}).json()
    r = client.post(
        f"/api/games/{game_id}/move",
        json={"move": "d1-d2", "ply": view["ply"]},
        headers={"X-Seat-Token": tokens[1]},
    )
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_over", r.text
    after = _scrape(client).get("throne_moves_refused_total[game_over]", 0.0)
    assert after == before + 1, f"a move refused game_over was not counted ({before} -> {after})"
