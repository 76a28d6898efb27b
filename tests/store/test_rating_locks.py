"""Rating updates under concurrency on PostgreSQL: two nodes' group commits, each ending several rated games
of players they share, both commit (one rating update at a time in the database), every game rated once."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import pytest

from tests.store.pg import PgCluster
from throne.server.ratings_store import rating_hook
from throne.store import Database, Repo
from throne.store.repo import NewMove, SeatSpec


@pytest.fixture
def pg_repo(pg_cluster: PgCluster) -> Iterator[Repo]:
    db = Database(pg_cluster.new_database(), busy_timeout=10.0)  # lock_timeout 10 s: only deadlocks fail
    db.upgrade()
    try:
        yield Repo(db)
    finally:
        db.dispose()


def _rated_leaders(repo: Repo, a: int, b: int, n: int) -> tuple[int, object]:
    seats = [
        SeatSpec(seat=i, kind="human", name=f"P{u}", user_id=u, token_hash=f"t{n}-{i}")
        for i, u in enumerate((a, b))
    ]
    info = repo.create_game(
        game="leaders",
        players=2,
        options={},
        rated=True,
        private=False,
        invite=None,
        creator_id=a,
        seats=seats,
    )
    info, _ = repo.start_game(info.id, seed=1, order=[0, 1])
    hook = rating_hook(info)
    assert hook is not None
    return info.id, hook


@pytest.mark.postgres
def test_two_group_commits_ending_rated_games_of_crossing_players_do_not_deadlock(pg_repo: Repo) -> None:
    """Two nodes' group commits (`Repo.append_moves`) each end two rated games in one transaction: node 1
    games of (u1, u5) then (u3, u6), node 2 games of (u3, u7) then (u1, u8), the second hook of each waiting
    until both groups rated their first game. Both groups commit, and u1 and u3 count two rated games. With
    each game's ratings locked in user order only, node 1 held u1 waiting for u3 while node 2 held u3 waiting
    for u1, and PostgreSQL aborted one group as a deadlock (all its moves refused)."""
    repo = pg_repo
    u = {i: repo.create_user(f"U{i}", f"user{i}", "h").id for i in range(1, 9)}
    plans = {
        "node1": [(u[1], u[5]), (u[3], u[6])],
        "node2": [(u[3], u[7]), (u[1], u[8])],
    }
    barrier = threading.Barrier(2, timeout=4)  # makes the crossing certain; with one lock, it times out
    errors: dict[str, BaseException] = {}
    groups = {}
    for n, (name, pairs) in enumerate(plans.items()):
        moves = []
        for k, (a, b) in enumerate(pairs):
            game_id, hook = _rated_leaders(repo, a, b, n * 10 + k)
            if k == 1:  # the second game's hook runs once both nodes locked their first game's ratings

                def late(s, info, hook=hook):  # type: ignore[no-untyped-def]
                    with contextlib.suppress(threading.BrokenBarrierError):
                        barrier.wait()
                    hook(s, info)

                hook = late
            moves.append(NewMove(game_id, 0, 0, "last", {"winner": 0}, hook, None))
        groups[name] = moves

    def commit(name: str) -> None:
        try:
            out = repo.append_moves(groups[name])
            assert out == [None, None], out
        except BaseException as exc:
            errors[name] = exc

    threads = [threading.Thread(target=commit, args=(name,)) for name in groups]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    assert not errors, {k: repr(v)[:300] for k, v in errors.items()}
    games = {r.user_id: r.games for r in (repo.rating(uid, "leaders") for uid in u.values()) if r is not None}
    assert games == {u[1]: 2, u[3]: 2, u[5]: 1, u[6]: 1, u[7]: 1, u[8]: 1}, games
