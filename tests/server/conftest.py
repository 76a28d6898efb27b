"""Server fixtures: an app on a temp SQLite database, driven through FastAPI's TestClient."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from tests.server.helpers import server_settings
from throne.server import sessions
from throne.server.app import create_app
from throne.server.config import Settings


@pytest.fixture(autouse=True)
def cheap_argon2(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """argon2 with tiny costs: the same code paths, a fraction of the CPU (production keeps the defaults)."""
    monkeypatch.setattr(sessions, "_hasher", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    sessions._dummy_hash.cache_clear()
    yield
    sessions._dummy_hash.cache_clear()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return server_settings(tmp_path)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c
