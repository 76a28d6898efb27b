"""Group commit: owner tasks' moves share transactions; a failed group fails each of its moves and changes
nothing; no move is shown before its transaction committed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from tests import asyncrun
from tests.server.helpers import hello, live_games, read_until, store_hub, two_player_leaders
from throne.server.commit import GroupCommit
from throne.server.lobby import Hub
from throne.store.repo import NewMove, StalePly, StoreUnavailable


class _GatedWriter:
    """Holds the first group until released, so that the next moves queue behind it; records each group."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.groups: list[list[int]] = []
        self.gate = asyncio.Event()

    async def __call__(self, moves: list[NewMove]) -> list[StalePly | None]:
        self.groups.append([m.game_id for m in moves])
        if len(self.groups) == 1:
            await self.gate.wait()
        return await self.hub.db(self.hub.repo.append_moves, moves)


def test_moves_arriving_during_a_commit_share_the_next_transaction(tmp_path: Path) -> None:
    hub = store_hub(tmp_path)
    a, b, c, d = live_games(hub.repo, 4)

    async def play() -> list[list[int]]:
        writer = _GatedWriter(hub)
        commits = GroupCommit(writer)
        first = asyncio.create_task(commits.append(NewMove(a, 0, 0, "x")))
        while not writer.groups:
            await asyncio.sleep(0)
        rest = [asyncio.create_task(commits.append(NewMove(g, 0, 1, "y"))) for g in (b, c, d)]
        while commits.waiting < 3:
            await asyncio.sleep(0)
        assert not first.done()
        writer.gate.set()
        await asyncio.gather(first, *rest)
        await commits.close()
        return writer.groups

    assert asyncrun.run(play()) == [[a], [b, c, d]]
    assert [hub.repo.moves(g) for g in (a, b, c, d)] == [[(0, "x")], [(1, "y")], [(1, "y")], [(1, "y")]]
    hub.repo.db.dispose()


def test_a_failed_group_fails_each_move_and_changes_nothing(tmp_path: Path, monkeypatch) -> None:
    hub = store_hub(tmp_path)
    games = live_games(hub.repo, 3)
    seen: list[int] = []

    def unavailable(moves: list[NewMove]) -> Any:
        seen.append(len(moves))
        raise OperationalError("COMMIT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(hub.repo, "append_moves", unavailable)

    async def play() -> list[BaseException | None]:
        commits = GroupCommit(hub._write_moves)
        moves = [NewMove(g, 0, 0, "x") for g in games]
        answers = await asyncio.gather(*(commits.append(m) for m in moves), return_exceptions=True)
        await commits.close()
        return answers

    answers = asyncrun.run(play())
    assert seen == [3]
    assert all(isinstance(x, StoreUnavailable) for x in answers), answers
    assert len({id(x) for x in answers}) == 3  # each move its own error
    assert hub.breaker.failures == 1  # one failed transaction, not one per move
    monkeypatch.undo()
    for g in games:
        assert (hub.repo.get_game(g).ply, hub.repo.moves(g)) == (0, [])
    hub.repo.db.dispose()


def test_a_failed_group_transaction_rolls_back_every_move(tmp_path: Path) -> None:
    hub = store_hub(tmp_path)
    a, b = live_games(hub.repo, 2)

    def failing_hook(session, info) -> None:
        raise OperationalError("UPDATE ratings", {}, Exception("database is locked"))

    async def play() -> list[BaseException | None]:
        commits = GroupCommit(hub._write_moves)
        moves = [NewMove(a, 0, 0, "x"), NewMove(b, 0, 0, "last", result={"winner": 0}, rate=failing_hook)]
        answers = await asyncio.gather(*(commits.append(m) for m in moves), return_exceptions=True)
        await commits.close()
        return answers

    answers = asyncrun.run(play())
    assert [type(x) for x in answers] == [StoreUnavailable, StoreUnavailable]
    for g in (a, b):
        info = hub.repo.get_game(g)
        assert (info.status, info.ply, hub.repo.moves(g)) == ("live", 0, [])
    hub.repo.db.dispose()


def test_a_group_failing_for_one_bad_move_stores_the_others(tmp_path: Path) -> None:
    hub = store_hub(tmp_path)
    a, b, c = live_games(hub.repo, 3)

    def broken_hook(session, info) -> None:
        raise RuntimeError("a bug in the rating code")

    async def play() -> list[BaseException | None]:
        writer = _GatedWriter(hub)
        commits = GroupCommit(writer)
        first = asyncio.create_task(commits.append(NewMove(a, 0, 0, "x")))
        while not writer.groups:
            await asyncio.sleep(0)
        moves = [NewMove(b, 0, 0, "y", result={"winner": 0}, rate=broken_hook), NewMove(c, 0, 0, "z")]
        rest = [asyncio.create_task(commits.append(m)) for m in moves]
        while commits.waiting < 2:
            await asyncio.sleep(0)
        writer.gate.set()
        answers = await asyncio.gather(first, *rest, return_exceptions=True)
        await commits.close()
        return answers

    answers = asyncrun.run(play())
    assert answers[0] is None and isinstance(answers[1], RuntimeError) and answers[2] is None
    assert hub.repo.moves(a) == [(0, "x")] and hub.repo.moves(b) == [] and hub.repo.moves(c) == [(0, "z")]
    hub.repo.db.dispose()


def test_no_state_is_broadcast_before_its_move_is_committed(client: TestClient) -> None:
    game_id, tokens = two_player_leaders(client)
    hub = client.app.state.hub
    real = hub.broadcast_state
    shown: list[tuple[int, int]] = []

    def checked(match: Any) -> None:
        shown.append((match.ply, len(hub.repo.moves(match.game_id))))  # what the database holds right now
        real(match)

    hub.broadcast_state = checked
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[0])
        state, _ = read_until(ws, "state", 0)
        for ply in range(6):
            seat = state["to_play"]
            token = tokens[seat]
            legal = client.get(f"/api/games/{game_id}/view", headers={"X-Seat-Token": token}).json()
            move = {"move": legal["legal_moves"][0], "ply": ply}
            r = client.post(f"/api/games/{game_id}/move", json=move, headers={"X-Seat-Token": token})
            assert r.status_code == 200, r.text
            state, _ = read_until(ws, "state", ply + 1)
    assert [s for s in shown if s[0] > 0] == [(p, p) for p in range(1, 7)]
