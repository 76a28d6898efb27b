"""`throne db upgrade` brings an empty database to the latest schema."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from typer.testing import CliRunner

from throne.cli import app
from throne.store.db import shown_url


def test_db_upgrade_creates_the_schema_in_the_data_dir(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["db", "upgrade", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "database at head" in result.output
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'throne.sqlite3'}")
    try:
        assert {"users", "games", "seats", "moves", "ratings"} <= set(sa.inspect(engine).get_table_names())
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        engine.dispose()
    again = CliRunner().invoke(app, ["db", "upgrade", "--data-dir", str(tmp_path)])
    assert again.exit_code == 0


def test_a_database_url_is_printed_without_its_credentials() -> None:
    url = "postgresql+psycopg://bob:s3cret@db.example:5432/throne?password=s3cret&sslmode=require"
    assert shown_url(url) == "postgresql+psycopg://db.example:5432/throne"
