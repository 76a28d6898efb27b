"""Persistence: users, games, seats, the append-only move log and ratings (SQLAlchemy 2 + Alembic)."""

from throne.extras import require

require("server", "`throne.store` (the database)", ("sqlalchemy", "alembic"))

from throne.store.db import Database, default_sqlite_url, upgrade  # noqa: E402 - after the check
from throne.store.repo import Repo, StoreError  # noqa: E402

__all__ = ["Database", "Repo", "StoreError", "default_sqlite_url", "upgrade"]
