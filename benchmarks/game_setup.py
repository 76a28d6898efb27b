"""What starting and ending a game costs `throne serve`: server CPU per game, whatever its number of moves.

In `server_load.py` finished games are replaced, and Leaders games between random players last about 120
plies, so this cost is spread over every move of the load benchmark. Here each game is only its set-up and
its end: a table made by one new guest and joined by another over HTTP, both seats' sockets greeted (welcome,
chat history, first state), the first seat resigns, both see the final state and leave. `--concurrency`
games are played at a time by scripted clients in this process, `--games` are measured after a warm-up.

    python benchmarks/game_setup.py --games 600 --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import orjson
from server_load import Level, _children, _cpu_of, _new_game, cpu_seconds, start_server
from websockets.asyncio.client import connect

LEADERS = Level("leaders", 2, 1)


async def one_game(http: httpx.AsyncClient, ws_base: str) -> None:
    """One game set up, resigned at once by its first seat, and left by both."""
    game_id, tokens = await _new_game(LEADERS, http)

    async def seat(token: str, resigns: bool) -> None:
        async with connect(f"{ws_base}/ws/games/{game_id}", compression=None) as ws:
            await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
            while True:
                msg = orjson.loads(await ws.recv())
                if msg["type"] == "error":
                    raise RuntimeError(f"game {game_id}: {msg}")
                if msg["type"] != "state":
                    continue
                if msg["status"] != "live":
                    return
                if resigns:
                    await ws.send(orjson.dumps({"type": "resign"}).decode())
                    resigns = False

    await asyncio.gather(seat(tokens[0], True), seat(tokens[1], False))


async def measure(base: str, pid: int | None, games: int, concurrency: int) -> dict[str, float]:
    """Plays `games` games, `concurrency` at a time (after a warm-up of as many); server and client CPU
    milliseconds per game (the server's: its own process and its children, and of that its children's, the
    store processes) and games per second."""
    ws_base = base.replace("http", "ws", 1)
    clients = [httpx.AsyncClient(base_url=base, timeout=60) for _ in range(concurrency)]

    async def play(rounds: int) -> None:
        async def table(http: httpx.AsyncClient) -> None:
            for _ in range(rounds):
                await one_game(http, ws_base)

        await asyncio.gather(*(table(http) for http in clients))

    try:
        await play(1)
        rounds = max(1, games // concurrency)
        kids = [] if pid is None else _children(pid)  # started by the warm-up's calls
        started, cpu, client = time.perf_counter(), cpu_seconds(pid), time.process_time()
        store = sum(map(_cpu_of, kids))
        await play(rounds)
        elapsed, played = time.perf_counter() - started, rounds * concurrency
        return {
            "games_per_s": played / elapsed,
            "server_cpu_ms_per_game": 1000 * (cpu_seconds(pid) - cpu) / played,
            "store_cpu_ms_per_game": 1000 * (sum(map(_cpu_of, kids)) - store) / played,
            "client_cpu_ms_per_game": 1000 * (time.process_time() - client) / played,
        }
    finally:
        for http in clients:
            await http.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=600, help="games measured per run")
    parser.add_argument("--concurrency", type=int, default=8, help="games played at a time")
    parser.add_argument("--runs", type=int, default=3, help="runs, each on a fresh server (medians)")
    args = parser.parse_args()
    rows = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as data_dir:
            proc, base = start_server(Path(data_dir))
            try:
                rows.append(asyncio.run(measure(base, proc.pid, args.games, args.concurrency)))
            finally:
                proc.terminate()
                proc.wait(10)
    print("| games/s | server CPU ms/game | of which store processes | client CPU ms/game | runs |")
    print("|---:|---:|---:|---:|---:|")
    medians = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    print(
        f"| {medians['games_per_s']:.0f} | {medians['server_cpu_ms_per_game']:.2f} "
        f"| {medians['store_cpu_ms_per_game']:.2f} | {medians['client_cpu_ms_per_game']:.2f} | {len(rows)} |"
    )


if __name__ == "__main__":
    main()
