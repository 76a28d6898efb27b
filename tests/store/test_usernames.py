"""A username names one account in any case ("Ann" and "ann" are one name): the database itself refuses a
second spelling (migration 0012), so two nodes of a cluster signing both up at one moment make one account;
a database that already holds such twins is not upgraded until an operator renames them."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from throne.store import Database, Repo
from throne.store.db import MigrationBlocked, alembic_config
from throne.store.repo import UsernameTaken

INSERT = "INSERT INTO users (name, username, session_epoch, created_at) VALUES (:n, :u, 0, CURRENT_TIMESTAMP)"


def test_the_database_refuses_a_username_in_another_case(repo: Repo, database: Database) -> None:
    repo.create_user("Ann", "Ann", "h")
    with pytest.raises(sa.exc.IntegrityError), database.engine.begin() as conn:  # past the sign-up's check
        conn.execute(sa.text(INSERT), {"n": "Ann", "u": "aNN"})
    with pytest.raises(UsernameTaken):
        repo.create_user("Ann", "ANN", "h")
    repo.create_user("Guest", None)  # guests have no username: any number of them
    repo.create_user("Guest", None)


def test_an_upgrade_over_twin_usernames_names_them_and_changes_nothing(fresh_url: str) -> None:
    db = Database(fresh_url)
    try:
        command.upgrade(alembic_config(fresh_url), "0011")
        with db.engine.begin() as conn:
            for username in ("Bo", "bo", "Cy"):
                conn.execute(sa.text(INSERT), {"n": username, "u": username})
        with pytest.raises(MigrationBlocked, match=r"apart from its case \(bo\): rename"):
            db.upgrade()
        with db.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM users")).scalar() == 3
        with db.engine.begin() as conn:
            conn.execute(sa.text("UPDATE users SET username = 'Bo2' WHERE username = 'bo'"))
        db.upgrade()
        assert Repo(db).user_by_username("bo2") is not None
    finally:
        db.dispose()
