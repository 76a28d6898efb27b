"""A whole Hidden Leaders game (bots + one person + a spectator): no message reveals a secret.

Every message a seat or the spectator receives is compared with the engine's own view for that seat at that
ply (rebuilt afterwards from the finished game's record), and no card or leader that is hidden from that
seat at that ply may appear anywhere in it.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import hello, read_until
from throne.games import hidden_leaders as hl

TOKEN = re.compile(r"[a-z]+(?:-[a-z]+)*")


def _secrets(full: dict[str, Any], view: dict[str, Any], seat: int | None) -> set[str]:
    """Cards and leaders hidden from `seat` at this point, minus whatever its view legitimately shows."""
    hidden: set[str] = set(full["harbor"]) | set(full["wilderness"])
    for other in range(full["players"]):
        if other == seat:
            continue
        hidden |= set(full["hands"][other])
        hidden |= {p["card"] for p in full["parties"][other] if not p["up"]}
        if full["leaders"][other]:
            hidden.add(full["leaders"][other])
    hidden |= set(hl.LEADERS) - {x for x in full["leaders"] if x}  # leaders out of the game
    return hidden - set(TOKEN.findall(json.dumps(view)))


def _tokens(message: dict[str, Any], own_input: str | None = None) -> set[str]:
    text = json.dumps(message)
    if own_input:
        text = text.replace(own_input, "")
    return set(TOKEN.findall(text))


@pytest.mark.parametrize("modules", [["core"], ["core", "legends"]])
def test_no_message_reveals_a_hidden_card(client: TestClient, modules: list[str]) -> None:
    """With ``legends`` the leader pool (leaders never dealt) and other seats' Fate cards stay hidden too."""
    r = client.post(
        "/api/play-bot", json={"game": "hidden-leaders", "players": 4, "bot": "random", "name": "Hu",
                               "options": {"modules": modules}}
    )
    assert r.status_code == 201, r.text
    game_id, seat, token = r.json()["game"]["id"], r.json()["seat"], r.json()["token"]
    rng = random.Random(5)
    received: dict[int | None, list[dict[str, Any]]] = {seat: [], None: []}
    errors: list[tuple[str, dict[str, Any], int]] = []
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as me,
        client.websocket_connect(f"/ws/games/{game_id}") as spectator,
    ):
        hello(me, token)
        hello(spectator, None, spectate=True)
        tried_illegal = False
        while True:
            msg, before = read_until(me, "state")
            received[seat] += [*before, msg]
            if msg["status"] == "finished":
                break
            if msg["your_turn"]:
                if not tried_illegal:  # name a card this seat cannot know: the error must not confirm it
                    tried_illegal = True
                    guess = f"play {sorted(hl.CARDS)[rng.randrange(len(hl.CARDS))]}"
                    me.send_json({"type": "move", "move": guess, "ply": msg["ply"]})
                    error, more = read_until(me, "error")
                    received[seat] += more
                    errors.append((guess, error, msg["ply"]))
                me.send_json({"type": "move", "move": rng.choice(msg["legal_moves"]), "ply": msg["ply"]})
        while True:
            msg, before = read_until(spectator, "state", limit=2000)
            received[None] += [*before, msg]
            if msg["status"] == "finished":
                break

    record = client.get(f"/api/games/{game_id}/record").json()
    assert record["rng"] == 2 and len(record["seed"]) == 32  # the finished game's 128-bit secret, public now
    live = [m for messages in received.values() for m in messages if m.get("status") != "finished"]
    assert live and not any(record["seed"] in json.dumps(m) for m in live)  # never sent while live
    state = hl.new_game(
        players=4,
        seed=record["seed"],
        variant=record["variant"],
        modules=tuple(record["modules"]),
        rng=record["rng"],
    )
    plies = [(state.view(seat), state.view(None), state.to_json())]
    for mover, move in record["moves"]:
        assert state.to_play == mover
        state.play(move)
        plies.append((state.view(seat), state.view(None), state.to_json()))
    assert state.is_over and record["result"]["winner"] == state.winner

    checked = 0
    events_seen: dict[int | None, set[int]] = {who: set() for who in received}
    for who, messages in received.items():
        states = [m for m in messages if m["type"] == "state"]
        assert states[-1]["ply"] == len(record["moves"])
        for message in messages:
            if message["type"] != "state":
                assert message["type"] in {"welcome", "table", "spectators", "chat_history"}
                assert not _tokens(message) & _secrets(plies[0][2], plies[0][1], None)
                continue
            mine, public, full = plies[message["ply"]]
            view = mine if who == seat else public
            assert message["view"] == view
            fate = full.get("stack", [{}])[-1] if full["phase"] == "resolve" else {}
            if fate.get("then") == "fate" and fate["seat"] != who:
                assert view["fate"]["cards"] == {"count": 2}
            if full["phase"] != "over":
                rest = {k: v for k, v in message.items() if k != "events"}
                assert not _tokens(rest) & _secrets(full, view, who), (who, message["ply"])
            for event in message["events"]:  # a move's events name only what the seat saw before or after it
                ply = event["ply"]
                after = plies[ply][0 if who == seat else 1]
                before = plies[ply - 1][0 if who == seat else 1]
                if plies[ply][2]["phase"] != "over":
                    hidden = _secrets(plies[ply][2], after, who) - _tokens(before)
                    assert not _tokens(event) & hidden, (who, event)
                events_seen[who].add(ply)
            checked += 1
    assert checked > 20
    for who, messages in received.items():
        # every move is described to every connection: its first state describes the last move before it
        # (the bots may have played several before the spectator's greeting), its later states each move since
        first = next(m["ply"] for m in messages if m["type"] == "state")
        assert events_seen[who] == set(range(max(1, first), len(record["moves"]) + 1)), who
    assert errors
    for guess, error, ply in errors:
        assert error["code"] == "illegal_move"
        mine, _, full = plies[ply]
        assert not _tokens(error, guess) & _secrets(full, mine, seat)


def test_replay_of_a_live_game_shows_public_information_only(client: TestClient) -> None:
    r = client.post("/api/play-bot", json={"game": "hidden-leaders", "players": 3, "bot": "random"})
    game_id, token, seat = r.json()["game"]["id"], r.json()["token"], r.json()["seat"]
    rng = random.Random(9)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, token)
        moved = 0
        while moved < 4:
            msg, _ = read_until(ws, "state")
            if msg["status"] != "live":
                break
            if msg["your_turn"]:
                ws.send_json({"type": "move", "move": rng.choice(msg["legal_moves"]), "ply": msg["ply"]})
                moved += 1
    assert client.get(f"/api/games/{game_id}/record").json()["error"]["code"] == "game_live"
    replay = client.get(f"/api/games/{game_id}/replay").json()
    light = client.get(f"/api/games/{game_id}/replay?views=false").json()
    hub = client.app.state.hub
    info, moves = hub.repo.get_game(game_id), hub.repo.moves(game_id)
    assert replay["status"] == "live" and len(replay["steps"]) >= 1
    assert info.seed is None and len(info.secret) == 32  # a fresh 128-bit secret, not a small seed
    state = hl.new_game(players=3, seed=info.secret, variant="full", modules=("core",))
    before: dict = {}
    shared = min(len(replay["steps"]), len(light["steps"]))  # the bots may move between the two requests
    for step, lean in zip(replay["steps"][:shared], light["steps"][:shared], strict=True):
        if step["ply"]:
            state.play(moves[step["ply"] - 1][1])
        public = state.view(None)
        assert step["view"] == public and "view" not in lean and lean["move"] == step["move"]
        assert step["move"] == (public["last_move"] or {}).get("move")
        rest = {k: v for k, v in step.items() if k != "events"}
        assert not _tokens(rest) & _secrets(state.to_json(), public, None)
        # the events are those of the request's seat (its session): nothing hidden from that seat
        mine = state.view(seat)
        assert not _tokens(step["events"]) & (_secrets(state.to_json(), mine, seat) - _tokens(before))
        assert step["events"] == lean["events"]
        before = mine


CONNOISSEUR = ("battle-connoisseur", {"tavern": "leery-lizard furious-frog keen-koi"}, "pick furious-frog")
CROW = ("crow-carrier", {"graveyard": "leery-lizard keen-koi"}, "pick keen-koi")


@pytest.mark.parametrize(("card", "setup", "pick"), [CONNOISSEUR, CROW], ids=["connoisseur", "crow"])
def test_the_kept_public_card_stays_secret(card: str, setup: dict[str, Any], pick: str) -> None:
    """Cards taken from a public zone are seen by all, but which one seat 0 keeps face down and which it
    discards into the Wilderness is its secret: the events the server sends others must name neither."""
    from tests.games.hidden_leaders.helpers import build
    from throne.games import get

    spec = get("hidden-leaders")
    st = build({"players": 3, **setup})
    st.hands[0].append(card)
    st.changed()
    st.play(f"play {card}")
    while st.to_play == 0 and not st.legal_moves()[0].startswith("pick"):  # a marker choice first
        st.play(st.legal_moves()[0])
    before = st.clone()
    st.play(pick)
    kept = pick.split()[1]
    assert (kept, False) in st.parties[0]
    taken = set(hl.CARDS) & set(TOKEN.findall(json.dumps(before.view(None)["pending_cards"])))
    assert kept in taken and len(taken) >= 2
    for viewer in (None, 1, 2):
        assert kept not in _tokens(st.view(viewer))  # the engine's own view: nobody else knows it
        events = spec.move_events(before, pick, st, viewer)
        assert not _tokens(events) & taken, (viewer, events)
    mine = spec.move_events(before, pick, st, 0)
    assert kept in _tokens(mine) and taken <= _tokens(mine)
