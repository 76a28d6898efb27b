"""What nodes may do at the same moment: a sweep of open tables starting a rematch's table, a rematch whose
start fails, the first two rematch asks on two nodes, and the flag of a seat its person took back from a
bot (stored, so it holds on every node)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.server.conftest import cheap_argon2  # noqa: F401  (argon2 at tiny costs, as in tests/server)
from tests.server.helpers import (
    first_legal_bots,
    hello,
    locked_write,
    next_of_kinds,
    read_until,
    server_settings,
    two_seats,
    until_finished,
)
from tests.server.test_controls import FISCHER, FakeTime, table
from tests.store.conftest import pg_cluster  # noqa: F401  (the throwaway PostgreSQL fixture)
from tests.store.pg import PgCluster
from throne.server import lobby
from throne.server.app import create_app
from throne.server.match import MoveRefused
from throne.store import Database, Repo
from throne.store.models import Rematch


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(server_settings(tmp_path))) as c:
        yield c


def _resign_and_finish(ws0: Any, ws1: Any) -> None:
    ws0.send_json({"type": "resign"})
    until_finished(ws0)
    until_finished(ws1)


# ---- 1. every node's sweep starts full tables: a rematch's table too, drawing its seats --------------------


def test_a_sweep_at_the_moment_a_rematch_is_made_keeps_its_sides_swapped(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/server-api.md: a rematch of a two-seat game swaps the sides. Its table is committed full, then
    started; a sweep of open tables that runs in between (any node's) starts it first, and the sides are still
    swapped: the seats carry them (it was seated at random half the time; the draw is forced here to the
    seating that kept the sides)."""
    hub = client.app.state.hub
    caps = client.app.state.caps
    game_id, tokens = table(client, None)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        _resign_and_finish(ws0, ws1)
        ws0.send_json({"type": "rematch"})
        assert read_until(ws1, "rematch_pending")[0]["seats"] == [0]

        db = hub.db

        async def sweep_meanwhile(fn: Any, *args: Any, **kwargs: Any) -> Any:
            result = await db(fn, *args, **kwargs)
            if fn == hub.repo.create_game and kwargs.get("rematch_of") is not None:
                # another node's sweep of open tables lists the committed rematch table: full and open
                await caps.sweep(hub)
            return result

        monkeypatch.setattr(hub, "db", sweep_meanwhile)
        monkeypatch.setattr(lobby._rng, "shuffle", lambda seq: seq.reverse())  # the sweep's draw
        ws1.send_json({"type": "rematch"})
        made = {seat: next_of_kinds(ws, ("rematch", "error")) for seat, ws in ((0, ws0), (1, ws1))}
    monkeypatch.undo()
    assert all(m["type"] == "rematch" for m in made.values()), made
    new_id = made[0]["new_game_id"]
    assert client.get(f"/api/games/{new_id}").json()["game"]["status"] == "live"
    new_seat = {
        old: client.get(f"/api/games/{new_id}/view", headers={"X-Seat-Token": m["token"]}).json()["seat"]
        for old, m in made.items()
    }
    assert new_seat == {0: 1, 1: 0}, f"the rematch's seats by the old ones: {new_seat} (sides not swapped)"


# ---- 2. rematches across nodes ----------------------------------------------------------------------------


def test_a_rematch_whose_start_fails_still_gives_every_seat_its_token(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both seats ask. The rematch's table and its record are committed in one transaction, then the start
    fails (the database refuses the write for a moment). The seats' new tokens, which exist only in that
    request, still reach their sockets, and the start is retried (they were lost: every later ask answered
    `rematch_done` without a token)."""
    game_id, tokens = table(client, None)
    with two_seats(client, game_id, tokens) as (ws0, ws1):
        _resign_and_finish(ws0, ws1)
        ws0.send_json({"type": "rematch"})
        assert read_until(ws1, "rematch_pending")[0]["seats"] == [0]
        monkeypatch.setattr(Repo, "start_game", locked_write)
        ws1.send_json({"type": "rematch"})
        first = next_of_kinds(ws1, ("rematch", "error"))
        monkeypatch.undo()  # the database works again
        if first["type"] != "rematch":  # refused: the client asks again, as after any store_unavailable
            ws1.send_json({"type": "rematch"})
            again = next_of_kinds(ws1, ("rematch", "error"))
            assert again["type"] == "rematch" and again.get("token"), (
                f"the rematch's start failed ({first['code']}); asking again answers {again}: seat 1's new "
                "token is lost"
            )


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_two_nodes_taking_the_first_rematch_asks_at_once_store_both(
    pg_cluster: PgCluster,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two nodes on one PostgreSQL database; the two players of a finished game each ask on their own node
    at the same moment (the first asks of that game, the race forced by a barrier). Both transactions find
    no `rematches` row and insert one: the one that loses the insert reads it again, and both asks count, so
    the rematch is made (the loser's ask was lost, its socket closed by the IntegrityError)."""
    url = pg_cluster.new_database()
    setup = Database(url)
    setup.upgrade()
    setup.dispose()
    barrier = threading.Barrier(2)
    get = Session.get

    def get_together(self: Session, entity: Any, ident: Any, **kwargs: Any) -> Any:
        row = get(self, entity, ident, **kwargs)
        if entity is Rematch and kwargs.get("with_for_update"):
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=2)  # both nodes' reads done before either write (when both get here)
        return row

    with (
        # (a lock wait longer than the barrier's: a store that locks the row does not fail the other ask)
        TestClient(create_app(server_settings(tmp_path / "a", database_url=url, busy_timeout=6.0))) as node_a,
        TestClient(create_app(server_settings(tmp_path / "b", database_url=url, busy_timeout=6.0))) as node_b,
    ):
        game_id, tokens = table(node_a, None)
        with two_seats(node_a, game_id, tokens) as (ws0, ws1):
            _resign_and_finish(ws0, ws1)
        monkeypatch.setattr(Session, "get", get_together)

        def ask(node: TestClient, seat: int) -> str:
            try:
                node.portal.call(node.app.state.hub.rematch, game_id, seat)
            except MoveRefused as exc:
                return exc.code
            except Exception as exc:
                return f"{type(exc).__name__}: {exc}"[:200]
            return "ok"

        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(ask, (node_a, node_b), (0, 1)))
        monkeypatch.undo()
        asked, made = node_a.portal.call(node_a.app.state.hub.db, node_a.app.state.hub.repo.rematch, game_id)
    assert all(a in ("ok", "rematch_pending", "rematch_done") for a in answers), (
        f"the asks answered {answers}; stored asks {asked}, rematch {made}"
    )
    assert asked == [0, 1] and made is not None, f"both asked; stored asks {asked}, rematch {made}"


# ---- 4. flags of seats a bot played -----------------------------------------------------------------------


def test_a_seat_its_player_took_back_from_the_bot_still_loses_on_time(client: TestClient) -> None:
    """A timed, unrated two-seat game: the seat to move is abandoned and a bot takes it over; its player
    comes back and takes it back (`Repo.reclaim`: kind human, `takeover` stays True: "the game had a bot").
    From then on the person plays on the clock, and loses when it runs out (no flag fell for a seat marked
    `takeover`: they moved after their time ran out, and the game would wait for them for ever)."""
    hub = client.app.state.hub
    now = FakeTime()
    hub.now_ms = now
    game_id, tokens = table(client, FISCHER)

    first_legal_bots(hub)
    first = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    other = 1 - first
    with client.websocket_connect(f"/ws/games/{game_id}") as ws_other:
        hello(ws_other, tokens[other])
        hub.settings.abandon_timeout = 0.0  # the absent seat to move is taken over at once
        client.portal.call(hub.matches[game_id].presence_changed)
        state = read_until(ws_other, "state")[0]
        while not state["your_turn"]:  # the bot plays the absent seat's turn
            state = read_until(ws_other, "state")[0]
        hub.settings.abandon_timeout = 3600.0
        with client.websocket_connect(f"/ws/games/{game_id}") as ws_back:
            hello(ws_back, tokens[first])
            ply = state["ply"]
            while state["to_play"] == other:  # the other seat finishes its turn
                ws_other.send_json({"type": "move", "move": state["legal_moves"][0], "ply": ply})
                ply += 1
                state = read_until(ws_other, "state", ply)[0]
            mine = read_until(ws_back, "state")[0]
            while not (mine["your_turn"] and mine["ply"] == ply):  # reclaimed: theirs again
                mine = read_until(ws_back, "state")[0]
            seat = client.portal.call(hub.db, hub.repo.get_game, game_id).seat(first)
            assert seat.kind == "human" and seat.takeover  # (as stored by Repo.reclaim)
            now.ms += mine["clocks"]["remaining_ms"][first] + 5_000  # their clock ran out
            ws_back.send_json({"type": "move", "move": mine["legal_moves"][0], "ply": ply})
            answer = next_of_kinds(ws_back, ("state", "error"))
            while answer["type"] == "state" and answer["ply"] == ply:  # (the end's broadcast comes first)
                answer = next_of_kinds(ws_back, ("state", "error"))
    game = client.get(f"/api/games/{game_id}").json()["game"]
    assert answer["type"] == "error" and answer["code"] == "flag_fell", (
        f"a move 5 s after the clock of seat {first} ran out was answered {answer['type']} "
        f"(ply {answer.get('ply')}); the game is {game['status']}"
    )
    assert game["status"] == "finished" and game["result"]["termination"] == "timeout"
