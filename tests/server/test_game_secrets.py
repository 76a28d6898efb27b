"""Server deals are not a function of a small seed; stored games keep replaying; bots get their own seeds."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient

from tests import asyncrun
from throne.games import hidden_leaders as hl
from throne.games import leaders
from throne.server import lobby
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.games import initial_state, kind_of, stored_seed
from throne.store import Database, Repo
from throne.store.db import alembic_config
from throne.store.repo import SeatSpec

SMALL = 2**31 - 1


def _settings(path: Path) -> Settings:
    return Settings(data_dir=path, secret_key="test-secret", abandon_timeout=3600.0, bot_timeout=5.0,
                    ws_rate_per_s=1000.0, ws_burst=1000)


def _deal(path: Path, game: str, players: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """One server whose every `random`-module generator is pinned to the same 31-bit value starts a game."""
    random.seed(SMALL)
    monkeypatch.setattr(lobby, "_rng", random.Random(SMALL))
    with TestClient(create_app(_settings(path))) as client:
        body = {"game": game, "players": players, "bot": "random", "name": "Hu"}
        r = client.post("/api/play-bot", json=body)
        assert r.status_code == 201, r.text
        hub = client.app.state.hub
        info = hub.repo.get_game(r.json()["game"]["id"])
        return info, initial_state(kind_of(game), info)


@pytest.mark.parametrize(("game", "players"), [("hidden-leaders", 4), ("leaders", 2)])
def test_two_servers_given_the_same_small_seed_deal_unrelated_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str, players: int
) -> None:
    info_a, a = _deal(tmp_path / "a", game, players, monkeypatch)
    info_b, b = _deal(tmp_path / "b", game, players, monkeypatch)
    for info in (info_a, info_b):  # the stored secret is 128 bits; no small integer seed is stored
        assert info.seed is None and len(info.secret) == 32 and int(info.secret, 16) >= 0
    assert info_a.secret != info_b.secret
    if game == "hidden-leaders":
        assert a.hands != b.hands and a.harbor != b.harbor
    else:
        assert a.deck != b.deck
    assert stored_seed(info_a) == (info_a.secret, 2)


def test_a_game_stored_with_a_legacy_seed_replays_with_the_legacy_deal(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'old.db'}")
    db.upgrade()
    repo = Repo(db)
    users = [repo.create_user(f"U{i}", f"u{i}", "hash") for i in range(3)]
    seats = [SeatSpec(seat=i, kind="human", name=u.name, user_id=u.id, token_hash=f"t{i}")
             for i, u in enumerate(users)]
    info = repo.create_game(game="hidden-leaders", players=3, options={}, rated=False, private=False,
                            invite=None, creator_id=users[0].id, seats=seats)
    info, _tokens = repo.start_game(info.id, seed=1234, order=[0, 1, 2])
    assert info.secret is None and stored_seed(info) == (1234, 1)
    state = initial_state(kind_of("hidden-leaders"), info)
    assert state.to_json() == hl.new_game(players=3, seed=1234, rng=1).to_json() and state.first == 0
    db.dispose()


def test_migration_adds_the_secret_column_and_keeps_old_games(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    db = Database(url)
    command.upgrade(alembic_config(url), "0001")
    with db.engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO games (id, game, status, players, options, rated, private, seed, ply, created_at) "
            "VALUES (1, 'leaders', 'live', 2, '{}', 0, 0, 77, 0, '2026-01-01 00:00:00')"
        ))
    db.upgrade()
    info = Repo(db).get_game(1)
    assert info.seed == 77 and info.secret is None
    state = initial_state(kind_of("leaders"), info)
    assert state.position() == leaders.new_game(seed=77, rng=1).position()
    db.dispose()


def test_bots_get_fresh_seeds_unrelated_to_the_game(client: TestClient) -> None:
    hub = client.app.state.hub
    seeds: list[int] = []

    async def chooser(game: str, state: Any, seat: int, bot: str, *, seed: int, ply: int) -> str:
        seeds.append(seed)
        return state.legal_moves()[0]

    hub.chooser = chooser
    state = leaders.new_game(seed=1)
    for _ in range(3):
        asyncrun.run(hub.choose_move("leaders", state, 0, "hard", ply=0))
    assert len(set(seeds)) == 3 and all(0 <= s < 2**63 for s in seeds)
