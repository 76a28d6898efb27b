"""Persistence: users, games, seats, the append-only move log and ratings (SQLAlchemy 2 + Alembic)."""

from throne.store.db import Database, default_sqlite_url, upgrade
from throne.store.repo import Repo, StoreError

__all__ = ["Database", "Repo", "StoreError", "default_sqlite_url", "upgrade"]
