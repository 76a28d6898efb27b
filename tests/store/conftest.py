"""Store fixtures: every store test runs on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.store.pg import PgCluster
from throne.store import Database, Repo


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    cluster = PgCluster()
    cluster.start()  # a cluster that cannot start fails the tests that need it (never a skip)
    try:
        yield cluster
    finally:
        cluster.stop()


BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param(
        "postgres", id="postgres", marks=[pytest.mark.postgres, pytest.mark.xdist_group("postgres")]
    ),
]


@pytest.fixture(scope="session")
def pg_database(pg_cluster: PgCluster) -> Iterator[Database]:
    """One migrated PostgreSQL database per session; each test starts from empty tables."""
    db = Database(pg_cluster.new_database())
    db.upgrade()
    try:
        yield db
    finally:
        db.dispose()


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "postgres":
        db: Database = request.getfixturevalue("pg_database")
        with db.engine.begin() as conn:
            conn.execute(sa.text("TRUNCATE ratings, moves, seats, games, users RESTART IDENTITY CASCADE"))
        yield db
        return
    db = Database(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    db.upgrade()
    try:
        yield db
    finally:
        db.dispose()


@pytest.fixture(params=BACKENDS)
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database without any table (for migration tests)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    return request.getfixturevalue("pg_cluster").new_database()


@pytest.fixture
def repo(database: Database) -> Repo:
    return Repo(database)
