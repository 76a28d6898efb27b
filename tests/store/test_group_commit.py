"""Repo.append_moves: several games' moves in one transaction, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from tests.store.test_repo import _fill, _table
from throne.store import Repo
from throne.store.repo import NewMove, StalePly


def _live(repo: Repo) -> int:
    game_id = _table(repo, players=2)
    _fill(repo, game_id, 2)
    repo.start_game(game_id, seed=1, order=[0, 1])
    return game_id


def test_moves_of_several_games_commit_in_one_transaction(repo: Repo) -> None:
    games = [_live(repo) for _ in range(3)]
    commits = []
    event.listen(repo.db.engine, "commit", lambda _conn: commits.append(1))
    answers = repo.append_moves([NewMove(g, 0, 0, f"m{g}", clock={"at": g}) for g in games])
    assert answers == [None, None, None]
    assert len(commits) == 1
    for g in games:
        assert repo.moves(g) == [(0, f"m{g}")]
        assert repo.get_game(g).ply == 1 and repo.get_game(g).clock == {"at": g}


def test_a_stale_move_is_left_out_alone(repo: Repo) -> None:
    a, b, c = (_live(repo) for _ in range(3))
    repo.append_move(b, 0, 0, "first")
    answers = repo.append_moves(
        [NewMove(a, 0, 0, "x"), NewMove(b, 0, 0, "dup"), NewMove(c, 0, 0, "y", result={"winner": 0})]
    )
    assert answers[0] is None and isinstance(answers[1], StalePly) and answers[2] is None
    assert repo.moves(a) == [(0, "x")] and repo.moves(b) == [(0, "first")] and repo.moves(c) == [(0, "y")]
    assert repo.get_game(b).ply == 1
    assert (repo.get_game(c).status, repo.get_game(c).result) == ("finished", {"winner": 0})


def test_groups_of_one_shape_reuse_its_statements_with_their_own_values(repo: Repo) -> None:
    """The statements are compiled once per group size: a second group of the same size, mixing timed and
    untimed, fenced and unfenced, stored and stale moves, still writes exactly its own values."""
    a, b, c = (_live(repo) for _ in range(3))
    first = [NewMove(g, 0, 0, f"first{g}", clock={"at": g}) for g in (a, b, c)]
    assert repo.append_moves(first) == [None] * 3
    assert repo.fence_game(c, 5) is True
    answers = repo.append_moves(
        [
            NewMove(a, 1, 1, "timed", clock={"at": "a1"}, fence=7),
            NewMove(b, 1, 1, "untimed"),  # no token: only another node's claim could make it stale
            NewMove(c, 1, 1, "old owner", clock={"at": "c1"}, fence=4),
        ]
    )
    assert answers[:2] == [None, None] and isinstance(answers[2], StalePly)
    assert repo.moves(a) == [(0, f"first{a}"), (1, "timed")] and repo.get_game(a).clock == {"at": "a1"}
    assert repo.moves(b) == [(0, f"first{b}"), (1, "untimed")] and repo.get_game(b).clock == {"at": b}
    assert repo.moves(c) == [(0, f"first{c}")] and repo.get_game(c).clock == {"at": c}
    assert [repo.get_game(g).ply for g in (a, b, c)] == [2, 2, 1]


def test_a_failing_group_stores_none_of_its_moves(repo: Repo) -> None:
    a, b = _live(repo), _live(repo)

    def failing_hook(session, info) -> None:
        raise RuntimeError("rating failed")

    with pytest.raises(RuntimeError):
        repo.append_moves(
            [NewMove(a, 0, 0, "x"), NewMove(b, 0, 0, "last", result={"w": 1}, rate=failing_hook)]
        )
    for g in (a, b):
        info = repo.get_game(g)
        assert (info.status, info.ply, repo.moves(g)) == ("live", 0, [])


@pytest.mark.parametrize("group", [1, 3], ids=["alone", "in-a-group"])
def test_a_move_of_an_owner_with_an_older_fencing_token_is_stale(repo: Repo, group: int) -> None:
    """A cluster node that claimed a game stores its token; the previous owner's moves are then refused."""
    games = [_live(repo) for _ in range(group)]
    fenced = games[0]
    assert repo.fence_game(fenced, 2) is True
    assert repo.fence_game(fenced, 1) is False  # a claim older than the stored one is the stale one
    answers = repo.append_moves([NewMove(g, 0, 0, "old", fence=1) for g in games])
    assert isinstance(answers[0], StalePly) and answers[1:] == [None] * (group - 1)
    assert repo.moves(fenced) == [] and repo.get_game(fenced).ply == 0
    assert repo.append_moves([NewMove(fenced, 0, 0, "new", fence=2)]) == [None]
    assert repo.moves(fenced) == [(0, "new")]


def test_an_ending_or_a_takeback_by_an_owner_with_an_older_fencing_token_is_stale(repo: Repo) -> None:
    game = _live(repo)
    assert repo.append_moves([NewMove(game, 0, 0, "a", fence=3)]) == [None]
    assert repo.fence_game(game, 4) is True  # another node claimed the game
    with pytest.raises(StalePly):
        repo.take_back(game, 1, 0, fence=3)
    with pytest.raises(StalePly):
        repo.finish_game(game, 1, {"winner": 0}, fence=3)
    assert repo.moves(game) == [(0, "a")] and repo.get_game(game).status == "live"
    repo.finish_game(game, 1, {"winner": 0}, fence=4)
    assert repo.get_game(game).status == "finished"


def test_a_take_over_a_reclaim_or_a_clock_by_an_older_owner_is_stale(repo: Repo) -> None:
    game = _live(repo)
    assert repo.fence_game(game, 4) is True  # another node claimed the game
    with pytest.raises(StalePly):
        repo.takeover(game, 1, "easy", fence=3)
    assert repo.get_game(game).seat(1).kind == "human"
    assert repo.save_clock(game, 0, {"at": "old"}, fence=3) is False
    assert repo.get_game(game).clock != {"at": "old"}
    assert repo.takeover(game, 1, "easy", fence=4).seat(1).kind == "bot"
    with pytest.raises(StalePly):
        repo.reclaim(game, 1, fence=3)
    assert repo.get_game(game).seat(1).kind == "bot"
    assert repo.reclaim(game, 1, fence=4).seat(1).kind == "human"
    assert repo.save_clock(game, 0, {"at": "new"}, fence=4) is True
    assert repo.get_game(game).clock == {"at": "new"}


def test_groups_of_every_size_share_a_few_compiled_statements(repo: Repo) -> None:
    """Groups of 1 to 17 moves are written with updates of 1, 2, 4, 8, 16 and 32 rows (the spare rows repeat
    the last move) and a one-row insert, and each group still stores exactly its own moves."""
    games = [_live(repo) for _ in range(17)]
    for ply in range(17):
        size = ply + 1  # this round: one group of `size` games, one of the others
        moves = [NewMove(g, ply, 0, f"{g}.{ply}", clock={"at": ply} if g % 2 else None) for g in games]
        for group in (moves[:size], moves[size:]):
            if group:
                assert repo.append_moves(group) == [None] * len(group)
    shapes = repo.move_log.shapes()
    assert {kind for kind, _ in shapes} == {"advance", "clocks", "insert"}
    assert {rows for kind, rows in shapes if kind == "advance"} == {1, 2, 4, 8, 16, 32}
    assert [rows for kind, rows in shapes if kind == "insert"] == [1]
    for g in games:
        assert repo.moves(g) == [(0, f"{g}.{ply}") for ply in range(17)]
        assert repo.get_game(g).ply == 17
        assert repo.get_game(g).clock == ({"at": 16} if g % 2 else None)
