"""Expensive paths kept off the event loop and out of the O(N²): cached replays, spectator counts."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import hello, read_until, two_player_leaders
from throne.server import lobby
from throne.server.games import GameKind


def _play(client: TestClient, game_id: int, tokens: dict[int, str], n: int) -> None:
    for _ in range(n):
        view = client.get(f"/api/games/{game_id}/view").json()
        token = tokens[view["to_play"]]
        legal = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()
        move = {"move": legal["legal_moves"][0], "ply": view["ply"]}
        assert client.post(
            f"/api/games/{game_id}/move", json=move, headers={"X-Seat-Token": token}
        ).is_success


def test_replays_are_built_on_a_worker_thread_once_per_position(client: TestClient, monkeypatch) -> None:
    game_id, tokens = two_player_leaders(client)
    _play(client, game_id, tokens, 4)
    builds: list[str] = []
    real = GameKind.new_state

    def counted(self: GameKind, *args: Any) -> Any:
        builds.append(threading.current_thread().name)
        return real(self, *args)

    monkeypatch.setattr(GameKind, "new_state", counted)
    first = client.get(f"/api/games/{game_id}/replay").json()
    again = client.get(f"/api/games/{game_id}/replay").json()
    assert first == again and [s["ply"] for s in first["steps"]] == [0, 1, 2, 3, 4]
    assert len(builds) == 1 and builds[0].startswith("throne-cpu"), builds
    # Pages are slices of the one cached replay.
    page = client.get(f"/api/games/{game_id}/replay?start=2&limit=2").json()
    assert page["steps"] == first["steps"][2:4] and page["total"] == 5
    head = client.get(f"/api/games/{game_id}/replay?start=0&limit=2").json()
    assert head["steps"] == first["steps"][:2] and len(builds) == 1
    _play(client, game_id, tokens, 1)  # a new position: a new replay
    later = client.get(f"/api/games/{game_id}/replay").json()
    assert [s["ply"] for s in later["steps"]] == [0, 1, 2, 3, 4, 5] and later["steps"][:5] == first["steps"]
    assert len(builds) == 2


def _between_pings(ws) -> list[dict[str, Any]]:
    ws.send_json({"type": "ping"})
    _, seen = read_until(ws, "pong", limit=200)
    return seen


def test_spectators_change_a_count_not_the_table(client: TestClient, monkeypatch) -> None:
    monkeypatch.setattr(lobby, "SPECTATOR_INTERVAL", 0.2)
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as player:
        hello(player, tokens[0])
        read_until(player, "state", 0)
        crowd = [client.websocket_connect(f"/ws/games/{game_id}") for _ in range(12)]
        for ws in crowd:
            ws.__enter__()
            hello(ws, None, spectate=True)
        time.sleep(0.4)
        seen = _between_pings(player)
        assert not [m for m in seen if m["type"] == "table"], seen  # nobody's seat changed
        counts = [m["count"] for m in seen if m["type"] == "spectators"]
        assert counts and counts[-1] == 12 and len(counts) <= 3, counts  # coalesced, not one per join
        assert client.get(f"/api/games/{game_id}").json()["game"]["spectators"] == 12
        for ws in crowd:
            ws.__exit__(None, None, None)
        deadline = time.monotonic() + 10
        while (
            client.get(f"/api/games/{game_id}").json()["game"]["spectators"] and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        time.sleep(0.4)
        seen = _between_pings(player)
        assert not [m for m in seen if m["type"] == "table"], seen
        assert [m["count"] for m in seen if m["type"] == "spectators"][-1:] == [0], seen
    with client.websocket_connect(f"/ws/games/{game_id}") as other:  # a seat's presence still shows
        hello(other, tokens[1])
        with client.websocket_connect(f"/ws/games/{game_id}") as player:
            hello(player, tokens[0])
            for _ in range(5):
                table, _ = read_until(other, "table")
                if all(s["connected"] for s in table["game"]["seats"]):
                    break
            assert all(s["connected"] for s in table["game"]["seats"]), table


def test_the_server_collects_garbage_rarely_and_never_walks_what_it_loaded_at_start() -> None:
    import gc

    from throne.server.run import tune_gc

    before = gc.get_threshold()
    try:
        tune_gc(12_345)
        assert gc.get_threshold() == (12_345, *before[1:])
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def _connected(table: dict[str, Any]) -> list[bool]:
    return sorted(bool(s.get("connected")) for s in table["game"]["seats"])


def _until(done: Callable[[], bool], seconds: float = 1.0) -> bool:
    """Whether `done()` became true within `seconds`."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.01)
    return done()


def _resign_until_over(hub: Any, game_id: int, resigning: Any, watching: Any) -> bool:
    """`resigning` resigns; whether, once `watching` was shown the finished table, the match ended too (it
    ends once its final state went out)."""
    resigning.send_json({"type": "resign"})
    _table_until(watching, lambda table: table["game"]["status"] == "finished")
    return _until(lambda: game_id not in hub.matches)


def _table_until(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Reads `table` messages until one is `wanted`."""
    while True:
        table, _ = read_until(ws, "table")
        if wanted(table):
            return table


@pytest.mark.parametrize(
    "finished",
    [
        False,  # a live game's table is the one its match holds (each change committed before it is held)
        True,  # a finished game's table is the one its match held when it ended
    ],
)
def test_a_game_played_here_never_reads_its_table_back_when_a_player_leaves(
    client: TestClient, finished: bool
) -> None:
    """The presence change is shown to the sockets still at the table from what the match holds: neither the
    end of the game nor a player leaving reads the table back."""
    game_id, tokens = two_player_leaders(client)
    hub = client.app.state.hub
    real, reads = hub.repo.get_game, []

    def counted(game: int) -> Any:
        reads.append(game)
        return real(game)

    hub.repo.get_game = counted
    try:
        with client.websocket_connect(f"/ws/games/{game_id}") as ws0:
            hello(ws0, tokens[0])
            with client.websocket_connect(f"/ws/games/{game_id}") as ws1:
                hello(ws1, tokens[1])
                read_until(ws1, "state")
                _table_until(ws0, lambda table: _connected(table) == [True, True])  # both sit
                reads.clear()
                if finished:
                    assert _resign_until_over(hub, game_id, ws1, ws0)
                # the other seat leaves (closed here: leaving the block would also cancel its handler)
                ws1.close(1000)
                table = _table_until(ws0, lambda table: True)  # and the seat still there is told
            assert _connected(table) == [False, True]
            assert table["game"]["status"] == ("finished" if finished else "live")
        _until(lambda: game_id not in hub.rooms)
        time.sleep(0.3)  # a read back would start at once on a database thread
        assert reads == []
    finally:
        hub.repo.get_game = real


def test_a_game_started_here_reads_its_chat_back_only_once_someone_wrote(client: TestClient) -> None:
    """Every message of a game this process started passes through it, so until the first one its sockets'
    greetings read no chat history from the store; after it, a newcomer's history holds the message."""
    game_id, tokens = two_player_leaders(client)
    hub = client.app.state.hub
    real, reads = hub.repo.chat, []

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(args[0])
        return real(*args, **kwargs)

    hub.repo.chat = counted
    try:
        with client.websocket_connect(f"/ws/games/{game_id}") as ws0:
            hello(ws0, tokens[0])
            assert read_until(ws0, "chat_history")[0]["messages"] == [] and reads == []
            ws0.send_json({"type": "chat", "text": "good luck"})
            read_until(ws0, "chat")
            with client.websocket_connect(f"/ws/games/{game_id}") as ws1:
                hello(ws1, tokens[1])
                history = read_until(ws1, "chat_history")[0]["messages"]
                assert [m["text"] for m in history] == ["good luck"] and reads == [game_id]
    finally:
        hub.repo.chat = real


# The store calls of one game's life as `throne serve` plays it between two new guests (the load benchmark's
# set-up): what each phase may read and write. Every call is a database round trip on a thread of its own.
STORE_CALLS_PER_PHASE = [
    ("make the table", {"create_user": 1, "create_game": 1}),
    ("join it (starts the game)", {"get_game": 1, "create_user": 1, "join_seat": 1, "start_game": 1}),
    ("greet both seats", {}),  # the tokens of a game started here are known
    ("resign", {"finish_game": 1}),
    ("both leave", {}),
]


def test_a_game_between_two_new_guests_makes_only_the_store_calls_it_needs(client: TestClient) -> None:
    hub = client.app.state.hub
    real, calls = hub.db, Counter()

    async def counted(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        calls[fn.__name__] += 1
        return await real(fn, *args, **kwargs)

    hub.db = counted
    seen: list[tuple[str, dict[str, int]]] = []

    def phase(name: str) -> None:
        seen.append((name, dict(calls)))
        calls.clear()

    try:
        client.cookies.clear()
        r = client.post("/api/games", json={"game": "leaders", "players": 2, "name": "Ann"})
        game_id, tokens = r.json()["game"]["id"], [r.json()["token"]]
        phase("make the table")
        client.cookies.clear()
        r = client.post(f"/api/games/{game_id}/join", json={"name": "Bob"})
        tokens.append(r.json()["token"])
        assert r.json()["game"]["status"] == "live"
        phase("join it (starts the game)")
        with client.websocket_connect(f"/ws/games/{game_id}") as ws0:
            hello(ws0, tokens[0])
            read_until(ws0, "state")
            with client.websocket_connect(f"/ws/games/{game_id}") as ws1:
                hello(ws1, tokens[1])
                read_until(ws1, "state")
                phase("greet both seats")
                assert _resign_until_over(hub, game_id, ws0, ws1)
                phase("resign")
                ws1.close(1000)
                _table_until(ws0, lambda table: _connected(table) == [False, True])
            ws0.close(1000)
        _until(lambda: game_id not in hub.rooms)
        time.sleep(0.3)  # a read back would start at once on a database thread
        phase("both leave")
    finally:
        hub.db = real
    assert seen == STORE_CALLS_PER_PHASE
