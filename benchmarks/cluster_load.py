"""Cluster load check: the clients of `server_load.py` against 1, 2 and 3 `throne serve --redis` nodes behind
HAProxy (`throne cluster`: PostgreSQL, Redis, nodes and balancer on this machine), and in the same run the
relay anchor and one plain `throne serve` (SQLite, no Redis) at the same level.

The balancer spreads every socket round robin, so the two players of a game usually sit on different nodes:
a move then travels client → node → Redis → owner node → PostgreSQL → Redis → both nodes → clients. On one
machine the nodes, PostgreSQL, Redis, HAProxy and the clients share its cores: the figures show what a
node costs and how the path scales, not the throughput of machines of their own.

    python benchmarks/cluster_load.py --games 100 --nodes 1,2,3 --seconds 10 --warmup 3
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import server_load  # noqa: E402
from server_load import (  # noqa: E402
    CLIENT_GC_THRESHOLD,
    LOAD_ENV,
    Level,
    run_level,
    start_anchor,
    start_server,
)

from throne.server.cluster.local import LocalCluster, free_port  # noqa: E402
from throne.server.run import tune_gc  # noqa: E402


def _row(name: str, level: Level, r: dict[str, float], cpu_ms: float | None = None) -> str:
    cpu = f"{cpu_ms:.2f}" if cpu_ms is not None else f"{r['cpu_ms_per_move']:.2f}"
    codes = r.get("error_codes") or {}
    errors = f"{r['errors']}" + (f" ({', '.join(f'{k} {v}' for k, v in codes.items())})" if codes else "")
    return (
        f"| {name} | {level.game} ({level.players}p) | {level.games} | {r['moves_per_s']:.0f} "
        f"| {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | {errors} | {cpu} |"
    )


def _measure_cluster(
    nodes: int, level: Level, seconds: float, warmup: float, settle: float
) -> tuple[dict[str, float], float]:
    """One cluster of `nodes` nodes, measured through its balancer; returns the result and the nodes' CPU
    milliseconds per move (all nodes together)."""
    root = Path(tempfile.mkdtemp(prefix=f"throne-cluster-{nodes}-"))
    cluster = LocalCluster(root, nodes, free_port())
    cluster.start(env=LOAD_ENV)
    try:
        pids = [proc.pid for name, proc in cluster.procs if name.startswith("node")]
        original = server_load.cpu_seconds
        # run_level reads one process's CPU time over the measured window: here, all the nodes' together
        server_load.cpu_seconds = lambda pid: sum(original(p) for p in pids) if pid == -1 else original(pid)
        try:
            r = asyncio.run(run_level(f"http://127.0.0.1:{cluster.port}", level, seconds, warmup, -1, settle))
        finally:
            server_load.cpu_seconds = original
        return r, r["cpu_ms_per_move"]
    finally:
        cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="concurrent Leaders games")
    parser.add_argument("--hidden", type=int, default=0, help="also: 4-player Hidden Leaders games")
    parser.add_argument("--nodes", default="1,2,3", help="comma-separated cluster sizes")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per configuration")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds played before measuring")
    server_load.add_settle_option(parser)
    args = parser.parse_args()
    tune_gc(CLIENT_GC_THRESHOLD)  # the clients collect garbage as in server_load.py
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped benchmark stops its clusters too
    levels = [Level("leaders", 2, args.games)] if args.games else []
    if args.hidden:
        levels.append(Level("hidden-leaders", 4, args.hidden))
    rows = []
    for level in levels:
        anchor, base = start_anchor()
        try:
            r = asyncio.run(run_level(base, level, args.seconds, args.warmup, anchor.pid, args.settle))
            rows.append(_row("anchor (relay)", level, r))
            print(rows[-1], file=sys.stderr, flush=True)
        finally:
            anchor.terminate()
            anchor.wait(30)
        single, base = start_server(Path(tempfile.mkdtemp(prefix="throne-load-")))
        try:
            r = asyncio.run(run_level(base, level, args.seconds, args.warmup, single.pid, args.settle))
            rows.append(_row("throne serve (SQLite, no Redis)", level, r))
            print(rows[-1], file=sys.stderr, flush=True)
        finally:
            single.terminate()
            single.wait(30)
        for n in (int(x) for x in args.nodes.split(",") if x):
            r, cpu = _measure_cluster(n, level, args.seconds, args.warmup, args.settle)
            rows.append(_row(f"cluster: {n} node{'s' if n > 1 else ''} + HAProxy", level, r, cpu))
            print(rows[-1], file=sys.stderr, flush=True)
    print(
        f"\n{args.seconds:g} s measured per configuration:\n\n"
        "| server | game | concurrent games | moves/s | p50 latency (ms) | p95 latency (ms) | errors "
        "| server CPU ms/move |\n|---|---|---:|---:|---:|---:|---:|---:|"
    )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
