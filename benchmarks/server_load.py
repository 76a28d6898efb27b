"""Server load check: N concurrent live games between scripted WebSocket clients on loopback, against
`throne serve` and, in the same run with the same clients, against two anchors without database: the relay
(`relay_anchor.py`: a minimal FastAPI WebSocket relay of moves, no engine: it measures mostly the clients)
and the game anchor (`game_anchor.py`: a minimal FastAPI WebSocket game server that plays every move on the
engine and sends every seat its view).

Each client answers every state that asks it to move with a random move from the state's `legal_moves`; the
latency of a move is the time from sending it to receiving the resulting state on the same socket (`throne
serve` validates, commits to the database, then broadcasts every seat its view). All N games are set up first
(not measured); finished games are replaced, so N games stay live for the whole measured window. Since every
table starts its first game at once, the measure begins only after `--warmup` seconds and once the tables have
replaced `--settle` games each on average (by then games of every age are being played and replaced, as on a
server that has run for a while; measured sooner, a large level's window held few game ends and only the early
plies of its games). The clients run in this one process, on the same machine as the servers. Every level is
measured `--runs` times, the relay, the game anchor and `throne serve` one after the other each time; the
table shows medians, and `throne serve`'s moves/s as a multiple of each anchor's in the same run ("× relay",
"× game anchor"; a clocked level is compared with the anchors' unclocked level).

    python benchmarks/server_load.py --games 10,100,500 --hidden 25 --seconds 20 --runs 3 --clock 5+3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from throne.server.run import tune_gc

HERE = Path(__file__).resolve().parent
# Seconds without any message on a live game's socket: a stalled game. Every seat answers at once, so a quiet
# socket means a state that never came; it is counted as an error ("stalled") and the table plays on.
STALL_AFTER = 5.0
ANCHORS = {"relay": "relay_anchor.py", "game anchor": "game_anchor.py"}  # measured in this order
# The servers under load: one client address opens every game, so the per-address abuse limits would stop the
# measurement (finished games are replaced many at once); scripted clients answer far faster than people.
LOAD_ENV = {
    "THRONE_ABANDON_TIMEOUT": "3600",
    "THRONE_RATE_LIMITS": "off",
    "THRONE_MAX_SOCKETS_PER_IP": "100000",
    "THRONE_MAX_OPEN_TABLES_PER_IP": "100000",
    "THRONE_MAX_BOT_GAMES_PER_IP": "100000",
    "THRONE_WS_RATE_PER_S": "1000",
}
CLIENT_GC_THRESHOLD = 50_000  # as Settings.gc_threshold, the server's default
SETTLE_MAX = 180.0  # seconds a level waits at most for its tables to replace their games before measuring


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_up(proc: subprocess.Popen, base: str) -> None:
    for _ in range(600):
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the server at {base} did not start")


def start_server(data_dir: Path) -> tuple[subprocess.Popen, str]:
    """`throne serve` on a free port with a temp data directory; waits until it answers."""
    port = free_port()
    env = {**os.environ, **LOAD_ENV}
    log = open(data_dir / "server.log", "wb")  # noqa: SIM115 - kept open for the server's lifetime
    cmd = [sys.executable, "-m", "throne.cli", "serve", "--port", str(port), "--data-dir", str(data_dir)]
    cmd += ["--log-level", "warning"]
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    _wait_up(proc, base)
    return proc, base


def start_anchor(script: str = ANCHORS["relay"]) -> tuple[subprocess.Popen, str]:
    """An anchor (a script of this folder; the relay by default) on a free port."""
    port = free_port()
    cmd = [sys.executable, str(HERE / script), "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    _wait_up(proc, base)
    return proc, base


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    games: int = 0
    ended: int = 0  # games that ended, measured or not
    errors: int = 0
    codes: dict[str, int] = field(default_factory=dict)  # how many errors of each code

    def error(self, code: str) -> None:
        self.errors += 1
        self.codes[code] = self.codes.get(code, 0) + 1


@dataclass(frozen=True)
class Level:
    """One measured configuration: which game, how many seats, how many concurrent games, which clock, and
    whether the server's bots play every seat but one (`bot`: their name; one scripted client per game)."""

    game: str
    players: int
    games: int
    clock: tuple[int, int] | None = None  # a Fischer clock: (minutes, increment in seconds)
    bot: str | None = None

    @property
    def label(self) -> str:
        bots = f", {self.players - 1} {self.bot} bots" if self.bot else ""
        return f"{self.game} ({self.players}p{bots})"

    @property
    def time_control(self) -> dict | None:
        if self.clock is None:
            return None
        return {"kind": "fischer", "minutes": self.clock[0], "increment": self.clock[1]}


async def _new_game(level: Level, c: httpx.AsyncClient) -> tuple[int, list[str]]:
    """A started game: one new guest makes the table, one new guest per other seat joins it, or the server's
    bots take them (`c`: the table's HTTP client, kept from game to game; its cookies are cleared for each
    guest)."""
    c.cookies.clear()
    if level.bot is not None:
        body = {"game": level.game, "bot": level.bot, "players": level.players, "name": "Load 0"}
        r = await _post(c, "/api/play-bot", {**body, "time_control": level.time_control})
        return r.json()["game"]["id"], [r.json()["token"]]
    body = {
        "game": level.game,
        "players": level.players,
        "name": "Load 0",
        "time_control": level.time_control,
    }
    r = await _post(c, "/api/games", body)
    game_id = r.json()["game"]["id"]
    tokens = [r.json()["token"]]
    for n in range(1, level.players):
        c.cookies.clear()
        r = await _post(c, f"/api/games/{game_id}/join", {"name": f"Load {n}"})
        tokens.append(r.json()["token"])
    return game_id, tokens


async def _post(c: httpx.AsyncClient, url: str, body: dict) -> httpx.Response:
    """POST, tried again when a kept-alive connection was closed by the server meanwhile, or when the cap on
    open tables per address (429) refused it while many tables were being replaced at once."""
    for attempt in range(50):
        try:
            r = await c.post(url, json=body)
        except httpx.TransportError:
            if attempt == 49:
                raise
            continue
        if r.status_code != 429:
            break
        await asyncio.sleep(0.2)
    r.raise_for_status()
    return r


async def _player(
    ws_base: str,
    game_id: int,
    token: str,
    rng: random.Random,
    stats: Stats,
    stop: list[float],
    measuring: list[bool],
    stall_after: float = STALL_AFTER,
    every_ply: bool = False,
) -> None:
    """One seat: plays random legal moves until its game ends or the stop time; a dropped connection or a
    game that stalls is counted as an error, and the table goes on with a new game. It counts its own moves,
    or with `every_ply` every move it sees played (the other seats are the server's bots)."""
    # A generous opening timeout: 500 tables open 1,000 sockets at once at the start.
    url = f"{ws_base}/ws/games/{game_id}"
    try:
        async with connect(url, max_size=2**22, compression=None, open_timeout=60) as ws:
            await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
            sent_at: float | None = None
            ply_sent = -1
            ply_seen: int | None = None
            heard = time.monotonic()
            while True:
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    if time.monotonic() > stop[0]:  # the others left at the stop time
                        return
                    if time.monotonic() - heard > stall_after:
                        stats.error("stalled")
                        return
                    continue
                heard = time.monotonic()
                msg = orjson.loads(raw)
                if msg["type"] == "error":
                    stats.error(msg.get("code", "?"))
                    continue
                if msg["type"] != "state":
                    continue
                if sent_at is not None and msg["ply"] > ply_sent:
                    if measuring[0]:
                        stats.latencies.append(time.perf_counter() - sent_at)
                        stats.moves += not every_ply
                    sent_at = None
                if every_ply and ply_seen is not None and measuring[0]:
                    stats.moves += max(0, msg["ply"] - ply_seen)
                ply_seen = msg["ply"] if ply_seen is None else max(ply_seen, msg["ply"])
                if msg["status"] != "live" or time.monotonic() > stop[0]:
                    return
                if msg["your_turn"] and sent_at is None:
                    sent_at, ply_sent = time.perf_counter(), msg["ply"]
                    move = {"type": "move", "move": rng.choice(msg["legal_moves"]), "ply": msg["ply"]}
                    await ws.send(orjson.dumps(move).decode())
    except (OSError, TimeoutError, ConnectionClosed) as exc:
        stats.error(type(exc).__name__)


async def _table(
    http: httpx.AsyncClient,
    ws_base: str,
    level: Level,
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
        every_ply = level.bot is not None
        await asyncio.gather(
            *(_player(ws_base, game_id, t, rng, stats, stop, measuring, every_ply=every_ply) for t in tokens)
        )
        stats.ended += 1
        if measuring[0]:
            stats.games += 1
        if time.monotonic() > stop[0]:
            return
        game = await _new_game(level, http)


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds so far of a process and of its children still running (`throne serve`'s
    store process, its bots' workers); 0 when unknown (a server given by --url)."""
    if pid is None:
        return 0.0
    return sum(_cpu_of(p) for p in (pid, *_children(pid)))


def _cpu_of(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            continue
    return kids


async def settled(stats: Stats, games: float, limit: float = SETTLE_MAX) -> float:
    """Waits until `games` games have ended (at most `limit` seconds); the seconds it waited."""
    started = time.monotonic()
    while stats.ended < games and time.monotonic() - started < limit:
        await asyncio.sleep(0.1)
    return time.monotonic() - started


def add_settle_option(parser: argparse.ArgumentParser) -> None:
    """`--settle` (default 1): a level is measured once its tables replaced that many games on average."""
    parser.add_argument(
        "--settle",
        type=float,
        default=1.0,
        help="games each table replaces on average before measuring (0: measure after --warmup)",
    )


async def run_level(
    base: str, level: Level, seconds: float, warmup: float, pid: int | None = None, settle: float = 0.0
) -> dict[str, float]:
    """Sets up the level's games first (not measured), plays `warmup` seconds and until its tables have
    replaced `settle` games each on average, then measures `seconds`."""
    ws_base = base.replace("http", "ws", 1)
    stats = Stats()
    measuring = [False]
    stop = [float("inf")]
    gate = asyncio.Semaphore(8)  # fewer open tables at once than the per-address cap (10)

    clients = [httpx.AsyncClient(base_url=base, timeout=60) for _ in range(level.games)]

    async def create(http: httpx.AsyncClient) -> tuple[int, list[str]]:
        async with gate:
            return await _new_game(level, http)

    firsts = await asyncio.gather(*(create(http) for http in clients))
    tasks = [
        asyncio.create_task(_table(http, ws_base, level, first, i, stats, stop, measuring))
        for i, (http, first) in enumerate(zip(clients, firsts, strict=True))
    ]
    await asyncio.sleep(warmup)
    settling = await settled(stats, settle * level.games)
    measuring[0] = True
    started, cpu_started, client_started = time.perf_counter(), cpu_seconds(pid), time.process_time()
    stop[0] = time.monotonic() + seconds
    await asyncio.sleep(seconds)
    measuring[0] = False
    elapsed, cpu = time.perf_counter() - started, cpu_seconds(pid) - cpu_started
    client_cpu = time.process_time() - client_started
    moves, lat = stats.moves, sorted(stats.latencies) or [float("nan")]
    await asyncio.gather(*tasks)
    for http in clients:
        await http.aclose()
    return {
        "moves_per_s": moves / elapsed,
        "warmup_s": warmup + settling,
        "p50_ms": 1000 * statistics.median(lat),
        "p95_ms": 1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))],
        "moves": moves,
        "games_ended": stats.games,  # in the measured window: each replaced by a new game's set-up
        "errors": stats.errors,
        "error_codes": stats.codes,  # type: ignore[dict-item]
        # the server's CPU time per move: what a move costs it, whatever else the shared machine runs
        "cpu_ms_per_move": 1000 * cpu / moves if moves else float("nan"),
        # the scripted clients' CPU time per move (this process): they share the machine with the server
        "client_cpu_ms_per_move": 1000 * client_cpu / moves if moves else float("nan"),
    }


def _median(rows: list[dict[str, float]], key: str) -> float:
    """The median over the runs that measured something (a run with no move has no latency)."""
    values = [r[key] for r in rows if r[key] == r[key]]  # NaN != NaN
    return statistics.median(values) if values else float("nan")


def _counts(text: str) -> list[int]:
    """The numbers of games of a comma-separated list, zeros left out ("0" measures nothing)."""
    return [n for n in (int(x) for x in text.split(",") if x.strip()) if n > 0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", default="10,100,500", help="comma-separated numbers of concurrent Leaders games"
    )
    parser.add_argument(
        "--hidden", default="", help="comma-separated numbers of concurrent 4-player Hidden Leaders games"
    )
    parser.add_argument(
        "--hidden-bots",
        default="",
        help="comma-separated numbers of concurrent 4-player Hidden Leaders games of one scripted player and "
        "three of the server's bots (--bot)",
    )
    parser.add_argument("--bot", default="random", help="the server's bot in the --hidden-bots games")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per level")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds played before measuring")
    add_settle_option(parser)
    parser.add_argument("--runs", type=int, default=1, help="repetitions of every level (medians reported)")
    parser.add_argument(
        "--clock",
        default=None,
        help='also measure every Leaders level with a Fischer clock "minutes+increment"',
    )
    parser.add_argument(
        "--clock-games", default=None, help="the levels measured with --clock (default: --games)"
    )
    parser.add_argument("--no-anchor", action="store_true", help="measure `throne serve` only")
    parser.add_argument(
        "--url", default=None, help="an already running server (default: start `throne serve`)"
    )
    args = parser.parse_args()
    # The clients collect garbage as `throne serve` does: with the interpreter's default this one process,
    # which plays every seat of every game, spent about a sixth of its time in collections at 500 games and
    # paused all its sockets at once, up to 0.3 s (docs/BENCHMARKS.md): latency no player's client adds.
    tune_gc(CLIENT_GC_THRESHOLD)
    levels: list[Level] = [Level("leaders", 2, n) for n in _counts(args.games)]
    if args.clock:
        minutes, increment = (int(x) for x in args.clock.split("+"))
        control = (minutes, increment)
        clocked = args.clock_games or args.games
        levels += [Level("leaders", 2, n, control) for n in _counts(clocked)]
    levels += [Level("hidden-leaders", 4, n) for n in _counts(args.hidden)]
    levels += [Level("hidden-leaders", 4, n, bot=args.bot) for n in _counts(args.hidden_bots)]
    procs: list[subprocess.Popen] = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped benchmark stops its servers too
    try:
        servers: dict[str, tuple[str, int | None]] = {}  # name: (base URL, pid), anchors first
        for name, script in {} if args.no_anchor else ANCHORS.items():
            proc, url = start_anchor(script)
            procs.append(proc)
            servers[name] = (url, proc.pid)
        if args.url:
            servers["throne serve"] = (args.url.rstrip("/"), None)
        else:
            proc, url = start_server(Path(tempfile.mkdtemp(prefix="throne-load-")))
            procs.append(proc)
            servers["throne serve"] = (url, proc.pid)
        results: dict[tuple[str, Level], list[dict[str, float]]] = {}
        for run in range(args.runs):
            for level in levels:
                for name, (url, pid) in servers.items():
                    if name in ANCHORS and (level.time_control is not None or level.bot is not None):
                        continue  # the anchors have no clocks and no bots
                    r = asyncio.run(run_level(url, level, args.seconds, args.warmup, pid, args.settle))
                    results.setdefault((name, level), []).append(r)
                    print(
                        f"run {run + 1} {name} {level.label} x{level.games}"
                        f"{' clock' if level.time_control else ''}: {r['moves_per_s']:.0f} moves/s, "
                        f"p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, {r['errors']} errors, "
                        f"server CPU {r['cpu_ms_per_move']:.2f} ms/move, "
                        f"client CPU {r['client_cpu_ms_per_move']:.2f} ms/move, "
                        f"{r['games_ended']} games ended, measured after {r['warmup_s']:.0f} s of play",
                        file=sys.stderr,
                        flush=True,
                    )
        header = ["server", "game", "clock", "concurrent games", "moves/s", "p50 latency (ms)"]
        header += ["p95 latency (ms)", "errors", *(f"× {a}" for a in ANCHORS), "server CPU ms/move"]
        header += ["client CPU ms/move"]
        print(f"\nMedians of {args.runs} run(s) of {args.seconds:g} s each:\n")
        print(f"| {' | '.join(header)} |\n|---|---|---|{'---:|' * (len(header) - 3)}")
        for (name, level), rows in results.items():
            same = Level(level.game, level.players, level.games)  # the anchors ran it unclocked (no bots)
            mps = _median(rows, "moves_per_s")
            ratios = []
            for anchor in ANCHORS:
                compared = name not in ANCHORS and level.bot is None
                anchor_rows = results.get((anchor, same)) if compared else None
                anchor_mps = _median(anchor_rows, "moves_per_s") if anchor_rows else 0
                ratios.append(f"{mps / anchor_mps:.2f}" if anchor_mps else "")
            cells = [
                name,
                level.label,
                args.clock if level.time_control else "—",
                level.games,
                f"{mps:.0f}",
                f"{_median(rows, 'p50_ms'):.1f}",
                f"{_median(rows, 'p95_ms'):.1f}",
                sum(r["errors"] for r in rows),
                *ratios,
                f"{_median(rows, 'cpu_ms_per_move'):.2f}",
                f"{_median(rows, 'client_cpu_ms_per_move'):.2f}",
            ]
            print(f"| {' | '.join(map(str, cells))} |")
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
