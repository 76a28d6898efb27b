"""Glicko-2 (with the worked example of Glickman's paper), OpenSkill for Hidden Leaders, rated games."""

from __future__ import annotations

import math
import random

import pytest
from fastapi.testclient import TestClient

from throne.server.ratings import glicko2, multiplayer
from throne.server.ratings.glicko2 import Glicko2Rating
from throne.server.ratings_store import rating_hook
from throne.store import Database, Repo
from throne.store.repo import SeatSpec


def test_glickman_paper_example() -> None:
    """Section "Example calculation": 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300."""
    player = Glicko2Rating(1500.0, 200.0, 0.06)
    games = [
        (Glicko2Rating(1400.0, 30.0), 1.0),
        (Glicko2Rating(1550.0, 100.0), 0.0),
        (Glicko2Rating(1700.0, 300.0), 0.0),
    ]
    new = glicko2.rate(player, games, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    player = Glicko2Rating(1500.0, 200.0, 0.06)
    new = glicko2.rate(player, [])
    assert new.rating == 1500.0 and new.volatility == 0.06
    assert new.rd == pytest.approx(math.sqrt((200 / glicko2.SCALE) ** 2 + 0.06**2) * glicko2.SCALE)


@pytest.mark.parametrize(("score", "sign"), [(1.0, 1), (0.5, 0), (0.0, -1)])
def test_one_game_between_equals(score: float, sign: int) -> None:
    a, b = glicko2.rate_game(Glicko2Rating(), Glicko2Rating(), score)
    assert math.copysign(1, a.rating - 1500) == sign or (sign == 0 and a.rating == pytest.approx(1500))
    assert a.rating - 1500 == pytest.approx(1500 - b.rating)
    assert a.rd < 350 and b.rd < 350


def test_scores_outside_zero_to_one_are_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        glicko2.rate(Glicko2Rating(), [(Glicko2Rating(), 2.0)])


def test_openskill_winner_rises_and_the_others_fall_equally() -> None:
    new = multiplayer.rate_game([multiplayer.SkillRating()] * 4, winner=2)
    assert new[2].mu > 25 > new[0].mu
    assert new[0] == new[1] == new[3]
    assert all(r.sigma < 25 / 3 for r in new)
    with pytest.raises(ValueError):
        multiplayer.rate_game([multiplayer.SkillRating()] * 3, winner=3)
    tied = multiplayer.rate_game([multiplayer.SkillRating()] * 3, winner=None, losers=[1])
    assert tied[1].mu < 25 < tied[0].mu == tied[2].mu  # nobody won: the seat that left is last


def _register(client: TestClient, username: str) -> int:
    client.cookies.clear()
    r = client.post("/api/accounts/register", json={"username": username, "password": "correct horse"})
    assert r.status_code == 201, r.text
    return r.json()["user"]["id"]


def test_a_rated_leaders_game_updates_the_leaderboard(client: TestClient) -> None:
    ann = _register(client, "ann")
    created = client.post("/api/games", json={"game": "leaders", "rated": True})
    assert created.status_code == 201, created.text
    game_id = created.json()["game"]["id"]
    client.cookies.clear()
    client.post("/api/accounts/guest", json={"name": "Guest"})
    r = client.post(f"/api/games/{game_id}/join", json={})
    assert r.status_code == 403 and r.json()["error"]["code"] == "rated_needs_account"
    bob = _register(client, "bob")
    tokens = [created.json()["token"], client.post(f"/api/games/{game_id}/join", json={}).json()["token"]]
    rng = random.Random(4)
    while True:
        views = [client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": t}).json() for t in tokens]
        if views[0]["status"] != "live":
            break
        i = next(i for i, v in enumerate(views) if v["legal_moves"])
        move = rng.choice(views[i]["legal_moves"])
        assert (
            client.post(
                f"/api/games/{game_id}/move", json={"move": move}, headers={"X-Seat-Token": tokens[i]}
            ).status_code
            == 200
        )
    game = client.get(f"/api/games/{game_id}").json()["game"]
    board = client.get("/api/leaderboard/leaders").json()
    assert board["system"] == "glicko2" and {e["user"]["id"] for e in board["entries"]} == {ann, bob}
    by_user = {e["user"]["id"]: e for e in board["entries"]}
    seat_of = {s["user_id"]: s["seat"] for s in game["seats"]}
    winner = game["result"]["winner"]
    for user in (ann, bob):
        entry = by_user[user]
        assert entry["games"] == 1 and entry["rd"] < 350
        expected = 0 if winner is None else (1 if seat_of[user] == winner else -1)
        assert (entry["rating"] > 1500) - (entry["rating"] < 1500) == expected
    profile = client.get(f"/api/players/{ann}").json()
    assert profile["ratings"]["leaders"]["games"] == 1 and profile["ratings"]["hidden-leaders"] is None
    assert client.get("/api/leaderboard/hidden-leaders").json()["entries"] == []


def test_rated_hidden_leaders_result_updates_openskill(tmp_path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    db.upgrade()
    repo = Repo(db)
    users = [repo.create_user(f"U{i}", f"u{i}", "hash") for i in range(3)]
    seats = [
        SeatSpec(seat=i, kind="human", name=u.name, user_id=u.id, token_hash=f"t{i}")
        for i, u in enumerate(users)
    ]
    info = repo.create_game(
        game="hidden-leaders",
        players=3,
        options={},
        rated=True,
        private=False,
        invite=None,
        creator_id=users[0].id,
        seats=seats,
    )
    info, _tokens = repo.start_game(info.id, seed=1, order=[0, 1, 2])
    hook = rating_hook(info)
    assert hook is not None
    repo.append_move(info.id, 0, 0, "last", result={"winner": 1, "faction": "undead"}, rate=hook)
    board = repo.leaderboard("hidden-leaders")
    assert next(u.id for _, u in board) == users[1].id and all(r.games == 1 for r, _ in board)
    db.dispose()


def _rated_hidden_table(repo: Repo, users: list) -> int:
    seats = [
        SeatSpec(seat=i, kind="human", name=u.name, user_id=u.id, token_hash=f"t{i}")
        for i, u in enumerate(users)
    ]
    info = repo.create_game(
        game="hidden-leaders",
        players=len(users),
        options={},
        rated=True,
        private=False,
        invite=None,
        creator_id=users[0].id,
        seats=seats,
    )
    repo.start_game(info.id, seed=1, order=list(range(len(users))))
    return info.id


@pytest.mark.parametrize(
    ("left", "winner"), [("resign", 2), ("timeout", 2), ("abandoned", 2), ("abandoned", None)]
)
def test_a_hidden_leaders_player_who_left_a_rated_game_loses_it(
    tmp_path, left: str, winner: int | None
) -> None:
    """The game stays rated: the bot plays the seat on, and the seat loses even when the bot's side wins or
    when nobody wins (the others then tie)."""
    db = Database(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    db.upgrade()
    repo = Repo(db)
    users = [repo.create_user(f"U{i}", f"u{i}", "hash") for i in range(3)]
    game_id = _rated_hidden_table(repo, users)
    info = repo.takeover(game_id, 2, "easy", left)
    hook = rating_hook(info)
    assert hook is not None
    repo.append_move(game_id, 0, 2, "last", result={"winner": winner, "faction": "undead"}, rate=hook)
    rating = {u.id: r for r, u in repo.leaderboard("hidden-leaders")}
    mu = [rating[u.id].data["mu"] for u in users]
    assert mu[2] < multiplayer.SkillRating().mu < mu[0] == mu[1]  # the leaver last, whoever won
    assert all(r.games == 1 for r in rating.values())
    db.dispose()


def test_a_bot_that_did_not_replace_a_leaver_unrates_the_game(tmp_path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    db.upgrade()
    repo = Repo(db)
    users = [repo.create_user(f"U{i}", f"u{i}", "hash") for i in range(3)]
    game_id = _rated_hidden_table(repo, users)
    repo.takeover(game_id, 1, "easy")
    assert rating_hook(repo.reclaim(game_id, 1)) is None  # the player came back: a bot played part of it
    db.dispose()
