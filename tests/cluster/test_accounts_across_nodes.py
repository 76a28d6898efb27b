"""Accounts, ratings and the HTTP API when a balancer spreads one client's requests over two nodes (on one
PostgreSQL database and one Redis): a username in two cases signed up on both nodes at once makes one
account; a cap holds for requests sent to both nodes at once; two rated games of one player ending at once
on both nodes are both rated; a player's history and a seat's view answer alike on every node, even while
the node that runs the game hangs."""

from __future__ import annotations

import contextlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from tests.cluster.nodes import Node, Shared, recv_json, running_nodes, until

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]
STEP = 20.0
PASSWORD = "Tr0ub4dor&3xyz"


def client(node: Node, cookies: httpx.Cookies | None = None) -> httpx.Client:
    return httpx.Client(base_url=node.base, timeout=STEP, cookies=cookies)


def register(node: Node, username: str) -> tuple[httpx.Client, int]:
    """A registered account signed up through `node`: its client there and its user id."""
    c = client(node)
    r = c.post("/api/accounts/register", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return c, r.json()["user"]["id"]


def seated(stack: contextlib.ExitStack, node: Node, game: int, token: str) -> ClientConnection:
    """A seat's socket on `node`, once it got the game's first `state`."""
    ws = stack.enter_context(connect(f"ws://127.0.0.1:{node.port}/ws/games/{game}", open_timeout=STEP))
    ws.send(json.dumps({"type": "hello", "token": token}))
    recv_json(ws, lambda m: m["type"] == "state")
    return ws


# ---- accounts ----------------------------------------------------------------------------------------------


def test_one_username_in_two_cases_signed_up_on_two_nodes_at_once_makes_one_account(
    shared: Shared, tmp_path: Path
) -> None:
    """A username is unique regardless of case. Two people sign up as `RaceN` and `racen` at the same moment
    on two nodes, whose store writers run side by side: one account is made, the other sign-up is refused
    `400 username_unavailable` (the database's index on lower(username) decides, not only a check before)."""
    with running_nodes(shared, tmp_path, "name") as (n0, n1):
        c0, c1 = client(n0), client(n1)
        both_made: list[str] = []
        try:
            for i in range(40):
                barrier = threading.Barrier(2)

                def sign_up(c: httpx.Client, name: str, barrier: threading.Barrier = barrier) -> int:
                    c.cookies = httpx.Cookies()
                    barrier.wait(STEP)
                    body = {"username": name, "password": PASSWORD}
                    return c.post("/api/accounts/register", json=body).status_code

                with ThreadPoolExecutor(2) as pool:
                    upper = pool.submit(sign_up, c0, f"Race{i}")
                    lower = pool.submit(sign_up, c1, f"race{i}")
                    codes = sorted([upper.result(), lower.result()])
                assert codes in ([201, 201], [201, 400]), codes
                if codes == [201, 201]:
                    both_made.append(f"race{i}")
                if len(both_made) >= 1:
                    break
            assert not both_made, f"two accounts whose usernames differ only in case: {both_made}"
        finally:
            c0.close()
            c1.close()


def test_a_cap_holds_for_requests_spread_at_once_over_two_nodes(shared: Shared, tmp_path: Path) -> None:
    """Six requests of one account for a game with a bot (the cap is 3 on every node), sent at the same
    moment, three to each node: three games are made and three refused `429 too_many_games`. The account's
    tables are made one at a time across the nodes (a lock in Redis); before, each request counted the
    account's games before any of the others had made its table."""
    with running_nodes(shared, tmp_path, "cap") as (n0, n1):
        ann0, _ = register(n0, "anncap")
        ann1 = client(n1, ann0.cookies)
        barrier = threading.Barrier(12)

        def play_bot(c: httpx.Client) -> int:
            barrier.wait(STEP)
            return c.post("/api/play-bot", json={"game": "leaders", "bot": "random"}).status_code

        try:
            with ThreadPoolExecutor(12) as pool:
                codes = sorted(pool.map(play_bot, [ann0, ann1] * 6))
        finally:
            ann0.close()
            ann1.close()
        assert codes == [201] * 3 + [429] * 9, codes


# ---- ratings -----------------------------------------------------------------------------------------------


def _rated_game(creator: httpx.Client, joiner: httpx.Client) -> tuple[int, str, str]:
    """A rated Leaders table made by `creator`, joined (and so started, on the joiner's node) by `joiner`:
    the game id and both seat tokens."""
    made = creator.post("/api/games", json={"game": "leaders", "rated": True})
    assert made.status_code == 201, made.text
    game = made.json()["game"]["id"]
    joined = joiner.post(f"/api/games/{game}/join", json={})
    assert joined.status_code == 200, joined.text
    return game, made.json()["token"], joined.json()["token"]


def _resign_at_once(stack: contextlib.ExitStack, games: list[tuple[Node, int, str]]) -> list[str]:
    """Each (node, game, token) seat's socket on its node, then every one resigns at the same moment; how
    each resignation was answered (`finished`, or the error code)."""
    sockets = [seated(stack, node, game, token) for node, game, token in games]
    for ws in sockets:
        ws.send(json.dumps({"type": "resign"}))
    ends = []
    for ws in sockets:
        ended = recv_json(
            ws, lambda m: (m["type"] == "state" and m["status"] == "finished") or m["type"] == "error"
        )
        ends.append(ended.get("code", "finished"))
    return ends


def _rated_games(node: Node, *uids: int) -> list[int | None]:
    out = []
    for uid in uids:
        rating = httpx.get(f"{node.base}/api/players/{uid}", timeout=STEP).json()["ratings"]["leaders"]
        out.append(None if rating is None else rating["games"])
    return out


def test_the_first_two_rated_games_of_one_player_ending_at_once_on_two_nodes_both_end(
    shared: Shared, tmp_path: Path
) -> None:
    """Every finished rated game is its own rating period for both players. Ann and Bob (registered, no
    rating yet) play two rated Leaders games, one run by n0 and one by n1, and Ann resigns both at the same
    moment: both games finish and both count (2 rated games each). Before, both endings inserted the
    players' first rating, and the second failed on the primary key (`server_error`, the game left live)."""
    with running_nodes(shared, tmp_path, "first") as (n0, n1):
        stack = contextlib.ExitStack()
        try:
            for pair in range(6):  # a new pair of players each time: none has a rating yet
                ann0, ann_id = register(n0, f"annfirst{pair}")
                bob0, bob_id = register(n0, f"bobfirst{pair}")
                ann1, bob1 = client(n1, ann0.cookies), client(n1, bob0.cookies)
                for c in (ann0, bob0, ann1, bob1):
                    stack.callback(c.close)
                g0, ann_t0, _ = _rated_game(ann0, bob0)  # runs on n0
                g1, ann_t1, _ = _rated_game(ann1, bob1)  # runs on n1
                ends = _resign_at_once(stack, [(n0, g0, ann_t0), (n1, g1, ann_t1)])
                assert ends == ["finished", "finished"], (
                    f"pair {pair}: the two resignations were answered {ends}"
                )
                assert _rated_games(n0, ann_id, bob_id) == [2, 2], f"pair {pair}"
                stack.close()
        finally:
            stack.close()


def test_two_rated_games_of_one_player_ending_at_once_on_two_nodes_both_change_the_rating(
    shared: Shared, tmp_path: Path
) -> None:
    """The same once both players have a rating: two rated games ending at the same moment on two nodes
    both change it (each ending reads the ratings locked, so the second one rates from the first's result):
    every round counts two more games. Before, the second ending overwrote the first's update."""
    with running_nodes(shared, tmp_path, "lost") as (n0, n1):
        ann0, ann_id = register(n0, "annlost")
        bob0, bob_id = register(n0, "boblost")
        ann1, bob1 = client(n1, ann0.cookies), client(n1, bob0.cookies)
        stack = contextlib.ExitStack()
        try:
            g, ann_t, _ = _rated_game(ann0, bob0)
            assert _resign_at_once(stack, [(n0, g, ann_t)]) == ["finished"]
            stack.close()
            assert _rated_games(n0, ann_id, bob_id) == [1, 1]  # (control: one rated game, counted once)
            for rnd in range(1, 9):
                g0, ann_t0, _ = _rated_game(ann0, bob0)  # runs on n0
                g1, ann_t1, _ = _rated_game(ann1, bob1)  # runs on n1
                ends = _resign_at_once(stack, [(n0, g0, ann_t0), (n1, g1, ann_t1)])
                stack.close()
                assert ends == ["finished", "finished"], f"round {rnd}: answered {ends}"
                counted = _rated_games(n0, ann_id, bob_id)
                expected = 1 + 2 * rnd
                assert counted == [expected, expected], (
                    f"round {rnd}: rated games counted {counted}, not {expected}"
                )
        finally:
            stack.close()
            for c in (ann0, bob0, ann1, bob1):
                c.close()


# ---- lobby lists and histories -----------------------------------------------------------------------------


def test_a_players_history_shows_who_is_connected_as_every_other_node_does(
    shared: Shared, tmp_path: Path
) -> None:
    """Every node shows the same `connected` flags. A live game runs on n0 and both its players are connected
    to n0: a player's history (`GET /api/players/{id}/games`) shows them connected on n1 too, as the game's
    own summary does there. Before, the history read no other node's presence."""
    with running_nodes(shared, tmp_path, "hist") as (n0, n1):
        ann = client(n0)
        bob = client(n0)
        stack = contextlib.ExitStack()
        try:
            made = ann.post("/api/games", json={"game": "leaders", "name": "Ann"}).json()
            game = made["game"]["id"]
            ann_id = made["game"]["seats"][0]["user_id"]
            joined = bob.post(f"/api/games/{game}/join", json={"name": "Bob"}).json()  # starts on n0
            seated(stack, n0, game, made["token"])
            seated(stack, n0, game, joined["token"])

            def flags(node: Node, path: str) -> list[bool | None]:
                body = httpx.get(f"{node.base}{path}", timeout=STEP).json()
                summary = (
                    body["game"] if "game" in body else next(g for g in body["games"] if g["id"] == game)
                )
                return [s.get("connected") for s in summary["seats"]]

            until(lambda: flags(n0, f"/api/games/{game}") == [True, True], STEP, "both players connected")
            history = f"/api/players/{ann_id}/games"
            seen = {
                "n0 history": flags(n0, history),
                "n1 history": flags(n1, history),
                "n1 game": flags(n1, f"/api/games/{game}"),
            }
            assert seen == {k: [True, True] for k in seen}, seen
        finally:
            stack.close()
            ann.close()
            bob.close()


# ---- games on a node that stops answering ------------------------------------------------------------------


def test_the_view_of_a_live_game_whose_owner_hangs_is_not_called_not_live(
    shared: Shared, tmp_path: Path
) -> None:
    """A live game runs on n0, which then hangs (SIGSTOP: its Redis connection stays open). Ann asks n1 for
    her view: n1 cannot reach the owner, and answers a retryable `503 owner_unavailable` (or, once it
    claimed the game after the lease ran out, the view), never `409 not_live` "game N is live"."""
    import signal

    with running_nodes(shared, tmp_path, "hang") as (n0, n1):
        ann, bob = client(n0), client(n0)
        stopped = False
        try:
            made = ann.post("/api/games", json={"game": "leaders", "name": "Ann"}).json()
            game = made["game"]["id"]
            bob.post(f"/api/games/{game}/join", json={"name": "Bob"}).raise_for_status()  # runs on n0
            headers = {"X-Seat-Token": made["token"]}
            first = httpx.get(f"{n1.base}/api/games/{game}/view", headers=headers, timeout=STEP)
            assert first.status_code == 200, first.text  # (control: routed to the owner while it answers)
            n0.proc.send_signal(signal.SIGSTOP)
            stopped = True
            view = httpx.get(f"{n1.base}/api/games/{game}/view", headers=headers, timeout=STEP)
            code = view.json().get("error", {}).get("code")
            assert view.status_code == 200 or (
                view.status_code == 503 and code in ("owner_moved", "owner_unavailable")
            ), (
                view.status_code,
                view.text,
            )
        finally:
            if stopped:
                n0.proc.send_signal(signal.SIGCONT)
            ann.close()
            bob.close()
