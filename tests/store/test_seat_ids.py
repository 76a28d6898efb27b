"""A seat row's id names one person's place at one table (a socket's `occupant`, a started game's token map):
it is never given to another seat, not even after its seat left the table and its row was deleted. SQLite
would hand the largest deleted rowid out again without AUTOINCREMENT (migration 0011); PostgreSQL's sequence
never does. The migration keeps every row, index and foreign key of a database that holds data."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from throne.store import Database, Repo
from throne.store.db import alembic_config
from throne.store.repo import SeatSpec


def _open_table(repo: Repo, players: int = 3) -> tuple[int, int]:
    """An open table with its creator seated; the game id and the creator's user id."""
    creator = repo.create_user("Cleo")
    spec = SeatSpec(seat=0, kind="human", name="Cleo", user_id=creator.id, token_hash="cleo")
    info = repo.create_game(
        game="hidden-leaders",
        players=players,
        options={},
        rated=False,
        private=False,
        invite=None,
        creator_id=creator.id,
        seats=[spec],
    )
    return info.id, creator.id


def _join(repo: Repo, game_id: int, name: str) -> int:
    """`name` joins the table; the id of the seat row it was given."""
    user = repo.create_user(name)
    info, place = repo.join_seat(game_id, None, user_id=user.id, name=name, token_hash=f"t-{name}")
    seat = info.seat(place)
    assert seat is not None and seat.user_id == user.id
    return seat.id


def test_a_seat_row_id_is_never_given_again_after_its_seat_left(repo: Repo) -> None:
    game_id, _ = _open_table(repo)
    eve = _join(repo, game_id, "Eve")  # the newest seat row: the largest id
    repo.leave_seat(game_id, "t-Eve")
    bob = _join(repo, game_id, "Bob")
    assert bob > eve  # SQLite without AUTOINCREMENT gave Bob Eve's id
    other_id, _ = _open_table(repo)  # nor does another table's seat get it
    assert eve not in {s.id for s in repo.get_game(other_id).seats}


def test_a_seat_row_id_stays_unused_after_its_table_was_aborted(repo: Repo) -> None:
    game_id, _ = _open_table(repo)
    cleo = repo.get_game(game_id).seats[0].id
    assert repo.leave_seat(game_id, "cleo").status == "aborted"  # the last person left
    again, _ = _open_table(repo)
    assert repo.get_game(again).seats[0].id > cleo


def _columns(engine: sa.Engine) -> list[tuple[str, str, bool, bool]]:
    return [
        (c["name"], str(c["type"]), c["nullable"], bool(c.get("primary_key")))
        for c in sa.inspect(engine).get_columns("seats")
    ]


def _schema(engine: sa.Engine) -> dict[str, object]:
    inspector = sa.inspect(engine)
    return {
        "columns": _columns(engine),
        "indexes": sorted(
            (i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in inspector.get_indexes("seats")
        ),
        "unique": sorted(
            (u["name"], tuple(u["column_names"])) for u in inspector.get_unique_constraints("seats")
        ),
        "foreign_keys": sorted(
            (tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
            for f in inspector.get_foreign_keys("seats")
        ),
        "pk": inspector.get_pk_constraint("seats")["constrained_columns"],
    }


SEATS = 'SELECT id, game_id, seat, kind, user_id, name, bot, token_hash, takeover, "left", side FROM seats'


def _seats_sql(conn: sa.Connection) -> str:
    return conn.execute(sa.text("SELECT sql FROM sqlite_master WHERE name = 'seats'")).scalar()


def test_the_migration_keeps_every_seat_and_stops_the_reuse_of_ids(fresh_url: str) -> None:
    """A database at 0010 holding tables and seats (one of them left) upgrades to head with the same rows,
    indexes, constraints and foreign keys (SQLite: the table is rebuilt; PostgreSQL: nothing changes); from
    then on no seat id is handed out twice, and the data it held still works through the repository."""
    db = Database(fresh_url)
    sqlite = db.engine.dialect.name == "sqlite"
    command.upgrade(alembic_config(fresh_url), "0010")
    old = Repo(db)
    game_id, creator = _open_table(old)
    eve = _join(old, game_id, "Eve")
    old.leave_seat(game_id, "t-Eve")  # the largest id so far is deleted
    bob = _join(old, game_id, "Bob")
    assert (bob == eve) if sqlite else (bob > eve)  # the reuse this migration ends (PostgreSQL never had it)
    dan = _join(old, game_id, "Dan")
    live = old.start_game(game_id, seed="ab" * 16, order=[2, 0, 1])[0]
    open_game, _ = _open_table(old, players=2)
    pending = _join(old, open_game, "Pat")  # an open table that stays open across the upgrade
    with db.engine.connect() as conn:
        rows = conn.execute(sa.text(SEATS + " ORDER BY id")).all()
        users = conn.execute(sa.text("SELECT id, name FROM users ORDER BY id")).all()
        games = conn.execute(sa.text("SELECT id, status FROM games ORDER BY id")).all()
        if sqlite:
            assert "AUTOINCREMENT" not in _seats_sql(conn).upper()
    schema_before = _schema(db.engine)

    db.upgrade()

    with db.engine.connect() as conn:
        assert conn.execute(sa.text(SEATS + " ORDER BY id")).all() == rows
        assert conn.execute(sa.text("SELECT id, name FROM users ORDER BY id")).all() == users
        assert conn.execute(sa.text("SELECT id, status FROM games ORDER BY id")).all() == games
        if sqlite:
            assert "AUTOINCREMENT" in _seats_sql(conn).upper()
            assert conn.execute(sa.text("PRAGMA foreign_key_check")).all() == []
            assert conn.execute(sa.text("PRAGMA integrity_check")).scalar() == "ok"
            seq = conn.execute(sa.text("SELECT seq FROM sqlite_sequence WHERE name = 'seats'")).scalar()
            assert seq == max(r.id for r in rows)  # the counter starts at the largest id kept
    assert _schema(db.engine) == schema_before

    repo = Repo(db)
    after = repo.get_game(game_id)
    assert after.status == "live" and [s.id for s in after.seats] == [s.id for s in live.seats]
    assert {bob, dan} < {s.id for s in after.seats} and creator in {s.user_id for s in after.seats}
    repo.leave_seat(open_game, "t-Pat")  # the largest id leaves after the upgrade
    assert _join(repo, open_game, "Quinn") > pending
    with pytest.raises(sa.exc.IntegrityError), db.engine.begin() as conn:  # the foreign keys still hold
        conn.execute(
            sa.text(
                "INSERT INTO seats (game_id, seat, kind, name, takeover) VALUES (:g, 0, 'human', 'x', :f)"
            ),
            {"g": games[-1].id + 1000, "f": False},
        )
    db.dispose()


def test_the_migration_downgrades_and_upgrades_with_the_rows_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'round.sqlite3'}"
    db = Database(url)
    db.upgrade()
    repo = Repo(db)
    game_id, _ = _open_table(repo)
    _join(repo, game_id, "Eve")
    with db.engine.connect() as conn:
        rows = conn.execute(sa.text(SEATS + " ORDER BY id")).all()
    schema = _schema(db.engine)
    cfg = alembic_config(url)
    command.downgrade(cfg, "0010")
    with db.engine.connect() as conn:
        assert conn.execute(sa.text(SEATS + " ORDER BY id")).all() == rows
        sql = conn.execute(sa.text("SELECT sql FROM sqlite_master WHERE name = 'seats'")).scalar()
    assert "AUTOINCREMENT" not in sql.upper()
    command.upgrade(cfg, "head")
    with db.engine.connect() as conn:
        assert conn.execute(sa.text(SEATS + " ORDER BY id")).all() == rows
    assert _schema(db.engine) == schema
    db.dispose()
