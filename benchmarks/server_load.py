"""Server load check: N concurrent live Leaders games, two scripted WebSocket clients each, on loopback.

Each client answers every state that asks it to move with a random move from the state's `legal_moves`;
the latency of a move is the time from sending it to receiving the resulting state on the same socket
(the server validates, commits to the database, then broadcasts). All N games are set up first (not
measured); finished games are replaced, so N games stay live for the whole measured window. The clients run
in this one process, on the same machine as the server.

    python benchmarks/server_load.py --games 10,100,500 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from websockets.asyncio.client import connect


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data_dir: Path) -> tuple[subprocess.Popen, str]:
    """`throne serve` on a free port with a temp data directory; waits until it answers."""
    port = free_port()
    # One client address opens every game: the per-address abuse limits would stop the measurement.
    env = {
        **os.environ,
        "THRONE_ABANDON_TIMEOUT": "3600",
        "THRONE_RATE_LIMITS": "off",
        "THRONE_MAX_SOCKETS_PER_IP": "100000",
    }
    log = open(data_dir / "server.log", "wb")  # noqa: SIM115 - kept open for the server's lifetime
    cmd = [sys.executable, "-m", "throne.cli", "serve", "--port", str(port), "--data-dir", str(data_dir)]
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    games: int = 0
    errors: int = 0


TIME_CONTROL: dict | None = None  # --clock: every game runs a Fischer clock


async def _new_game(base: str) -> tuple[int, list[str]]:
    tokens = []
    async with httpx.AsyncClient(base_url=base, timeout=60) as c:
        body = {"game": "leaders", "name": "Load A", "time_control": TIME_CONTROL}
        r = await c.post("/api/games", json=body)
        r.raise_for_status()
        game_id = r.json()["game"]["id"]
        tokens.append(r.json()["token"])
        c.cookies.clear()
        r = await c.post(f"/api/games/{game_id}/join", json={"name": "Load B"})
        r.raise_for_status()
        tokens.append(r.json()["token"])
    return game_id, tokens


async def _player(
    ws_base: str,
    game_id: int,
    token: str,
    rng: random.Random,
    stats: Stats,
    stop: list[float],
    measuring: list[bool],
) -> None:
    async with connect(f"{ws_base}/ws/games/{game_id}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_at: float | None = None
        while True:
            try:
                raw = await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                if time.monotonic() > stop[0]:  # the opponent left at the stop time
                    return
                continue
            msg = json.loads(raw)
            if msg["type"] == "error":
                stats.errors += 1
                continue
            if msg["type"] != "state":
                continue
            if sent_at is not None:
                if measuring[0]:
                    stats.latencies.append(time.perf_counter() - sent_at)
                    stats.moves += 1
                sent_at = None
            if msg["status"] != "live" or time.monotonic() > stop[0]:
                return
            if msg["your_turn"]:
                sent_at = time.perf_counter()
                await ws.send(
                    json.dumps({"type": "move", "move": rng.choice(msg["legal_moves"]), "ply": msg["ply"]})
                )


async def _table(
    base: str,
    ws_base: str,
    first: tuple[int, list[str]],
    seed: int,
    stats: Stats,
    stop: list[float],
    measuring: list[bool],
) -> None:
    """Plays `first`, then new games, until the stop time."""
    rng = random.Random(seed)
    game = first
    while True:
        game_id, tokens = game
        await asyncio.gather(*(_player(ws_base, game_id, t, rng, stats, stop, measuring) for t in tokens))
        if measuring[0]:
            stats.games += 1
        if time.monotonic() > stop[0]:
            return
        game = await _new_game(base)


async def run_level(base: str, ws_base: str, games: int, seconds: float, warmup: float) -> dict[str, float]:
    """Sets up `games` games first (not measured), plays `warmup` seconds, then measures `seconds`."""
    stats = Stats()
    measuring = [False]
    stop = [float("inf")]
    gate = asyncio.Semaphore(8)  # fewer open tables at once than the per-address cap (10)

    async def create() -> tuple[int, list[str]]:
        async with gate:
            return await _new_game(base)

    firsts = await asyncio.gather(*(create() for _ in range(games)))
    tasks = [
        asyncio.create_task(_table(base, ws_base, first, i, stats, stop, measuring))
        for i, first in enumerate(firsts)
    ]
    await asyncio.sleep(warmup)
    measuring[0] = True
    started = time.perf_counter()
    stop[0] = time.monotonic() + seconds
    await asyncio.sleep(seconds)
    measuring[0] = False
    elapsed = time.perf_counter() - started
    moves, lat = stats.moves, sorted(stats.latencies) or [float("nan")]
    await asyncio.gather(*tasks)
    return {
        "games": games,
        "moves_per_s": moves / elapsed,
        "p50_ms": 1000 * statistics.median(lat),
        "p95_ms": 1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))],
        "moves": moves,
        "finished_games": stats.games,
        "errors": stats.errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="10,100,500", help="comma-separated numbers of concurrent games")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per level")
    parser.add_argument(
        "--warmup", type=float, default=5.0, help="seconds before measuring (games being set up)"
    )
    parser.add_argument(
        "--url", default=None, help="an already running server (default: start `throne serve`)"
    )
    parser.add_argument(
        "--clock", default=None, help='a Fischer clock on every game, "minutes+increment" (e.g. 5+3)'
    )
    args = parser.parse_args()
    if args.clock:
        global TIME_CONTROL
        minutes, increment = (int(x) for x in args.clock.split("+"))
        TIME_CONTROL = {"kind": "fischer", "minutes": minutes, "increment": increment}
    server = None
    if args.url:
        base = args.url.rstrip("/")
    else:
        server, base = start_server(Path(tempfile.mkdtemp(prefix="throne-load-")))
    ws_base = base.replace("http", "ws", 1)
    try:
        print("| concurrent games | moves/s | p50 latency (ms) | p95 latency (ms) | moves | errors |")
        print("|---:|---:|---:|---:|---:|---:|")
        for games in (int(x) for x in args.games.split(",")):
            r = asyncio.run(run_level(base, ws_base, games, args.seconds, args.warmup))
            print(
                f"| {games} | {r['moves_per_s']:.0f} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | {r['moves']} "
                f"| {r['errors']} |",
                flush=True,
            )
    finally:
        if server is not None:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
