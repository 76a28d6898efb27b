"""Chess clocks and table controls across `throne serve --redis` nodes on loopback.

- A Fischer game whose players sit on nodes other than its owner survives the owner's SIGKILL with its
  clocks right: the seat not to move keeps exactly the time the log's last clock snapshot gives it, the seat
  to move is charged only from the new owner's claim (never the time the game had no owner, never credited),
  every later state's clocks equal the snapshot stored with its move, and no move is stored twice.
- A flag that falls on the new owner (the stored clock gives the seat to move little or no time) ends the
  game exactly once.
- Resign, draw offer + accept and takeback request + accept sent from sockets on a node that does not own
  the game (data-driven over where each socket sits).
- A draw offer or takeback request pending when its owner is killed is dropped by the new owner: every
  socket (none reconnects) is shown no pending offer, an answer sent meanwhile is refused, nothing applied.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.cluster.nodes import Node, Player, Shared, ready_nodes, until
from tests.cluster.play import STEP, check_log_and_views, lease_owner, play
from throne.store import Database, Repo

LEASE_TTL = 3.0
FISCHER = {"kind": "fischer", "minutes": 1, "increment": 2}
INCREMENT_MS = 2000


@pytest.fixture
def store(shared: Shared, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Database, Repo]]:
    monkeypatch.setenv("THRONE_CLOCK_CHECKPOINT", "0.2")  # the nodes store the running clock often
    db = Database(shared.database)
    try:
        yield db, Repo(db)
    finally:
        db.dispose()


def timed_table(ann: Player, bob: Player, control: dict[str, Any] = FISCHER) -> int:
    """As `leaders_table`, with a time control: bob's join on his node starts the game there."""
    body = {"game": "leaders", "players": 2, "time_control": control}
    made = ann.http.post("/api/games", json=body).json()
    ann.token, ann.game_id = made["token"], made["game"]["id"]
    joined = bob.http.post(f"/api/games/{ann.game_id}/join", json={}).json()
    bob.token, bob.game_id = joined["token"], ann.game_id
    return ann.game_id


def _quiet_move(state: dict[str, Any]) -> str:
    """A move that recruits nothing (reveals nothing, so it may be taken back)."""
    return next((m for m in state["legal_moves"] if not m.startswith("+")), state["legal_moves"][0])


def revealed(state: dict[str, Any] | None) -> bool:
    """Whether the last move of `state` refilled the market from the deck (no takeback goes past it)."""
    assert state is not None
    return any(e["type"] == "refill" and e.get("card") is not None for e in state["events"])


def step(players: list[Player], ply: int) -> int:
    """The seat to move plays one quiet move at `ply`; returns the next ply once every player saw it."""
    states = [p.wait_ply(ply, STEP) for p in players]
    assert all(s["ply"] == ply and s["status"] == "live" for s in states), [s["ply"] for s in states]
    mover = next(p for p, s in zip(players, states, strict=True) if s["your_turn"])
    play(mover, _quiet_move(states[players.index(mover)]), ply)
    for p in players:
        p.wait_ply(ply + 1, STEP)
    return ply + 1


def stored(db: Database, game: int) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any] | None]]]:
    """The game's clock (its row) and each logged move's seat and clock snapshot, by ply."""
    with db.engine.connect() as conn:
        clock = conn.execute(sa.text("SELECT clock FROM games WHERE id = :g"), {"g": game}).scalar_one()
        rows = conn.execute(
            sa.text("SELECT seat, clock FROM moves WHERE game_id = :g ORDER BY ply"), {"g": game}
        ).all()
    return _json(clock), [(seat, _json(c)) for seat, c in rows]


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def check_clocks(players: list[Player], db: Database, game: int, ply: int) -> dict[str, Any]:
    """Every player's state at `ply` shows the seat to move's clock running and the other clocks exactly as
    the snapshot stored with move `ply` - 1; the seat to move was not credited. Returns one state's clocks."""
    _, log = stored(db, game)
    assert len(log) == ply, f"{len(log)} moves stored at ply {ply}"
    snap = log[-1][1]
    assert snap is not None
    seen = [p.wait_ply(ply, STEP) for p in players]
    for state in seen:
        assert state["ply"] == ply
        clocks = state["clocks"]
        assert clocks["running"] == state["to_play"] == snap["running"], (clocks, state["to_play"], snap)
        for seat, left in enumerate(clocks["remaining_ms"]):
            if seat == clocks["running"]:
                assert left <= snap["remaining_ms"][seat]
            else:
                assert left == snap["remaining_ms"][seat], (seat, clocks, snap)
    return seen[0]["clocks"]


ASK = {"draw": "draw_offer", "takeback": "takeback_request"}  # the message asking for each


def offered_or_refused(kind: str, seat: int | None) -> Callable[[dict[str, Any]], bool]:
    """A `state` showing `seat`'s pending draw offer or takeback request (`kind`), or a refusal."""
    return lambda m: m["type"] == "error" or (m["type"] == "state" and m["offers"][kind] == seat)


def kill(node: Node, shared: Shared, game: int) -> int:
    """SIGKILLs the owner; returns the earliest time (ms, wall clock) another node can claim `game`."""
    node.kill()
    read = int(time.time() * 1000)
    lease_left = shared.redis.pttl(f"throne:lease:{game}")
    assert lease_left > 0, "the dead node's lease is already gone"
    return read + lease_left


def after(player: Player, since_ms: int, status: str | None = None) -> dict[str, Any]:
    """The next `state` computed after `since_ms` (the owner's clock), of `status` if given."""

    def fits(m: dict[str, Any]) -> bool:
        return (
            m["type"] == "state"
            and m["clocks"] is not None
            and m["clocks"]["server_time"] >= since_ms
            and (status is None or m["status"] == status)
        )

    return player.recv_until(fits, STEP)


def _stop(players: list[Player], nodes: list[Node]) -> None:
    for p in players:
        p.close()
    for n in nodes:
        n.stop()


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_clocks_are_right_after_the_owner_is_killed(
    shared: Shared, store: tuple[Database, Repo], tmp_path: Path
) -> None:
    db, repo = store
    nodes = ready_nodes("k", 3, shared.database, shared.redis_url, tmp_path, LEASE_TTL)
    players: list[Player] = []
    try:
        a, b, c = nodes
        ann, bob = Player(a, "ann"), Player(b, "bob")
        players = [ann, bob]
        game = timed_table(ann, bob)
        assert lease_owner(shared.redis, game) == b.name
        ann.connect(a)  # on another node than the owner
        bob.connect(b)  # on the owner: killed with it, he reconnects elsewhere
        ply = 0
        while ply < 4 or players[0].wait_ply(ply, STEP)["to_play"] != ann.seat:
            ply = step(players, ply)
            check_clocks(players, db, game, ply)
        runner = ann.seat  # bob moved last: ann's clock runs
        assert runner is not None

        def checkpointed() -> bool:  # the running clock was stored since the last move
            clock, log = stored(db, game)
            return clock["remaining_ms"][runner] < log[-1][1]["remaining_ms"][runner]  # type: ignore[index]

        until(checkpointed, STEP, "a checkpoint")

        claim_at = kill(b, shared, game)
        snap, log = stored(db, game)  # what the new owner will read: nobody writes it meanwhile
        assert len(log) == ply and snap["running"] == runner
        assert snap["remaining_ms"][1 - runner] == log[-1][1]["remaining_ms"][1 - runner]  # type: ignore[index]
        bob.connect(c)  # his socket died with the owner
        until(lambda: lease_owner(shared.redis, game) in (a.name, c.name), STEP, "a new owner")
        for p in players:
            state = after(p, claim_at)
            assert (state["ply"], state["status"], state["to_play"]) == (ply, "live", runner)
            clocks = state["clocks"]
            assert clocks["running"] == runner
            assert clocks["remaining_ms"][1 - runner] == snap["remaining_ms"][1 - runner]
            charged = snap["remaining_ms"][runner] - clocks["remaining_ms"][runner]
            # never credited, and charged only since the claim (the time without an owner is not charged)
            assert 0 <= charged <= clocks["server_time"] - claim_at + 5, (charged, clocks, claim_at)
        before = check_clocks(players, db, game, ply)["remaining_ms"]
        for _ in range(4):  # the game goes on; each seat gains at most the increment per state
            ply = step(players, ply)
            now = check_clocks(players, db, game, ply)["remaining_ms"]
            assert all(n <= b + INCREMENT_MS for n, b in zip(now, before, strict=True)), (before, now)
            before = now
        assert check_log_and_views(repo, db.engine, game, players) == ply
    finally:
        _stop(players, nodes)


# The time the stored clock gives the seat to move when the new owner claims the game: a flag that falls
# later on the new owner, and one that fell while the game had no owner.
FLAGS = [1500, -300]


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_flag_falls_once_on_the_new_owner(
    shared: Shared, store: tuple[Database, Repo], tmp_path: Path
) -> None:
    db, repo = store
    nodes = ready_nodes("f", 3, shared.database, shared.redis_url, tmp_path, LEASE_TTL)
    a, b, c = nodes
    games: list[tuple[int, list[Player]]] = []
    try:
        for _ in FLAGS:
            ann, bob = Player(a, "ann"), Player(b, "bob")
            game = timed_table(ann, bob)
            ann.connect(a)
            bob.connect(c)
            games.append((game, [ann, bob]))
            ply = 0
            while ply < 2:
                ply = step([ann, bob], ply)
        assert all(lease_owner(shared.redis, g) == b.name for g, _ in games)
        claim_at = kill(b, shared, games[0][0])
        snaps = {}
        with db.engine.begin() as conn:  # before any claim: what the dead owner's last checkpoint said
            for (game, _), left in zip(games, FLAGS, strict=True):
                snap, _log = stored(db, game)
                snap["remaining_ms"][snap["running"]] = left
                snaps[game] = snap
                update = sa.text("UPDATE games SET clock = CAST(:c AS JSON) WHERE id = :g")
                conn.execute(update, {"c": json.dumps(snap), "g": game})
        unclaimed = all(lease_owner(shared.redis, g) == b.name for g, _ in games)
        assert unclaimed, "claimed before the clock was set"
        for (game, seated), left in zip(games, FLAGS, strict=True):
            snap = snaps[game]
            runner = snap["running"]
            plies = len(stored(db, game)[1])
            for p in seated:
                first = after(p, claim_at)
                final = first if first["status"] == "finished" else after(p, claim_at, "finished")
                assert final["result"]["winner"] == 1 - runner, final["result"]
                assert final["result"]["termination"] == "timeout"
                assert final["ply"] == plies and final["clocks"]["running"] is None
                assert final["clocks"]["remaining_ms"][runner] == 0
                assert final["clocks"]["remaining_ms"][1 - runner] == snap["remaining_ms"][1 - runner]
                if first["status"] == "live":  # the flag fell no earlier than the time left said
                    due = first["clocks"]["server_time"] + first["clocks"]["remaining_ms"][runner]
                    assert final["clocks"]["server_time"] >= due - 5, (first["clocks"], final["clocks"])
                    assert left > 0 or first["clocks"]["remaining_ms"][runner] == 0
            info = repo.get_game(game)
            assert info.status == "finished" and info.result["termination"] == "timeout"
            assert info.ply == plies == len(repo.moves(game))
            late = seated[0]  # a move after the end is refused, not played
            late.move("x", plies)
            refused = late.recv_until(lambda m: m["type"] == "error", STEP)
            assert refused["code"] == "game_over", refused
        logs = "".join(n.log.read_text(errors="replace") for n in (a, c))
        for game, _ in games:  # exactly one node saw the flag fall, once
            runner = snaps[game]["running"]
            assert logs.count(f"game {game}: seat {runner} ran out of time") == 1, game
    finally:
        _stop([p for _, seated in games for p in seated], nodes)


# (control, where the socket that asks sits, where the socket that answers sits): "owner" is the node that
# owns the game, "other" another node
CONTROLS = [
    ("resign", "other", None),
    ("draw", "other", "owner"),
    ("draw", "owner", "other"),
    ("draw", "other", "other"),
    ("takeback", "other", "owner"),
    ("takeback", "owner", "other"),
    ("takeback", "other", "other"),
]


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_table_controls_from_a_node_that_does_not_own_the_game(
    shared: Shared, store: tuple[Database, Repo], tmp_path: Path
) -> None:
    db, repo = store
    nodes = ready_nodes("t", 2, shared.database, shared.redis_url, tmp_path, LEASE_TTL)
    owner, other = nodes
    where = {"owner": owner, "other": other}
    players: list[Player] = []
    try:
        for control, asker_at, answerer_at in CONTROLS:
            case = f"{control} from {asker_at}, answered from {answerer_at}"
            ann, bob = Player(other, "ann"), Player(owner, "bob")
            players += [ann, bob]
            game = timed_table(ann, bob)
            assert lease_owner(shared.redis, game) == owner.name, case
            ann.connect(other)
            bob.connect(owner)
            ply = 0
            while ply < 2 or revealed(ann.state):  # a takeback goes back one move: one that revealed nothing
                ply = step([ann, bob], ply)
            last_seat = stored(db, game)[1][-1][0]
            # the asker takes back its own last move; a draw or a resignation comes from either seat
            asker = ann if ann.seat == last_seat else bob
            answerer = bob if asker is ann else ann
            asker.connect(where[asker_at])
            if answerer_at is not None:
                answerer.connect(where[answerer_at])
            for p in (asker, answerer):
                p.wait_ply(ply, STEP)
            assert asker.ws is not None and answerer.ws is not None
            if control == "resign":
                asker.ws.send(json.dumps({"type": "resign"}))
            else:
                asker.ws.send(json.dumps({"type": ASK[control]}))
                for p in (asker, answerer):
                    asked = p.recv_until(offered_or_refused(control, asker.seat), STEP)
                    assert asked["type"] == "state", (case, asked)
                answerer.ws.send(json.dumps({"type": f"{control}_answer", "accept": True}))
            if control == "takeback":
                keep = ply - 1  # the asker's last move, the last of the log
                _, log = stored(db, game)
                for p in (asker, answerer):
                    back = p.recv_until(lambda m, keep=keep: m["type"] == "state" and m["ply"] == keep, STEP)
                    p.state = back
                    assert back["status"] == "live" and back["offers"]["takeback"] is None, case
                    assert back["to_play"] == asker.seat
                    clocks, snap = back["clocks"], log[keep - 1][1]
                    assert snap is not None and clocks["running"] == asker.seat == snap["running"], case
                    assert clocks["remaining_ms"][answerer.seat] == snap["remaining_ms"][answerer.seat], case
                    assert clocks["remaining_ms"][asker.seat] <= snap["remaining_ms"][asker.seat], case
                assert len(repo.moves(game)) == keep, case  # taken back once, not twice
                assert check_log_and_views(repo, db.engine, game, [ann, bob]) == keep, case
                check_clocks([ann, bob], db, game, keep)
                step([ann, bob], keep)  # the game goes on from there
                continue
            for p in (asker, answerer):
                final = p.recv_until(lambda m: m["type"] == "state" and m["status"] == "finished", STEP)
                result = final["result"]
                if control == "resign":
                    assert (result["winner"], result["termination"]) == (answerer.seat, "resign"), case
                else:
                    assert (result["winner"], result["termination"]) == (None, "agreement"), case
                assert final["ply"] == ply and final["clocks"]["running"] is None, case
                assert final["offers"]["draw"] is None, case
            info = repo.get_game(game)
            assert info.status == "finished" and info.ply == ply == len(repo.moves(game)), case
            assert info.result["termination"] == ("resign" if control == "resign" else "agreement"), case
            assert info.clock is not None and info.clock["running"] is None, case
    finally:
        _stop(players, nodes)


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_an_offer_pending_when_the_owner_dies_is_dropped_everywhere(
    shared: Shared, store: tuple[Database, Repo], tmp_path: Path
) -> None:
    db, repo = store
    nodes = ready_nodes("o", 3, shared.database, shared.redis_url, tmp_path, LEASE_TTL)
    a, b, c = nodes
    games: dict[str, tuple[int, Player, Player, int]] = {}  # control -> game, asker, answerer, ply
    players: list[Player] = []
    try:
        # "ended": a draw offered and accepted, which the owner stored and died before it was shown
        for control in ("draw", "takeback", "ended"):
            ann, bob = Player(a, "ann"), Player(b, "bob")
            players += [ann, bob]
            game = timed_table(ann, bob)
            ann.connect(a)  # neither socket is on the owner: none of them reconnects
            bob.connect(c)
            ply = 0
            while ply < 2 or revealed(ann.state):
                ply = step([ann, bob], ply)
            last_seat = stored(db, game)[1][-1][0]
            asker = ann if ann.seat == last_seat else bob
            answerer = bob if asker is ann else ann
            assert asker.ws is not None
            kind = "takeback" if control == "takeback" else "draw"
            asker.ws.send(json.dumps({"type": ASK[kind]}))
            for p in (asker, answerer):
                asked = p.recv_until(offered_or_refused(kind, asker.seat), STEP)
                assert asked["type"] == "state", (control, asked)
            games[control] = (game, asker, answerer, ply)
        assert all(lease_owner(shared.redis, g) == b.name for g, *_ in games.values())
        claim_at = kill(b, shared, games["draw"][0])
        game, _, _, ply = games["ended"]  # the ending the owner wrote as it died (before any claim)
        agreed = {"winners": [], "winner": None, "reason": "agreement", "scores": [0.5, 0.5]}
        clock, _log = stored(db, game)
        repo.finish_game(game, ply, {**agreed, "termination": "agreement"}, None, {**clock, "running": None})
        assert lease_owner(shared.redis, game) == b.name, "claimed before the ending was stored"
        for p in games["ended"][1:3]:  # shown everywhere by whichever node finds the game ended
            final = p.recv_until(lambda m: m["type"] == "state" and m["status"] == "finished", STEP)
            assert final["result"]["termination"] == "agreement" and final["ply"] == ply, final
            assert final["offers"]["draw"] is None and final["to_play"] is None and not final["legal_moves"]
            assert final["clocks"]["running"] is None
        del games["ended"]
        # An answer sent while the game has no owner reaches the new owner, which knows of no offer.
        game, asker, answerer, ply = games["draw"]
        assert answerer.ws is not None
        answerer.ws.send(json.dumps({"type": "draw_answer", "accept": True}))
        refused = answerer.recv_until(lambda m: m["type"] == "error", STEP)
        assert refused["code"] == "no_offer", refused
        for control, (game, asker, answerer, ply) in games.items():
            for p in (asker, answerer):  # every socket is shown that nothing waits for an answer any more
                state = p.state
                if state is None or state["offers"][control] is not None:
                    state = p.recv_until(
                        lambda m, c=control: m["type"] == "state" and m["offers"][c] is None, STEP
                    )
                assert state["ply"] == ply and state["status"] == "live", control
                assert state["clocks"]["server_time"] >= claim_at, control
            if control == "takeback":
                assert answerer.ws is not None
                answerer.ws.send(json.dumps({"type": "takeback_answer", "accept": True}))
                refused = answerer.recv_until(lambda m: m["type"] == "error", STEP)
                assert refused["code"] == "no_offer", refused
            info = repo.get_game(game)
            assert info.status == "live" and info.ply == ply == len(repo.moves(game)), control
            ply = step([asker, answerer], ply)  # the game goes on from there, each move stored once
            assert check_log_and_views(repo, db.engine, game, [asker, answerer]) == ply, control
    finally:
        _stop(players, nodes)
