"""Playing games on cluster nodes from the tests: who owns a game, moves sent as a client sends them, and
the check that a game's log and every seat's view agree."""

from __future__ import annotations

import json
import random
from typing import Any

import redis
import sqlalchemy as sa

from tests.cluster.nodes import Player
from throne.server.games import kind_of, rebuild
from throne.store import Repo

STEP = 30.0  # seconds any one step may take on a loaded machine
RETRY = ("owner_moved", "owner_unavailable", "store_unavailable")  # a client sends those moves again


def lease_owner(r: redis.Redis, game: int) -> str | None:
    raw = r.get(f"throne:lease:{game}")
    return None if raw is None else raw.decode().rpartition("|")[0]


def advance(players: list[Player], plies: int, rng: random.Random) -> int:
    """Plays until the game is `plies` further (people move at random, bots by themselves); returns the
    ply reached."""
    ply = max(p.wait_ply(0, STEP)["ply"] for p in players)
    target = ply + plies
    while ply < target:
        states = [p.wait_ply(ply, STEP) for p in players]
        if any(s["status"] != "live" for s in states):
            break
        mover = next((p for p, s in zip(players, states, strict=True) if s["your_turn"]), None)
        if mover is not None and mover.state is not None and mover.state["ply"] == ply:
            play(mover, rng.choice(mover.state["legal_moves"]), ply)
        ply = min(p.wait_ply(ply + 1, STEP)["ply"] for p in players)
    return ply


def play(mover: Player, move: str, ply: int) -> None:
    """Sends a move until it is played: a move refused because its game is moving to another node is sent
    again, as a client does (the ply makes a second send of a move that was played a `stale` refusal)."""
    mover.move(move, ply)

    def answered(m: dict[str, Any]) -> bool:
        return m["type"] == "error" or (m["type"] == "state" and m["ply"] > ply)

    while True:
        got = mover.recv_until(answered, STEP)
        if got["type"] == "state" or got["code"] == "stale":
            return
        assert got["code"] in RETRY, got
        mover.move(move, ply)


def resting(players: list[Player]) -> int:
    """The ply at which the game waits for one of `players` (its bots move on by themselves until then)."""
    ply = max(p.wait_ply(0, STEP)["ply"] for p in players)
    while True:
        states = [p.wait_ply(ply, STEP) for p in players]
        if any(s["ply"] > ply for s in states):
            ply = max(s["ply"] for s in states)
        elif any(s["your_turn"] for s in states) or states[0]["status"] != "live":
            return ply
        else:
            ply += 1


def check_log_and_views(repo: Repo, engine: Any, game: int, players: list[Player]) -> int:
    """The log has plies 0..n-1 (no gap, no duplicate) and n is the game's ply; each seat's last view is
    the view the engine gives that seat after replaying the log. Checked once the game waits for one of
    `players`, so that its bots do not move on while the log is read."""
    resting(players)
    with engine.connect() as conn:
        query = sa.text("SELECT ply FROM moves WHERE game_id = :g ORDER BY ply")
        plies = [row[0] for row in conn.execute(query, {"g": game})]
    info = repo.get_game(game)
    assert plies == list(range(len(plies))) and info.ply == len(plies)
    moves = repo.moves(game)
    state = rebuild(kind_of(info.game), info, moves)
    for p in players:
        seen = p.wait_ply(len(plies), STEP)
        assert seen["ply"] == len(plies)
        assert seen["view"] == json.loads(json.dumps(state.view(p.seat))), f"{p.name}'s view differs"
    return len(plies)
