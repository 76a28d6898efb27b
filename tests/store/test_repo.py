"""The repository on SQLite and PostgreSQL: users, tables, seats, the append-only move log, ratings."""

from __future__ import annotations

import pickle

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from throne.store import Database, Repo
from throne.store.db import alembic_config
from throne.store.repo import (
    NotFound,
    NotOpen,
    RematchMade,
    SeatSpec,
    SeatTaken,
    StalePly,
    StoreError,
    TableFull,
    UsernameTaken,
    load_ratings,
    save_rating,
)


def _table(repo: Repo, players: int = 4, bots: dict[int, str] | None = None, **kw) -> int:
    creator = repo.create_user("Creator")
    seats = [SeatSpec(seat=p, kind="bot", name=b, bot=b) for p, b in (bots or {}).items()]
    info = repo.create_game(
        game="hidden-leaders",
        players=players,
        options={"variant": "full"},
        rated=False,
        private=False,
        invite=None,
        creator_id=creator.id,
        seats=seats,
        **kw,
    )
    return info.id


def _fill(repo: Repo, game_id: int, n: int) -> list[int]:
    places = []
    for i in range(n):
        user = repo.create_user(f"P{i}")
        _, place = repo.join_seat(
            game_id, None, user_id=user.id, name=user.name, token_hash=f"h{game_id}-{i}"
        )
        places.append(place)
    return places


def test_migrations_reach_head_and_run_twice(fresh_url: str) -> None:
    database = Database(fresh_url)
    assert sa.inspect(database.engine).get_table_names() == []
    database.upgrade()
    database.upgrade()
    with database.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == _single_head()
    tables = set(sa.inspect(database.engine).get_table_names())
    assert {"users", "games", "seats", "moves", "ratings"} <= tables
    database.dispose()


def _single_head() -> str:
    """The one head revision (get_current_head refuses a branched history)."""
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head


def test_every_migration_downgrades_and_upgrades_again(fresh_url: str) -> None:
    database = Database(fresh_url)
    database.upgrade()
    cfg = alembic_config(fresh_url)
    command.downgrade(cfg, "0001")
    command.upgrade(cfg, "head")
    with database.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == _single_head()
    database.dispose()


def test_revoking_sessions_and_new_passwords_raise_the_session_epoch(repo: Repo) -> None:
    ann = repo.create_user("Ann", "ann", "hash")
    assert ann.session_epoch == 0
    repo.revoke_sessions(ann.id)
    assert repo.get_user(ann.id).session_epoch == 1
    assert repo.set_password_hash(ann.id, "new-hash") == 2
    again = repo.get_user(ann.id)
    assert (again.session_epoch, again.password_hash) == (2, "new-hash")


def test_usernames_are_unique_ignoring_case(repo: Repo) -> None:
    ann = repo.create_user("Ann", "ann", "hash")
    with pytest.raises(UsernameTaken):
        repo.create_user("Other", "ANN", "hash2")
    assert repo.user_by_username("Ann").id == ann.id
    guest = repo.create_user("Guest")
    assert guest.username is None and repo.get_user(guest.id).name == "Guest"


@pytest.mark.parametrize(
    ("bots", "wanted", "expected"),
    [
        ({}, None, 0),  # the lowest free place
        ({0: "easy"}, None, 1),  # a bot's place is not free
        ({}, 3, 3),  # a chosen free place
        ({2: "easy"}, 2, SeatTaken),
        ({}, 7, StoreError),  # no such place
    ],
)
def test_join_takes_a_free_place(repo: Repo, bots, wanted, expected) -> None:
    game_id = _table(repo, bots=bots)
    user = repo.create_user("Joiner")
    if isinstance(expected, type):
        with pytest.raises(expected):
            repo.join_seat(game_id, wanted, user_id=user.id, name="Joiner", token_hash="x")
        assert len(repo.get_game(game_id).seats) == len(bots)
    else:
        info, place = repo.join_seat(game_id, wanted, user_id=user.id, name="Joiner", token_hash="x")
        assert place == expected and info.seat(place).user_id == user.id
        assert repo.seat_by_token(game_id, "x").seat == expected


@pytest.mark.parametrize(
    ("token", "expected_place"),
    [
        ("h{game}-0", 0),
        ("h{game}-1", 1),
        ("h{game}-9", None),  # no seat holds it
        ("h{other}-0", None),  # a seat of another game
    ],
)
def test_game_and_seat_finds_the_tokens_seat_in_the_game(repo: Repo, token, expected_place) -> None:
    game_id, other = _table(repo, players=3), _table(repo, players=3)
    _fill(repo, game_id, 2)
    _fill(repo, other, 1)
    info, seat = repo.game_and_seat(game_id, token.format(game=game_id, other=other))
    assert info == repo.get_game(game_id)
    assert (None if seat is None else seat.seat) == expected_place
    if seat is not None:
        assert seat.id == repo.seat_by_token(game_id, token.format(game=game_id, other=other)).id
    with pytest.raises(NotFound):
        repo.game_and_seat(10**9, "h1-0")


def test_full_table_refuses_and_started_table_is_closed(repo: Repo) -> None:
    game_id = _table(repo, players=2)
    _fill(repo, game_id, 2)
    late = repo.create_user("Late")
    with pytest.raises(TableFull):
        repo.join_seat(game_id, None, user_id=late.id, name="Late", token_hash="late")
    info, _tokens = repo.start_game(game_id, seed=99, order=[1, 0])
    assert info.status == "live" and info.seed == 99
    with pytest.raises(NotOpen):
        repo.join_seat(game_id, None, user_id=late.id, name="Late", token_hash="late")
    with pytest.raises(NotOpen):
        repo.start_game(game_id, seed=1, order=[0, 1])


def test_start_applies_the_seating_order(repo: Repo) -> None:
    game_id = _table(repo, players=3, bots={1: "easy"})
    _fill(repo, game_id, 2)
    before = {s.seat: s.id for s in repo.get_game(game_id).seats}
    info, tokens = repo.start_game(game_id, seed=5, order=[2, 0, 1])
    after = {s.seat: s.id for s in info.seats}
    assert after == {0: before[2], 1: before[0], 2: before[1]}
    # each person's token hash names their seat, whatever engine seat it became; the bot has none
    people = sorted(s.id for s in info.seats if s.kind == "human")
    assert tokens == {f"h{game_id}-{i}": seat_id for i, seat_id in enumerate(people)}
    for token_hash, seat_id in tokens.items():
        assert repo.game_and_seat(game_id, token_hash)[1].id == seat_id


def test_start_refuses_a_table_that_is_not_full(repo: Repo) -> None:
    game_id = _table(repo, players=3)
    _fill(repo, game_id, 2)
    with pytest.raises(StoreError):
        repo.start_game(game_id, seed=5, order=[0, 1, 2])
    assert repo.get_game(game_id).status == "open"


def test_move_log_is_append_only_and_exactly_once(repo: Repo) -> None:
    game_id = _table(repo, players=2)
    _fill(repo, game_id, 2)
    repo.start_game(game_id, seed=1, order=[0, 1])
    repo.append_move(game_id, 0, 0, "a")
    for ply in (0, 2, -1):  # a duplicate, a gap, nonsense
        with pytest.raises(StalePly):
            repo.append_move(game_id, ply, 1, "dup")
    repo.append_move(game_id, 1, 1, "b", result={"winner": 1})
    with pytest.raises(StalePly):
        repo.append_move(game_id, 2, 0, "after the end")
    info = repo.get_game(game_id)
    assert repo.moves(game_id) == [(0, "a"), (1, "b")]
    assert (info.status, info.ply, info.result) == ("finished", 2, {"winner": 1})
    assert info.finished_at is not None and info.finished_at.tzinfo is not None


def test_a_takeback_truncates_the_tail_with_its_clock_in_one_step(repo: Repo) -> None:
    game_id = _table(repo, players=2)
    _fill(repo, game_id, 2)
    repo.start_game(game_id, seed=1, order=[0, 1])
    for ply, move in enumerate("abc"):
        repo.append_move(game_id, ply, ply % 2, move, clock={"at": ply})
    for ply, keep in ((2, 1), (3, 3), (3, -1)):  # not the stored ply; nothing to remove; nonsense
        with pytest.raises((StalePly, ValueError)):
            repo.take_back(game_id, ply, keep, {"at": "kept"})
    assert repo.moves(game_id) == [(0, "a"), (1, "b"), (0, "c")]
    assert repo.take_back(game_id, 3, 1, {"at": "start"}) == {"at": 0}  # the clock of the last move kept
    info = repo.get_game(game_id)
    assert repo.moves(game_id) == [(0, "a")] and info.ply == 1 and info.clock == {"at": 0}
    repo.append_move(game_id, 1, 1, "d")  # the log goes on from the position kept
    assert repo.moves(game_id) == [(0, "a"), (1, "d")]
    assert repo.take_back(game_id, 2, 0, {"at": "start"}) == {"at": "start"}  # back to the deal
    assert repo.moves(game_id) == [] and repo.get_game(game_id).clock == {"at": "start"}


def test_final_move_and_its_ratings_commit_together(repo: Repo) -> None:
    game_id = _table(repo, players=2)
    _fill(repo, game_id, 2)
    repo.start_game(game_id, seed=1, order=[0, 1])

    def failing_hook(session, info) -> None:
        raise RuntimeError("rating failed")

    with pytest.raises(RuntimeError):
        repo.append_move(game_id, 0, 0, "last", result={"winner": 0}, rate=failing_hook)
    info = repo.get_game(game_id)
    assert (info.status, info.ply, repo.moves(game_id)) == ("live", 0, [])


def test_leave_frees_the_place_and_the_last_human_aborts(repo: Repo) -> None:
    game_id = _table(repo, players=3, bots={0: "easy"})
    _fill(repo, game_id, 2)
    with pytest.raises(StoreError):
        repo.leave_seat(game_id, "not a token")
    info = repo.leave_seat(game_id, f"h{game_id}-0")
    assert info.status == "open" and len(info.seats) == 2
    info = repo.leave_seat(game_id, f"h{game_id}-1")
    assert info.status == "aborted"
    with pytest.raises(NotFound):
        repo.get_game(10**6)


def test_takeover_turns_a_human_seat_into_a_bot(repo: Repo) -> None:
    game_id = _table(repo, players=2)
    _fill(repo, game_id, 2)
    repo.start_game(game_id, seed=1, order=[0, 1])
    info = repo.takeover(game_id, 1, "easy")
    assert (info.seat(1).kind, info.seat(1).bot, info.seat(1).takeover) == ("bot", "easy", True)
    with pytest.raises(StoreError):
        repo.takeover(game_id, 1, "easy")


def _my_table(repo: Repo, me: int, players: int, bots: dict[int, str], people: int, then: str) -> int:
    """A table `me` made with `bots` and joined by `people` persons, then: open, start, finish, abort
    (every person leaves) or take over (a bot plays for the last person)."""
    seats = [SeatSpec(seat=p, kind="bot", name=b, bot=b) for p, b in bots.items()]
    info = repo.create_game(
        game="leaders", players=players, options={}, rated=False, private=False, invite=None,
        creator_id=me, seats=seats,
    )  # fmt: skip
    _fill(repo, info.id, people)
    if then == "abort":
        for i in range(people):
            repo.leave_seat(info.id, f"h{info.id}-{i}")
    if then in ("start", "finish", "take over"):
        repo.start_game(info.id, seed=1, order=list(range(players)))
    if then == "finish":
        repo.append_move(info.id, 0, 0, "last", result={"winner": 0})
    if then == "take over":
        repo.takeover(info.id, players - 1, "easy")
    return info.id


BOT_GAMES = [  # (players, bots, persons who join, then, (counted, of which bots only))
    (3, {0: "easy"}, 1, "open", (1, 0)),  # an open table with a bot waits for a person: counted
    (3, {0: "easy"}, 0, "open", (1, 0)),  # nobody seated yet, but it waits for people: not bots only
    (2, {0: "easy"}, 1, "start", (1, 0)),
    (2, {0: "easy", 1: "hard"}, 0, "start", (1, 1)),
    (2, {}, 2, "start", (0, 0)),  # people only
    (2, {}, 2, "take over", (0, 0)),  # a bot that plays for a person who left is not the creator's bot
    (2, {0: "easy"}, 1, "finish", (0, 0)),
    (3, {0: "easy"}, 1, "abort", (0, 0)),
]


@pytest.mark.parametrize(("players", "bots", "people", "then", "expected"), BOT_GAMES)
def test_bot_games_by_counts_a_creators_open_and_live_games_with_bots(
    repo: Repo, players, bots, people, then, expected
) -> None:
    me, other = repo.create_user("Me"), repo.create_user("Other")
    _my_table(repo, me.id, players, bots, people, then)
    _my_table(repo, other.id, 2, {0: "easy", 1: "easy"}, 0, "start")  # another creator's: never counted
    assert repo.bot_games_by(me.id) == expected


def test_history_lists_and_counts_a_players_games(repo: Repo) -> None:
    user = repo.create_user("Hist")
    ids = []
    for _ in range(3):
        game_id = _table(repo, players=2)
        repo.join_seat(game_id, None, user_id=user.id, name="Hist", token_hash=f"t{game_id}")
        _fill(repo, game_id, 1)
        repo.start_game(game_id, seed=1, order=[0, 1])
        ids.append(game_id)
    rows, total = repo.user_games(user.id, limit=2)
    assert total == 3 and [g.id for g, _ in rows] == ids[::-1][:2]
    assert live_ids(repo) == sorted(ids)


def live_ids(repo: Repo) -> list[int]:
    return repo.games_with_status("live")


def test_leaderboard_orders_by_score(repo: Repo, database: Database) -> None:
    users = [repo.create_user(f"R{i}", f"r{i}", "h") for i in range(3)]
    with database.sessions.begin() as s:
        rows = load_ratings(s, "leaders", [u.id for u in users], "glicko2")
        for user, score in zip(users, (10.0, 30.0, 20.0), strict=True):
            save_rating(s, rows[user.id], {"rating": score}, score)
    with database.sessions.begin() as s:
        rows = load_ratings(s, "leaders", [users[0].id], "glicko2")
        save_rating(s, rows[users[0].id], {"rating": 40.0}, 40.0)
    board = repo.leaderboard("leaders")
    assert [u.name for _, u in board] == ["R0", "R1", "R2"]
    assert board[0][0].games == 2 and board[0][0].data == {"rating": 40.0}
    assert repo.leaderboard("hidden-leaders") == []


def test_the_readiness_probe_writes_a_page(repo: Repo, database: Database) -> None:
    """A write that matches no row commits without writing anything, so it succeeded on a full disk: the
    probe rewrites a real row, and another connection sees the database change."""
    if database.engine.dialect.name == "sqlite":
        with database.engine.connect() as other:
            def version() -> int:
                return other.exec_driver_sql("PRAGMA data_version").scalar()

            before = version()
            assert repo.probe_write() == 1
            assert version() != before
    else:
        with database.engine.connect() as other:
            row_version = other.exec_driver_sql("SELECT xmin::text FROM alembic_version").scalar()
        assert repo.probe_write() == 1
        with database.engine.connect() as other:
            assert other.exec_driver_sql("SELECT xmin::text FROM alembic_version").scalar() != row_version


def test_a_rematch_is_made_once_with_its_record(repo: Repo) -> None:
    """A rematch is created in one transaction with its record in `rematches`: the asks stay, the new game
    is named, and a second making (another node at the same moment) is refused with the first one's id."""
    game_id = _table(repo, players=2)
    assert repo.ask_rematch(game_id, 0) == ([0], True, None)
    assert repo.ask_rematch(game_id, 1) == ([0, 1], True, None)
    first = _table(repo, players=2, rematch_of=game_id)
    assert repo.rematch(game_id) == ([0, 1], first)
    with pytest.raises(RematchMade) as made:
        _table(repo, players=2, rematch_of=game_id)
    assert made.value.new_game_id == first and made.value.code == "rematch_done"
    again = pickle.loads(pickle.dumps(made.value))  # as it crosses from the store process
    assert (type(again), again.new_game_id, again.message) == (RematchMade, first, made.value.message)
    assert repo.ask_rematch(game_id, 0) == ([0, 1], False, first)
