"""Damaged game records found on the other paths (docs/server-api.md, *Damaged records*): a log that turns
out damaged when it is read back during play, a finished game of a kind this server lacks or options the
engine refuses, a live game whose clock cannot be read, and the caps, which a game that cannot go on does not
hold."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import hello, read_until, server_settings, two_player_leaders
from tests.server.test_corrupt_records import (
    _db,
    _finished_game,
    _play,
    _restarted,
    _socket,
    _sql,
    _two_live_games,
    _unplayable_gauge,
)
from throne.server.app import create_app


def _code(r: Any) -> tuple[int, str]:
    return r.status_code, r.json().get("error", {}).get("code", "")


def _damage_the_next_ply(settings: Any, game_id: int) -> int:
    """Writes a malformed move at the game's next ply straight into the store (a record edited or restored
    by hand while the server runs): the server's next commit finds the log moved on and reads it back."""
    with sqlite3.connect(_db(settings)) as c:
        (ply,) = c.execute("SELECT ply FROM games WHERE id = ?", (game_id,)).fetchone()
        (seat,) = c.execute(
            "SELECT seat FROM moves WHERE game_id = ? AND ply = ?", (game_id, ply - 2)
        ).fetchone()
        c.execute(
            "INSERT INTO moves (game_id, ply, seat, move, created_at) "
            "VALUES (?, ?, ?, 'zz9', '2026-01-01 00:00:00')",
            (game_id, ply, seat),
        )
        c.execute("UPDATE games SET ply = ? WHERE id = ?", (ply + 1, game_id))
    return ply


def _to_play(client: TestClient, game_id: int, tokens: dict[int, str]) -> tuple[int, dict[str, Any]]:
    seat = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    mine = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[seat]}).json()
    return seat, mine


# ---- a live game whose log turns out damaged while it is played (Match._reload) ---------------------------


def test_a_game_found_damaged_when_read_back_during_play_is_refused_game_unavailable(tmp_path: Path) -> None:
    """A live game's log gets a malformed move at its next ply while the server runs. The next move is
    refused `stale` and the owner reads the log back (`Match._reload`), which finds it does not replay: like a
    damaged game found at start-up, it is refused `503 game_unavailable` (moves and view), marked
    `unavailable` and counted. Before, the read-back was retried for ever as if the store were down, every
    move answered `503 store_unavailable` and the view the old position."""
    settings = server_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        game_id, tokens = two_player_leaders(client)
        _play(client, game_id, tokens, 2)
        seat, mine = _to_play(client, game_id, tokens)
        ply = _damage_the_next_ply(settings, game_id)
        first = client.post(
            f"/api/games/{game_id}/move",
            json={"move": mine["legal_moves"][0], "ply": ply},
            headers={"X-Seat-Token": tokens[seat]},
        )
        assert _code(first) == (409, "stale"), first.text
        deadline = time.monotonic() + 6
        move = view = None
        while time.monotonic() < deadline:
            move = client.post(
                f"/api/games/{game_id}/move",
                json={"move": mine["legal_moves"][0]},
                headers={"X-Seat-Token": tokens[seat]},
            )
            view = client.get(f"/api/games/{game_id}/view")
            if _code(move) == (503, "game_unavailable") and view.status_code == 503:
                break
            time.sleep(0.1)
        assert move is not None and view is not None
        summary = client.get(f"/api/games/{game_id}").json()["game"]
        gauge = _unplayable_gauge(client)
    assert _code(move) == (503, "game_unavailable"), f"a move: {move.text}"
    assert _code(view) == (503, "game_unavailable"), f"the view: {view.status_code} {view.text[:200]}"
    assert summary["unavailable"] is True
    assert gauge == 1.0


def test_a_socket_at_a_game_found_damaged_during_play_is_told_game_unavailable(tmp_path: Path) -> None:
    """The same, seen from the seat's socket already connected to the game: once the read-back found the log
    damaged, a move sent on the socket is answered `game_unavailable` (the table page's damaged-record
    message), not `store_unavailable` for ever."""
    settings = server_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        game_id, tokens = two_player_leaders(client)
        _play(client, game_id, tokens, 2)
        seat, mine = _to_play(client, game_id, tokens)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, tokens[seat])
            read_until(ws, "state")
            ply = _damage_the_next_ply(settings, game_id)
            ws.send_json({"type": "move", "move": mine["legal_moves"][0], "ply": ply})
            first = read_until(ws, "error")[0]
            assert first["code"] == "stale", first
            deadline = time.monotonic() + 6
            codes = []
            while time.monotonic() < deadline:
                ws.send_json({"type": "move", "move": mine["legal_moves"][0]})
                answer = read_until(ws, "error")[0]
                codes.append(answer["code"])
                if answer["code"] == "game_unavailable":
                    break
                time.sleep(0.2)
    assert codes and codes[-1] == "game_unavailable", f"the socket's moves were answered {codes}"


# ---- finished games ---------------------------------------------------------------------------------------


def test_the_view_and_hello_of_a_finished_game_of_a_kind_this_server_lacks_are_game_unavailable(
    tmp_path: Path,
) -> None:
    """A finished game whose kind this server no longer has (a record restored by hand): its view is `503
    game_unavailable` and a socket's hello gets `game_unavailable`, like its replay and record (not
    `server_error`)."""
    settings = server_settings(tmp_path)
    game_id, tokens = _finished_game(settings)
    _sql(settings, "UPDATE games SET game = 'removed-game' WHERE id = ?", (game_id,))
    with _restarted(settings) as client:
        view = client.get(f"/api/games/{game_id}/view")
        answer = _socket(client, game_id, tokens[0], None)
    assert _code(view) == (503, "game_unavailable"), f"the view: {view.status_code} {view.text}"
    assert isinstance(answer, dict) and answer.get("code") == "game_unavailable", f"a hello: {answer}"


@pytest.mark.parametrize("finished", [True, False])
def test_a_game_whose_options_the_engine_refuses_is_game_unavailable(tmp_path: Path, finished: bool) -> None:
    """A game's options hold `{"mode": "bogus"}` (the engine refuses them: its record cannot be rebuilt),
    finished or live (then marked unplayable after a restart): its view, record and replay are all `503
    game_unavailable` (the replay was `500 server_error`)."""
    settings = server_settings(tmp_path)
    game_id = _finished_game(settings)[0] if finished else _two_live_games(settings, moves=2)[0]
    _sql(settings, """UPDATE games SET options = '{"mode": "bogus"}' WHERE id = ?""", (game_id,))
    with _restarted(settings) as client:
        answers = {what: client.get(f"/api/games/{game_id}/{what}") for what in ("view", "record", "replay")}
    for what, r in answers.items():
        assert _code(r) == (503, "game_unavailable"), f"the {what}: {r.status_code} {r.text[:200]}"


# ---- caps ------------------------------------------------------------------------------------------------

PASSWORD = "Tr0ub4dor&3xyzq"


def test_a_damaged_live_game_with_a_bot_does_not_hold_the_players_bot_game_cap(tmp_path: Path) -> None:
    """A registered player's live game against a bot has a clock snapshot that cannot be read (refused
    `game_unavailable` after a restart: it can neither go on nor be resigned or left). It does not hold the
    player's cap on games with bots (1 here): a new game with a bot is made, not `429 too_many_games`
    "finish or leave one first", which the player could not do."""
    settings = server_settings(tmp_path, max_bot_games_per_user=1)
    with TestClient(create_app(settings)) as client:
        r = client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
        assert r.status_code == 201, r.text
        r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
        assert r.status_code == 201, r.text
        game_id = r.json()["game"]["id"]
    _sql(settings, """UPDATE games SET clock = '{"bogus": 1}' WHERE id = ?""", (game_id,))
    with _restarted(settings) as client:
        r = client.post("/api/accounts/login", json={"username": "ann", "password": PASSWORD})
        assert r.status_code == 200, r.text
        assert client.get(f"/api/games/{game_id}/view").status_code == 503  # damaged: it cannot go on
        again = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
    assert again.status_code == 201, f"a new game with a bot: {again.status_code} {again.text}"


# ---- live games marked unplayable: replay and record --------------------------------------------------


def test_the_replay_and_record_of_a_live_game_whose_clock_cannot_be_read_are_game_unavailable(
    tmp_path: Path,
) -> None:
    """A live game whose clock snapshot cannot be read is marked unplayable at start-up: its view, replay and
    record are all `503 game_unavailable` (the replay and record rebuild the log themselves, and ask
    `Hub.unplayable` first)."""
    settings = server_settings(tmp_path)
    broken, _, _, _ = _two_live_games(settings, moves=2)
    _sql(settings, """UPDATE games SET clock = '{"bogus": 1}' WHERE id = ?""", (broken,))
    with _restarted(settings) as client:
        view = client.get(f"/api/games/{broken}/view")
        answers = {what: client.get(f"/api/games/{broken}/{what}") for what in ("replay", "record")}
    assert _code(view) == (503, "game_unavailable"), view.text
    for what, r in answers.items():
        assert r.status_code == 503, f"the {what}: {r.status_code} {r.text[:200]}"
