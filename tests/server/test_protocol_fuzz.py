"""Randomized sequences of valid and invalid game-socket messages from random sockets (seats and spectators),
Leaders and Hidden Leaders, untimed and Fischer, checked after every step against the store replayed through
the engine, against each other, and against the server log (fixed seeds: a failure reproduces); and the cases
they found, one test each."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, join_as, seat_view, server_settings
from throne.server import lobby
from throne.server.app import create_app
from throne.server.games import kind_of, rebuild
from throne.server.match import Match

FISCHER = {"kind": "fischer", "minutes": 1, "increment": 2}

DOCUMENTED = {
    "bad_json", "bad_message", "too_large", "rate_limited", "need_hello", "bad_token", "spectator",
    "not_live", "not_your_turn", "stale", "flag_fell", "illegal_move", "game_over", "store_unavailable",
    "server_error", "not_your_seat", "draw_unavailable", "draw_declined", "offer_pending", "no_offer",
    "nothing_to_take_back", "nothing_to_undo", "undo_unavailable", "revealed", "decision_pending",
    "takeback_declined", "no_claim", "not_finished", "rematch_pending", "rematch_done", "bad_chat",
    "chat_rate_limited", "login_needed",
}  # fmt: skip
CONTROL_KINDS = (
    "resign", "draw_offer", "draw_answer", "rematch", "claim_win",
    "takeback_request", "takeback_answer", "undo",
)  # fmt: skip


class FakeTime:
    def __init__(self, ms: int = 1_000_000) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.records.append(record)


@contextlib.contextmanager
def error_log() -> Iterator[_Errors]:
    handler = _Errors()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


class Sock:
    def __init__(self, name: str, ws: Any, token: str | None, seat: int | None) -> None:
        self.name, self.ws, self.token, self.seat = name, ws, token, seat
        self.state: dict[str, Any] | None = None
        self.got: list[dict[str, Any]] = []
        self.pongs = 0  # pongs owed for pings sent as actions

    def send(self, msg: Any) -> None:
        if isinstance(msg, dict) and msg.get("type") == "ping":
            self.pongs += 1
        if isinstance(msg, str):
            self.ws.send_text(msg)
        else:
            self.ws.send_json(msg)

    def sync(self) -> list[dict[str, Any]]:
        """Pings and reads up to the pong: everything the server queued for this socket before."""
        self.ws.send_json({"type": "ping"})
        out = []
        for _ in range(5000):
            msg = self.ws.receive_json()
            if msg["type"] == "pong" and self.pongs:
                self.pongs -= 1
                continue
            if msg["type"] == "pong":
                self.got.extend(out)
                return out
            if msg["type"] == "state":
                self.state = msg
            out.append(msg)
        raise AssertionError(f"{self.name}: no pong")


def _make_table(
    client: TestClient, game: str, players: int, control: dict[str, Any] | None
) -> tuple[int, dict[int, str], dict[str, str]]:
    """A live table of `players` guests; {engine seat: token} and a spectator's session cookies."""
    as_guest(client, "p0")
    body = {"game": game, "players": players, "time_control": control or {"kind": "untimed"}}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    game_id = r.json()["game"]["id"]
    tokens = [r.json()["token"], *(join_as(client, game_id, f"p{n}") for n in range(1, players))]
    client.cookies.clear()
    as_guest(client, "watcher")
    watcher = dict(client.cookies)
    return game_id, {seat_view(client, game_id, t)["seat"]: t for t in tokens}, watcher


def _random_bots(hub: Any) -> None:
    async def choose(_game: str, state: Any, _seat: int, _bot: str, *, ply: int, **_kw: Any) -> str:
        return random.Random(ply).choice(state.legal_moves())

    hub.chooser = choose


async def _settle(hub: Any, game_id: int) -> None:
    """Waits until the game's owner has nothing left to do (bots included)."""
    idle = 0
    for _ in range(4000):
        m = hub.matches.get(game_id)
        if m is None:
            return
        bot_turn = False
        if not m.over:
            s = m.info.seat(m.state.to_play)
            bot_turn = s is not None and s.kind == "bot"
        busy = m._bot_task is not None and not m._bot_task.done()
        if m.inbox.empty() and m._handling is None and not busy and not bot_turn:
            idle += 1
            if idle >= 5:
                return
        else:
            idle = 0
        await asyncio.sleep(0.002)
    raise AssertionError("the game never settled")


class Fuzz:
    def __init__(self, client: TestClient, rng: random.Random, game_id: int, tokens: dict[int, str],
                 watcher: dict[str, str], timed: bool, fake: FakeTime) -> None:  # fmt: skip
        self.client, self.rng, self.game_id, self.tokens = client, rng, game_id, tokens
        self.watcher, self.timed, self.fake = watcher, timed, fake
        self.hub = client.app.state.hub
        self.kind = kind_of(self.hub.repo.get_game(game_id).game)
        self.socks: list[Sock] = []
        self.stack = contextlib.ExitStack()
        self.trace: list[str] = []

    def open(self, name: str, token: str | None, seat: int | None, cookies: dict[str, str] | None = None,
             spectate: bool = False) -> Sock:  # fmt: skip
        self.client.cookies.clear()
        if cookies:
            self.client.cookies.update(cookies)
        ws = self.stack.enter_context(self.client.websocket_connect(f"/ws/games/{self.game_id}"))
        self.client.cookies.clear()
        sock = Sock(name, ws, token, seat)
        ws.send_json({"type": "hello", "token": token, "spectate": spectate})
        sock.sync()
        assert any(m["type"] == "welcome" for m in sock.got), sock.got
        return sock

    def setup(self) -> None:
        for seat, token in sorted(self.tokens.items()):
            self.socks.append(self.open(f"seat{seat}", token, seat))
        self.socks.append(self.open("seat0-tab2", self.tokens[0], 0))
        self.socks.append(self.open("spectator", None, None, self.watcher, spectate=True))
        self.socks.append(self.open("anon", None, None))

    # ---- the model -------------------------------------------------------------------------------------
    def truth(self) -> tuple[Any, Any, list[tuple[int, str]]]:
        repo = self.hub.repo
        info = repo.get_game(self.game_id)
        moves = repo.moves(self.game_id)
        return info, rebuild(self.kind, info, moves), moves

    def sync_all(self) -> dict[str, list[dict[str, Any]]]:
        self.client.portal.call(_settle, self.hub, self.game_id)
        got = {s.name: s.sync() for s in self.socks}
        self.check_events(got)
        return got

    def check_events(self, got: dict[str, list[dict[str, Any]]]) -> None:
        """Each state's events are, ply by ply, the engine's events of those moves as its seat sees them."""
        info, _, moves = self.truth()
        spec = self.kind.spec
        for name, msgs in got.items():
            for msg in msgs:
                if msg["type"] != "state" or not msg["events"]:
                    continue
                by_ply: dict[int, list[dict[str, Any]]] = {}
                for ev in msg["events"]:
                    by_ply.setdefault(ev["ply"], []).append(ev)
                assert list(by_ply) == sorted(by_ply) and max(by_ply) <= msg["ply"], (name, msg["events"])
                for p, evs in by_ply.items():
                    if p > len(moves) or msg["ply"] != len(moves):
                        continue  # an older state of this step (a takeback since): not checked here
                    before = rebuild(self.kind, info, moves[: p - 1])
                    after = rebuild(self.kind, info, moves[:p])
                    seat, move = moves[p - 1]
                    want = [{"ply": p, "seat": seat, **e}
                            for e in spec.move_events(before, move, after, msg["seat"])]  # fmt: skip
                    assert evs == want, (name, msg["seat"], p, evs, want, self.trace[-3:])

    def check(self, step: int) -> None:
        info, state, moves = self.truth()
        where = f"step {step}: {self.trace[-3:]}"
        assert info.ply == len(moves), where
        live = info.status == "live"
        out = info.seats_out() if live else frozenset()
        for s in self.socks:
            st = s.state
            assert st is not None, (s.name, where)
            assert st["ply"] == len(moves), (s.name, st["ply"], len(moves), where)
            assert st["status"] == info.status, (s.name, st["status"], info.status, where)
            assert st["result"] == info.result, (s.name, st["result"], info.result, where)
            seat = None if s.seat is None or s.seat in out else s.seat
            assert st["seat"] == seat, (s.name, st["seat"], seat, where)
            assert st["view"] == self.kind.view(state, seat), (s.name, "view differs from the replay", where)
            if live:
                assert st["to_play"] == state.to_play, (s.name, where)
                bot = info.seat(state.to_play).kind == "bot"
                mine = seat is not None and seat == state.to_play and not bot
                assert st["your_turn"] == mine, (s.name, where)
                if mine:
                    assert sorted(st["legal_moves"]) == sorted(state.legal_moves()), (s.name, where)
                else:
                    assert st["legal_moves"] == [], (s.name, where)
                if self.timed:
                    assert st["clocks"]["running"] == state.to_play, (s.name, st["clocks"], where)
            else:
                assert st["to_play"] is None and not st["your_turn"], (s.name, where)
        first = self.socks[0].state
        for s in self.socks[1:]:
            for key in ("ply", "to_play", "status", "result"):
                assert s.state[key] == first[key], (s.name, key, where)
            if live:
                assert s.state["offers"] == first["offers"], (
                    s.name,
                    s.state["offers"],
                    first["offers"],
                    where,
                )
        m = self.hub.matches.get(self.game_id)
        if m is not None:
            assert m.ply == len(moves), where

    # ---- actions ---------------------------------------------------------------------------------------
    def pick(self) -> Sock:
        return self.rng.choice(self.socks)

    def action(self) -> tuple[Sock, Any, str | None]:
        """A random message from a random socket: (socket, message, the error code it must get or None
        when it must succeed, or '?' when either may happen)."""
        rng = self.rng
        _info, state, moves = self.truth()
        ply = len(moves)
        live = _info.status == "live"
        r = rng.random()
        if r < 0.4 and live:
            mover = [s for s in self.socks if s.seat == state.to_play]
            legal = list(state.legal_moves())
            if mover and rng.random() < 0.8:
                sock = rng.choice(mover)
                quiet = [m for m in legal if not m.startswith("+")]  # no recruit: a takeback may pass it
                if quiet and rng.random() < 0.6:
                    legal = quiet
                seat_row = _info.seat(state.to_play)
                expect = None if seat_row.kind == "human" else "not_your_turn"
                if self.timed:
                    expect = "?"  # a flag may fall
                return (
                    sock,
                    {"type": "move", "move": rng.choice(legal), "ply": rng.choice([ply, None])},
                    expect,
                )
            variant = rng.randrange(5)
            sock = self.pick()
            move = rng.choice(legal)
            if sock.seat is None:
                return sock, {"type": "move", "move": move, "ply": ply}, "spectator"
            if variant == 0:
                return sock, {"type": "move", "move": move, "ply": ply + rng.choice([-1, 1, 5])}, "?"
            if variant == 1:
                return sock, {"type": "move", "move": "zz-nope", "ply": ply}, "?"
            return sock, {"type": "move", "move": move, "ply": ply}, "?"
        if r < 0.7:
            kind = rng.choice(CONTROL_KINDS)
            offers = self.socks[0].state["offers"] if self.socks[0].state else {}
            if offers.get("takeback") is not None and rng.random() < 0.5:
                kind = "takeback_answer"
            if offers.get("draw") is not None and rng.random() < 0.3:
                kind = "draw_answer"
            if kind in ("resign", "draw_answer") and rng.random() < 0.9:  # keep games going a while
                kind = rng.choice(("takeback_request", "takeback_answer", "undo", "draw_offer"))
            msg: dict[str, Any] = {"type": kind}
            if kind in ("draw_answer", "takeback_answer"):
                msg["accept"] = rng.random() < 0.6
            if kind in ("takeback_request", "undo") and rng.random() < 0.5:
                msg["ply"] = rng.choice([ply, ply, max(0, ply - 1)])
            sock = self.pick()
            return sock, msg, ("spectator" if sock.seat is None else "?")
        if r < 0.8:
            bad = rng.choice([
                "not json", "[1, 2]", '{"type": 7}', '{"type": "nope"}', '{"type": "move"}',
                '{"type": "move", "move": ""}', '{"type": "move", "move": "x", "ply": -1}',
                '{"type": "move", "move": "x", "ply": true}', '{"type": "hello"}',
                '{"type": "draw_answer"}', '{"type": "takeback_answer", "accept": 1}',
                '{"type": "undo", "ply": "3"}', '{"type": "takeback_request", "ply": 1e3}',
                '{"type": "move", "move": "x", "ply": 99999999999999999999}',
                '{"type": "resign", "ply": -5}',
            ])  # fmt: skip
            code = "bad_json" if bad == "not json" else "bad_message"
            return self.pick(), bad, code
        if r < 0.85:
            text = rng.choice(["gg", "", "x" * 301, "hi\u202e", 5, "well played"])
            return self.pick(), {"type": "chat", "text": text}, "?"
        if r < 0.9:
            return self.pick(), "reconnect", None
        if r < 0.97 and self.timed and live:
            return (
                self.pick(),
                ("time", rng.choice([100, 1_000, 1_000, 3_000, 5_000, 10_000] * 3 + [70_000])),
                None,
            )
        return self.pick(), {"type": "ping"}, None

    def step(self, n: int) -> None:
        sock, msg, expect = self.action()
        self.trace.append(f"{sock.name}: {msg!r} (expect {expect})")
        before_info, _, before_moves = self.truth()
        if msg == "reconnect":
            self.socks.remove(sock)
            watcher = sock.name == "spectator"
            cookies = self.watcher if watcher else None
            fresh = self.open(sock.name, sock.token, sock.seat, cookies, spectate=watcher)
            self.socks.append(fresh)
            self.sync_all()
            return
        if isinstance(msg, tuple):
            self.fake.ms += msg[1]
            m = self.hub.matches.get(self.game_id)
            if m is not None and self.rng.random() < 0.5:  # else the next move or control finds it
                self.client.portal.call(m.poke)
            self.sync_all()
            return
        sock.send(msg)
        mine = sock.sync()
        others = self.sync_all()
        self.trace[-1] += " -> " + repr([(x["type"], x.get("ply"), x.get("code")) for x in mine])
        errors = [x for x in mine if x["type"] == "error"]
        assert len(errors) <= 1, (errors, self.trace[-3:])
        for err in errors:
            assert err["code"] in DOCUMENTED, (err, self.trace[-3:])
            assert err["code"] != "server_error", (err, self.trace[-3:])
            kind = msg.get("type") if isinstance(msg, dict) else None
            if kind in CONTROL_KINDS or kind == "chat":
                assert err.get("request") == kind, (err, self.trace[-3:])
        if expect is not None and expect != "?":
            assert errors and errors[0]["code"] == expect, (expect, errors, self.trace[-3:])
        if expect is None and isinstance(msg, dict) and msg["type"] == "move":
            assert not errors, (errors, self.trace[-3:])
        after_info, _, after_moves = self.truth()
        if errors and errors[0]["code"] == "game_over":
            assert after_info.status != "live", ("game_over while the game is live", errors, self.trace[-3:])
        flag_fell = [s.left for s in after_info.seats].count("timeout") > [
            s.left for s in before_info.seats
        ].count("timeout")  # the refused message found a flag down: that seat's bot played on
        if errors and errors[0]["code"] not in ("flag_fell", "game_over") and not flag_fell:
            # nothing changed: the store, and no socket was sent a new state
            assert after_moves == before_moves and after_info.status == before_info.status, self.trace[-3:]
            assert after_info.seats == before_info.seats, self.trace[-3:]
            for name, got in others.items():
                states = [x for x in got if x["type"] in ("state", "table")]
                assert not states, (name, "was sent", states, "after a refused", self.trace[-3:])
            assert not [x for x in mine if x["type"] in ("state", "table")], (mine, self.trace[-3:])


def _fuzz(tmp_path: Path, game: str, players: int, control: dict[str, Any] | None, seed: int,
          steps: int) -> None:  # fmt: skip
    settings = server_settings(tmp_path, ws_max_refused=1_000_000, chat_rate_per_s=1000.0, chat_burst=1000)
    fake = FakeTime()
    with (
        error_log() as errors,
        pytest.MonkeyPatch.context() as mp,
        TestClient(create_app(settings)) as client,
    ):
        mp.setattr(lobby, "new_secret", lambda: f"{seed:032x}")  # the same deal and seating every run
        mp.setattr(lobby, "_rng", random.Random(seed))
        # flags fall when the fuzzer pokes, or at the next move or control: never on a real-time timer
        mp.setattr(Match, "_arm_flag", lambda self: None)
        client.app.state.hub.now_ms = fake
        _random_bots(client.app.state.hub)
        game_id, tokens, watcher = _make_table(client, game, players, control)
        fuzz = Fuzz(client, random.Random(seed), game_id, tokens, watcher, control is not None, fake)
        with fuzz.stack:
            fuzz.setup()
            fuzz.sync_all()
            fuzz.check(0)
            after_end = 0
            for n in range(1, steps + 1):
                fuzz.step(n)
                fuzz.check(n)
                assert not errors.records, [
                    (r.getMessage(), r.exc_info and r.exc_info[1]) for r in errors.records
                ] + fuzz.trace[-3:]
                if fuzz.socks[0].state["status"] != "live":
                    after_end += 1
                    if after_end > 15:
                        break


CONFIGS = {
    "leaders": ("leaders", 2, None),
    "leaders-fischer": ("leaders", 2, FISCHER),
    "hidden": ("hidden-leaders", 3, None),
    "hidden-fischer": ("hidden-leaders", 3, FISCHER),
}


@pytest.mark.parametrize(("config", "seed"), [(c, 0) for c in CONFIGS] + [("hidden-fischer", 5)])
def test_random_protocol(tmp_path: Path, config: str, seed: int) -> None:
    """Random valid and invalid messages from random sockets (two tabs of one seat, a spectator with a
    session, one without): after every step every socket's last state agrees with the others and with
    the store's move list replayed through the engine (ply, status, result, to_play, the seat's own view,
    legal moves, offers, running clock), each state's events are the engine's for that seat, a refusal
    changes nothing and sends no state, `game_over` only once the game is over, and nothing is logged at
    ERROR. Seed 5 of hidden-fischer meets a flag that fell before a control
    (test_a_control_after_another_seats_flag_fell_is_not_refused_as_game_over)."""
    game, players, control = CONFIGS[config]
    _fuzz(tmp_path, game, players, control, seed, 300)


def _hidden_timed(client: TestClient, fake: FakeTime, players: int = 3) -> tuple[int, dict[int, str]]:
    client.app.state.hub.now_ms = fake
    game_id, tokens, _ = _make_table(client, "hidden-leaders", players, FISCHER)
    return game_id, tokens


def _next(ws: Any, kind: str, until: Any = lambda m: True, limit: int = 200) -> dict[str, Any]:
    for _ in range(limit):
        msg = ws.receive_json()
        if msg["type"] == kind and until(msg):
            return msg
    raise AssertionError(f"no {kind}")


def test_a_control_after_another_seats_flag_fell_is_not_refused_as_game_over(client: TestClient) -> None:
    """Hidden Leaders, Fischer: the seat to play runs out of time, and before the flag timer looks, another
    seat resigns. The flag fall hands the late seat to a bot and the game goes on (docs: Clocks), so the
    resignation of the other seat is handled (its seat handed to a bot too), not refused with `game_over`
    while the game is live."""
    fake = FakeTime()
    _random_bots(client.app.state.hub)
    game_id, tokens = _hidden_timed(client, fake)
    with contextlib.ExitStack() as stack:
        socks = {s: stack.enter_context(client.websocket_connect(f"/ws/games/{game_id}")) for s in tokens}
        for seat, ws in socks.items():
            ws.send_json({"type": "hello", "token": tokens[seat]})
        first = {seat: _next(ws, "state") for seat, ws in socks.items()}
        late = first[0]["to_play"]
        other = next(s for s in socks if s != late)
        fake.ms += 61_000  # the seat to play is out of time; no timer has looked yet
        socks[other].send_json({"type": "resign"})
        got = []
        socks[other].send_json({"type": "ping"})
        for _ in range(200):
            msg = socks[other].receive_json()
            if msg["type"] == "pong":
                break
            got.append(msg)
        errors = [m for m in got if m["type"] == "error"]
        game = client.get(f"/api/games/{game_id}").json()["game"]
    assert game["status"] == "live"
    assert errors == [], errors
    assert game["seats"][other]["kind"] == "bot" and game["seats"][other].get("takeover")


def _hello(ws: Any, token: str | None, **extra: Any) -> None:
    ws.send_json({"type": "hello", "token": token, **extra})
    _next(ws, "welcome")


def _answers(ws: Any) -> list[dict[str, Any]]:
    """What the server sent `ws` up to the answer of a ping sent now."""
    ws.send_json({"type": "ping"})
    out = []
    for _ in range(200):
        msg = ws.receive_json()
        if msg["type"] == "pong":
            return out
        out.append(msg)
    raise AssertionError("no pong")


def test_a_spectators_move_error_carries_the_move(client: TestClient) -> None:
    """docs/server-api.md: "each `error` also carries the offending `move`, cut to 64 characters, when
    there is one": the socket's own refusals (a spectator's move) as well as the game owner's."""
    game_id, _tokens, _ = _make_table(client, "leaders", 2, None)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        _hello(ws, None, spectate=True)
        _answers(ws)
        ws.send_json({"type": "move", "move": "d1-d2", "ply": 0})
        (error,) = [m for m in _answers(ws) if m["type"] == "error"]
    assert error["code"] == "spectator"
    assert error.get("move") == "d1-d2", error


def test_refused_rematch_asks_do_not_use_up_the_table_creation_limit(client: TestClient) -> None:
    """A `rematch` asked while the game is live is refused `not_finished` and changes nothing: only the ask
    that makes a table pays the address's table-creation rate limit, so after 29 refused asks (and the one
    table made: a burst of 30) the address can still make a table."""
    game_id, tokens, _ = _make_table(client, "leaders", 2, None)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        _hello(ws, tokens[0])
        codes = []
        for _ in range(29):  # with the table made above: the address's burst of 30
            ws.send_json({"type": "rematch"})
            codes += [m["code"] for m in _answers(ws) if m["type"] == "error"]
    assert set(codes) == {"not_finished"}, codes
    as_guest(client, "maker")
    r = client.post("/api/games", json={"game": "leaders", "players": 2})
    assert r.status_code == 201, r.text
