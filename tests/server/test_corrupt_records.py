"""Corrupt or unexpected stored records (written straight into the SQLite file between two runs of the
server): the server starts and serves every other game, a list leaves out a row it cannot read, and a socket
asking about a broken record gets an error, never a crash at start-up or a socket dropped without a word."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import (
    as_guest,
    hello,
    next_of_kinds,
    read_until,
    server_settings,
    two_player_leaders,
    until_finished,
)
from throne.server.app import create_app
from throne.server.config import Settings


def _db(settings: Settings) -> Path:
    return Path(settings.data_dir) / "throne.sqlite3"


def _sql(settings: Settings, statement: str, params: tuple[Any, ...] = ()) -> None:
    with sqlite3.connect(_db(settings)) as c:
        c.execute(statement, params)


def _play(client: TestClient, game_id: int, tokens: dict[int, str], n: int) -> None:
    """`n` legal moves (the first legal one each time) by whoever is to play."""
    for _ in range(n):
        v = client.get(f"/api/games/{game_id}/view").json()
        seat = v["to_play"]
        mine = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": tokens[seat]}).json()
        r = client.post(
            f"/api/games/{game_id}/move",
            json={"move": mine["legal_moves"][0], "ply": mine["ply"]},
            headers={"X-Seat-Token": tokens[seat]},
        )
        assert r.status_code == 200, r.text


def _two_live_games(settings: Settings, moves: int = 2) -> tuple[int, dict[int, str], int, dict[int, str]]:
    """Two live Leaders games with `moves` moves each (the first to break, the second healthy)."""
    with TestClient(create_app(settings)) as client:
        broken, broken_tokens = two_player_leaders(client)
        healthy, healthy_tokens = two_player_leaders(client)
        _play(client, broken, broken_tokens, moves)
        _play(client, healthy, healthy_tokens, moves)
    return broken, broken_tokens, healthy, healthy_tokens


def _not_a_crash(r: Any, what: str) -> None:
    assert r.headers["content-type"].startswith("application/json"), what
    assert r.status_code != 500, f"{what}: {r.status_code} {r.text}"


def _restarted(settings: Settings) -> TestClient:
    """A new server over the same data directory; its failures come back as the client sees them."""
    return TestClient(create_app(settings), raise_server_exceptions=False)


def _serves_after_a_restart(settings: Settings, game_id: int) -> None:
    """A new server over the same data directory starts and serves the view of `game_id`."""
    try:
        with _restarted(settings) as client:
            r = client.get(f"/api/games/{game_id}/view")
    except Exception as exc:  # the start-up itself failed
        raise AssertionError(f"the server did not start: {type(exc).__name__}: {exc}") from None
    assert r.status_code == 200, r.text


def _first_answer(ws: Any) -> dict[str, Any]:
    """What a greeted socket gets after its welcome (and chat history): a `state` or an `error`."""
    ws.send_json({"type": "ping"})
    for _ in range(10):
        msg = ws.receive_json()
        if msg["type"] in ("state", "error", "pong"):
            return msg
    raise AssertionError("no state, error or pong")


def _socket(
    client: TestClient, game_id: int, token: str, then: dict[str, Any] | None
) -> dict[str, Any] | str:
    """A hello with `token` (then the message `then`, once the state came): the first state or error after
    it (the first answer to `then`), or how the socket was dropped."""
    try:
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            ws.send_json({"type": "hello", "token": token})
            answer = _first_answer(ws)
            if then is None or answer["type"] != "state":
                return answer
            ws.send_json(then)
            return next_of_kinds(ws, ("rematch_pending", "rematch", "error"))
    except Exception as exc:  # the server's handler raised: the socket went
        return f"the socket was dropped: {type(exc).__name__}: {str(exc)[:200]}"


# ---- start-up --------------------------------------------------------------------------------------------


def test_a_live_game_with_a_malformed_clock_snapshot_does_not_stop_the_server_starting(
    tmp_path: Path,
) -> None:
    """A live game's clock snapshot is `{"bogus": 1}`. The server starts and serves the other live game
    (it does not crash at start-up, looping under a supervisor): the broken one is left as it is, logged."""
    settings = server_settings(tmp_path)
    broken, _, healthy, _ = _two_live_games(settings)
    _sql(settings, """UPDATE games SET clock = '{"bogus": 1}' WHERE id = ?""", (broken,))
    _serves_after_a_restart(settings, healthy)


def test_an_open_table_whose_options_are_not_json_does_not_stop_the_server_starting(tmp_path: Path) -> None:
    """An open table's options column holds `{not json`. The server starts and serves the other games,
    although the read of the open tables (to start the full ones) fails."""
    settings = server_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        as_guest(client, "Ann")
        r = client.post("/api/games", json={"game": "leaders", "players": 2})
        assert r.status_code == 201, r.text
        table = r.json()["game"]["id"]
        healthy, _ = two_player_leaders(client)
    _sql(settings, "UPDATE games SET options = '{not json' WHERE id = ?", (table,))
    _serves_after_a_restart(settings, healthy)


# ---- a live game whose record cannot be rebuilt --------------------------------------------------------

# Each leaves the second of three moves (ply 1) or the game row unreadable for a rebuild.
DAMAGED_LOGS = {
    "a malformed move": "UPDATE moves SET move = 'zz9' WHERE game_id = ? AND ply = 1",
    "a malformed last move": "UPDATE moves SET move = 'zz9' WHERE game_id = ? AND ply = 2",
    "a move by the seat not to play": "UPDATE moves SET seat = 1 - seat WHERE game_id = ? AND ply = 1",
    "a gap in the log": "DELETE FROM moves WHERE game_id = ? AND ply = 1",
    "a game kind this server lacks": "UPDATE games SET game = 'removed-game' WHERE id = ?",
    "a clock snapshot that cannot be read": """UPDATE games SET clock = '{"bogus": 1}' WHERE id = ?""",
}


def _unplayable_gauge(client: TestClient) -> float:
    found = re.search(r"^throne_unplayable_games (\S+)$", client.get("/metrics").text, re.M)
    assert found is not None, "no throne_unplayable_games gauge in /metrics"
    return float(found.group(1))


@pytest.mark.parametrize("damage", list(DAMAGED_LOGS))
def test_a_live_game_whose_record_does_not_rebuild_is_refused_game_unavailable(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A live game's stored record no longer rebuilds after a restart. The record is left as it is; every
    request about the game is answered `game_unavailable` (HTTP 503) with a message that says no more than
    that (what is wrong may name a hidden card), the lobby list marks it `unavailable`, /metrics counts it,
    and the server's log says what is wrong. Before, a view or a move was refused `not_live` "game N is
    live", and a socket's hello got its welcome and then nothing."""
    settings = server_settings(tmp_path)
    broken, tokens, healthy, _ = _two_live_games(settings, moves=3)
    _sql(settings, DAMAGED_LOGS[damage], (broken,))
    with caplog.at_level("ERROR", logger="throne"), _restarted(settings) as client:
        view = client.get(f"/api/games/{broken}/view")
        move = client.post(
            f"/api/games/{broken}/move", json={"move": "end"}, headers={"X-Seat-Token": tokens[0]}
        )
        hello_answer = _socket(client, broken, tokens[0], None)
        resign_answer = _socket(client, broken, tokens[1], {"type": "resign"})
        listed = {g["id"]: g for g in client.get("/api/games?status=live").json()["games"]}
        gauge = _unplayable_gauge(client)
        assert client.get(f"/api/games/{healthy}/view").status_code == 200
    for what, r in (("the view", view), ("a move", move)):
        assert (r.status_code, r.json()["error"]["code"]) == (503, "game_unavailable"), f"{what}: {r.text}"
        assert "zz9" not in r.text and "seat" not in r.json()["error"]["message"]
    for what, answer in (("a hello", hello_answer), ("a resign", resign_answer)):
        assert isinstance(answer, dict) and answer.get("code") == "game_unavailable", f"{what}: {answer}"
    assert listed[broken]["unavailable"] is True and listed[healthy]["unavailable"] is False
    assert all("takeover_in" not in seat for seat in listed[broken]["seats"]), "no bot will take a seat over"
    assert gauge == 1.0
    said = f"game {broken} cannot be continued"
    logged = [r.getMessage() for r in caplog.records if said in r.getMessage()]
    assert len(logged) == 1, f"the damage is logged once for the operators: {logged}"


@pytest.mark.parametrize("damage", [d for d in DAMAGED_LOGS if "clock" not in d])
@pytest.mark.parametrize("finished", [False, True])
def test_the_replay_and_record_of_a_damaged_game_are_refused_game_unavailable(
    tmp_path: Path, damage: str, finished: bool
) -> None:
    """A game whose log does not replay, or whose kind this server lacks, live or finished: its replay and its
    record are refused `503 game_unavailable` (never a `500 server_error`), the message naming no move."""
    settings = server_settings(tmp_path)
    broken, _, _, _ = _two_live_games(settings, moves=3)
    if finished:
        _sql(
            settings,
            """UPDATE games SET status = 'finished', result = '{"winner": 0}' WHERE id = ?""",
            (broken,),
        )
    _sql(settings, DAMAGED_LOGS[damage], (broken,))
    with _restarted(settings) as client:
        answers = [client.get(f"/api/games/{broken}/{what}") for what in ("replay", "record")]
    for r in answers:
        assert (r.status_code, r.json()["error"]["code"]) == (503, "game_unavailable"), r.text
        assert "zz9" not in r.text


# ---- lists: one bad row does not take down a whole list ---------------------------------------------------

BAD_GAME_ROWS = {
    "a game removed from the code": "UPDATE games SET game = 'removed-game' WHERE id = ?",
    "options that are not an object": "UPDATE games SET options = '[1, 2]' WHERE id = ?",
    "options that are not JSON": "UPDATE games SET options = '{not json' WHERE id = ?",
    "a created_at that is no time": "UPDATE games SET created_at = 'garbage' WHERE id = ?",
}


@pytest.mark.parametrize("corruption", list(BAD_GAME_ROWS))
def test_one_corrupt_game_row_does_not_break_the_lobby_or_the_players_history(
    tmp_path: Path, corruption: str
) -> None:
    """One stored game is corrupt. The lobby list and the history of a player of that game still answer,
    listing the other games (a game whose kind the server no longer has is listed without a renderer; a row
    that cannot be read at all is left out, logged), instead of a `500 server_error` for everyone."""
    settings = server_settings(tmp_path)
    broken, _, healthy, _ = _two_live_games(settings)
    with sqlite3.connect(_db(settings)) as c:
        (player,) = c.execute("SELECT user_id FROM seats WHERE game_id = ? LIMIT 1", (broken,)).fetchone()
    _sql(settings, BAD_GAME_ROWS[corruption], (broken,))
    with _restarted(settings) as client:
        lobby = client.get("/api/games?status=open,live")
        history = client.get(f"/api/players/{player}/games")
    for what, r in (("the lobby list", lobby), ("the history", history)):
        assert r.status_code == 200, f"{what}: {r.status_code} {r.text}"
    assert healthy in [g["id"] for g in lobby.json()["games"]]


@pytest.mark.parametrize("data", ['{"foo": 1}', '"x"'])
def test_one_corrupt_rating_row_does_not_break_the_leaderboard(tmp_path: Path, data: str) -> None:
    """One player's rating row has data without the system's fields. The leaderboard still lists the other
    players, and the player's profile shows no rating, not a `500 server_error`."""
    settings = server_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        ids = []
        for name in ("zed", "amy"):
            client.cookies.clear()
            r = client.post("/api/accounts/register", json={"username": name, "password": "Tr0ub4dor&3xyzq"})
            assert r.status_code == 201, r.text
            ids.append(r.json()["user"]["id"])
    good = '{"rating": 1500.0, "rd": 80.0, "volatility": 0.06}'
    for uid, row in zip(ids, (data, good), strict=True):
        _sql(
            settings,
            "INSERT INTO ratings (user_id, game, system, data, score, games, updated_at) "
            "VALUES (?, 'leaders', 'glicko2', ?, 1340.0, 3, '2026-01-01 00:00:00')",
            (uid, row),
        )
    with _restarted(settings) as client:
        board = client.get("/api/leaderboard/leaders")
        profile = client.get(f"/api/players/{ids[0]}")
    assert board.status_code == 200, f"the leaderboard: {board.status_code} {board.text}"
    assert ids[1] in [e["user"]["id"] for e in board.json()["entries"]]
    _not_a_crash(profile, "the profile of the player with the corrupt rating")


# ---- sockets: a request about a broken record is answered ----------------------------------------------


BAD_FINISHED_ROWS = {
    "a move the engine refuses": "UPDATE moves SET move = 'zz9-zz9' WHERE game_id = ? AND ply = 1",
    "a clock snapshot without its control": (
        """UPDATE games SET clock = '{"remaining_ms": [1, 2]}' WHERE id = ?"""
    ),
    "a chat row whose time is no time": "UPDATE chat SET created_at = 'garbage' WHERE game_id = ?",
}


def _finished_game(settings: Settings) -> tuple[int, dict[int, str]]:
    """A finished Leaders game with two moves and a chat message (seat 0 resigned)."""
    with TestClient(create_app(settings)) as client:
        game_id, tokens = two_player_leaders(client)
        _play(client, game_id, tokens, 2)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, tokens[0])
            read_until(ws, "state")
            ws.send_json({"type": "chat", "text": "gg"})
            read_until(ws, "chat")
            ws.send_json({"type": "resign"})
            until_finished(ws)
    return game_id, tokens


@pytest.mark.parametrize("corruption", list(BAD_FINISHED_ROWS))
def test_a_hello_to_a_corrupt_finished_game_is_answered_not_dropped(tmp_path: Path, corruption: str) -> None:
    """A finished game's stored record is corrupt. A socket's hello gets the state or an `error` (at
    worst the documented `server_error`) on a socket that stays open, not a connection dropped without a word
    (the rebuild of a finished game, its clock or its chat history failing)."""
    settings = server_settings(tmp_path)
    game_id, tokens = _finished_game(settings)
    _sql(settings, BAD_FINISHED_ROWS[corruption], (game_id,))
    with _restarted(settings) as client:
        answer = _socket(client, game_id, tokens[1], None)
    assert isinstance(answer, dict) and answer["type"] in ("state", "error"), answer


def test_a_malformed_rematch_row_does_not_drop_the_socket(tmp_path: Path) -> None:
    """A finished game's rematch row holds `"ab"` for its seats. A `rematch` ask is answered (a new table,
    or an error) on a socket that stays open."""
    settings = server_settings(tmp_path)
    game_id, tokens = _finished_game(settings)
    _sql(
        settings,
        """INSERT INTO rematches (game_id, seats, new_game_id) VALUES (?, '"ab"', NULL)""",
        (game_id,),
    )
    with _restarted(settings) as client:
        answer = _socket(client, game_id, tokens[1], {"type": "rematch"})
    assert isinstance(answer, dict) and answer["type"] in ("rematch_pending", "rematch", "error"), answer
