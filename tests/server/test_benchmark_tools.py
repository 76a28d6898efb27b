"""The server benchmark's own servers and tools (benchmarks/): each does what its measurement assumes."""

from __future__ import annotations

import asyncio
import gc
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from fastapi.testclient import TestClient
from websockets.asyncio.server import ServerConnection, serve

from tests import asyncrun
from throne.server.config import Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import game_anchor
import game_setup
import move_log
import relay_anchor
import server_load


def _seated(client: TestClient) -> tuple[int, list[str]]:
    made = client.post("/api/games", json={"game": "leaders", "players": 2}).json()
    joined = client.post(f"/api/games/{made['game']['id']}/join").json()
    return made["game"]["id"], [made["token"], joined["token"]]


def _state(ws: Any) -> dict[str, Any]:
    msg = ws.receive_json()
    assert msg["type"] == "state", msg
    return msg


@contextmanager
def _both_seats(anchor: Any) -> Iterator[tuple[dict[Any, dict[str, Any]], Any, Any]]:
    """A two-player Leaders table on `anchor`, both seats greeted: their first states, the socket of the seat
    to play and the other one."""
    with TestClient(anchor.create_app()) as client:
        game_id, tokens = _seated(client)
        with (
            client.websocket_connect(f"/ws/games/{game_id}") as a,
            client.websocket_connect(f"/ws/games/{game_id}") as b,
        ):
            a.send_json({"type": "hello", "token": tokens[0]})
            b.send_json({"type": "hello", "token": tokens[1]})
            first = {ws: _state(ws) for ws in (a, b)}
            mover = next(ws for ws, s in first.items() if s["your_turn"])
            yield first, mover, (b if mover is a else a)


@pytest.mark.parametrize("anchor", [relay_anchor, game_anchor], ids=["relay", "game anchor"])
def test_an_anchor_plays_a_move_of_the_seat_to_play_once_and_tells_every_seat(anchor: Any) -> None:
    with _both_seats(anchor) as (first, mover, other):
        assert first[other]["legal_moves"] == [] and first[mover]["legal_moves"]
        move = first[mover]["legal_moves"][0]
        mover.send_json({"type": "move", "move": move, "ply": 1})  # a stale ply
        assert mover.receive_json()["type"] == "error"
        other.send_json({"type": "move", "move": move, "ply": 0})  # not its turn
        assert other.receive_json()["type"] == "error"
        mover.send_json({"type": "move", "move": move, "ply": 0})
        after = [_state(ws) for ws in (mover, other)]
        assert [s["ply"] for s in after] == [1, 1] and [s["your_turn"] for s in after].count(True) == 1


def test_the_game_anchor_refuses_an_illegal_move_and_shows_each_seat_its_engine_view() -> None:
    with _both_seats(game_anchor) as (first, mover, _other):
        mover.send_json({"type": "move", "move": "zz9-zz9", "ply": 0})
        assert mover.receive_json() == {"type": "error", "code": "illegal_move"}
        assert all(s["view"]["game"] == "leaders" and s["ply"] == 0 for s in first.values())


def test_the_move_log_benchmark_appends_every_move_of_its_groups() -> None:
    assert move_log.measure((1, 5), timed=True, groups=6) > 0  # it raises if a move was refused as stale


def test_the_set_up_benchmark_starts_and_ends_each_of_its_games_on_a_real_server(tmp_path: Path) -> None:
    proc, base = game_setup.start_server(tmp_path)
    try:
        # 24 games: the store processes' share (~3 ms a game) must add up to more than a clock tick (10 ms)
        row = asyncrun.run(game_setup.measure(base, proc.pid, games=24, concurrency=2))
        listed = httpx.get(f"{base}/api/games", params={"status": "finished"}).json()
    finally:
        proc.terminate()
        proc.wait(10)
    assert row["server_cpu_ms_per_game"] > row["store_cpu_ms_per_game"] > 0 and row["games_per_s"] > 0
    finished = [g for g in listed["games"] if g["result"]["termination"] == "resign"]
    assert len(finished) == 26  # the warm-up's two and the 24 measured, each resigned


def test_the_server_cpu_counts_its_store_process_too() -> None:
    """`throne serve` makes its database calls in a child process: its CPU is its own and its children's."""
    burn = "import sys, time\nsys.stdin.readline()\nend = time.process_time() + 0.3\n"
    burn += "while time.process_time() < end: pass\nprint('spent', flush=True)\ntime.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", burn], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    try:
        before = server_load.cpu_seconds(os.getpid())
        child.stdin.write(b"go\n")
        child.stdin.flush()
        assert child.stdout.readline() == b"spent\n"
        spent = server_load.cpu_seconds(os.getpid()) - before
    finally:
        child.kill()
        child.wait()
    assert spent >= 0.25


def test_a_game_that_stops_answering_counts_as_stalled() -> None:
    """A seat that hears nothing on a live game leaves it as an error, instead of waiting for the stop time
    (a cluster once left the players on other nodes waiting at every game's end, unseen)."""

    async def silent(ws: ServerConnection) -> None:
        await ws.recv()  # the hello
        state = {"type": "state", "ply": 0, "status": "live", "your_turn": False, "legal_moves": []}
        await ws.send(orjson.dumps(state).decode())
        await ws.wait_closed()  # silent until the seat leaves

    async def scenario() -> tuple[server_load.Stats, float]:
        async with serve(silent, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            stats, started = server_load.Stats(), time.monotonic()
            stop, measuring = [started + 60], [True]
            url, rng = f"ws://127.0.0.1:{port}", random.Random(1)
            await server_load._player(url, 1, "token", rng, stats, stop, measuring, stall_after=1.0)
            return stats, time.monotonic() - started

    stats, took = asyncrun.run(scenario())
    assert stats.codes == {"stalled": 1} and took < 30


@pytest.mark.parametrize(("every_ply", "moves"), [(False, 1), (True, 3)])
def test_a_seat_counts_its_own_moves_or_every_move_it_sees(every_ply: bool, moves: int) -> None:
    """Beside the server's bots (`--hidden-bots`) the one scripted seat counts every ply it sees played,
    its own and the bots'; its latencies are its own moves' only."""

    def state(ply: int, yours: bool, status: str = "live") -> str:
        msg = {"type": "state", "ply": ply, "status": status, "your_turn": yours, "legal_moves": ["m"]}
        return orjson.dumps(msg).decode()

    async def bots_then_you(ws: ServerConnection) -> None:
        await ws.recv()  # the hello
        for ply in (0, 2):  # the seat first sees ply 0, then two bot moves at once
            await ws.send(state(ply, yours=ply == 2))
        assert orjson.loads(await ws.recv())["ply"] == 2
        await ws.send(state(3, yours=False, status="finished"))
        await ws.wait_closed()

    async def scenario() -> server_load.Stats:
        async with serve(bots_then_you, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            stats, stop, measuring = server_load.Stats(), [time.monotonic() + 60], [True]
            url, rng = f"ws://127.0.0.1:{port}", random.Random(1)
            await server_load._player(url, 1, "token", rng, stats, stop, measuring, every_ply=every_ply)
            return stats

    stats = asyncrun.run(scenario())
    assert stats.moves == moves and len(stats.latencies) == 1 and stats.errors == 0


@pytest.mark.parametrize(
    ("text", "levels"),
    [("10,100,500", [10, 100, 500]), ("0", []), ("", []), ("25, 0,", [25])],
)
def test_the_load_benchmark_measures_only_levels_with_games(text: str, levels: list[int]) -> None:
    assert server_load._counts(text) == levels


def test_a_level_is_measured_once_its_tables_replaced_their_games() -> None:
    """Every table starts its first game at once: the measure waits until games have ended and been replaced
    (at 500 games a window at the start held few game ends, and only early positions), or gives up."""

    async def scenario() -> tuple[float, int, float]:
        stats = server_load.Stats()

        async def games_end() -> None:
            for _ in range(5):
                await asyncio.sleep(0.3)
                stats.ended += 1

        ending = asyncio.create_task(games_end())
        waited = await server_load.settled(stats, 3, limit=30)
        ended_then = stats.ended
        await ending
        gave_up = await server_load.settled(stats, 100, limit=0.3)
        return waited, ended_then, gave_up

    waited, ended_then, gave_up = asyncrun.run(scenario())
    assert 3 <= ended_then <= 4 and 0.8 < waited < 10  # it waited for the third, not for every game
    assert 0.3 <= gave_up < 5


def test_the_load_benchmark_server_takes_any_number_of_tables_from_one_address(tmp_path: Path) -> None:
    """Every table of the benchmark comes from one address and many are replaced at once: the per-address
    cap on open tables (10) refused most replacements at 500 games, and the clients waited and retried; the
    cap on games with bots (6) would stop the `--hidden-bots` levels."""
    proc, base = server_load.start_server(tmp_path)
    with_bots = server_load.Level("hidden-leaders", 4, 1, bot="random")

    async def games_with_bots(n: int) -> list[tuple[int, list[str]]]:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            return [await server_load._new_game(with_bots, client) for _ in range(n)]

    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            for n in range(Settings().max_open_tables_per_ip + 2):
                client.cookies.clear()  # a new guest each time, as the benchmark's tables do
                r = client.post("/api/games", json={"game": "leaders", "players": 2, "name": f"Load {n}"})
                assert r.status_code == 201, r.text
        made = asyncrun.run(games_with_bots(Settings().max_bot_games_per_ip + 2))
        assert all(len(tokens) == 1 for _game, tokens in made)  # one scripted seat, the bots in the others
    finally:
        proc.terminate()
        proc.wait(30)


def test_the_load_clients_collect_garbage_as_the_server_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """One process plays every seat of every game: with the interpreter's default threshold its collections
    paused all its sockets at once and added their pauses to every latency measured."""
    before, on_term = gc.get_threshold(), signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(sys, "argv", ["server_load.py", "--url", "http://127.0.0.1:9", "--games", "0"])
    try:
        server_load.main()  # no level: it tunes its process and prints an empty table
        assert gc.get_threshold()[0] == server_load.CLIENT_GC_THRESHOLD == Settings().gc_threshold
        assert gc.get_freeze_count() > 0
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
        signal.signal(signal.SIGTERM, on_term)
