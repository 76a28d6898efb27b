"""The group commit's write alone: CPU time of `Repo.append_moves` per move, by group size, on SQLite.

Each group appends one move to each of N distinct live games in one transaction (what a busy server's group
commit does); rates are per CPU second of this process, medians of `--runs`. A range of sizes ("1-100") draws
each group's size at random from it, as a server's load does: that mix is what the shared statement shapes of
`throne.store.prepared` are for.

    python benchmarks/move_log.py --groups 1,10,40,1-100 --runs 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time

from throne.store.db import Database, default_sqlite_url
from throne.store.repo import NewMove, Repo, SeatSpec

CLOCK = {"kind": "fischer", "remaining": [300_000, 300_000], "running": 1, "since": 12_345}


def _live_games(repo: Repo, n: int) -> list[int]:
    ids = []
    for _ in range(n):
        seats = [SeatSpec(0, "bot", "a", bot="random"), SeatSpec(1, "bot", "b", bot="random")]
        info = repo.create_game(
            game="leaders", players=2, options={}, rated=False, private=False, invite=None, creator_id=None,
            seats=seats,
        )  # fmt: skip
        repo.start_game(info.id, 1, [0, 1])
        ids.append(info.id)
    return ids


def measure(sizes: tuple[int, int], timed: bool, groups: int) -> float:
    """µs of CPU per move appended in groups of `sizes[0]` to `sizes[1]` moves (drawn at random)."""
    with tempfile.TemporaryDirectory(prefix="throne-movelog-") as folder:
        return _measure(Repo(Database(default_sqlite_url(folder))), sizes, timed, groups)


def _measure(repo: Repo, sizes: tuple[int, int], timed: bool, groups: int) -> float:
    repo.db.upgrade()
    games = _live_games(repo, max(2 * sizes[1], 20))
    ply = dict.fromkeys(games, 0)
    rng = random.Random(1)
    moved = 0
    started = time.process_time()
    for _ in range(groups):
        chosen = rng.sample(games, rng.randint(*sizes))
        moved += len(chosen)
        moves = [NewMove(g, ply[g], ply[g] % 2, "a1-b2", clock=CLOCK if timed else None) for g in chosen]
        if any(repo.append_moves(moves)):
            raise RuntimeError("a move was refused as stale")
        for g in chosen:
            ply[g] += 1
    spent = time.process_time() - started
    repo.db.dispose()
    return 1e6 * spent / moved


def _sizes(text: str) -> tuple[int, int]:
    """A size or a range of sizes: 40 -> (40, 40); 1-100 -> (1, 100)."""
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", default="1,10,40,1-100", help="comma-separated group sizes or ranges")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--count", type=int, default=300, help="groups per run")
    args = parser.parse_args()
    print("| moves per group | clock | CPU µs per move |\n|---:|---|---:|")
    for size in args.groups.split(","):
        for timed in (False, True):
            rate = statistics.median(measure(_sizes(size), timed, args.count) for _ in range(args.runs))
            print(f"| {size} | {'yes' if timed else 'no'} | {rate:.1f} |")


if __name__ == "__main__":
    main()
