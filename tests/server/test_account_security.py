"""Account security: password policy, uniform answers (no account enumeration), the same argon2 work for
unknown users, and sessions revoked on the server by logout and by a password change."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from itsdangerous import URLSafeTimedSerializer

from tests.server.helpers import hello, read_until
from throne.server import sessions
from throne.server.passwords import MIN_LENGTH, common_passwords, password_problem
from throne.store.repo import reads

PASSWORD = "rook-to-e4!"
NEW_PASSWORD = "bishop-takes-h7"

# (password, username, refused?) — one row per rule of the policy
POLICY = [
    ("short1!", None, True),  # shorter than 8
    ("x" * 129, None, True),  # longer than 128
    ("ann-the-great", "ann", True),  # contains the username
    ("ANN-the-great", "ann", True),  # ... in any case
    ("abababab", None, True),  # fewer than 4 different characters
    ("password", None, True),  # common
    ("Password123", None, True),  # common, in any case
    ("P@ssw0rd!", None, True),  # common with substitutions
    ("qwertyuiop", None, True),  # keyboard walk
    ("12345678", None, True),  # digit run
    ("sunshine1987!", None, True),  # a common word with digits and symbols after it
    ("iloveyou2025", None, True),
    ("correct horse", None, False),
    (PASSWORD, "ann", False),
    ("monkey-wrench-42", None, False),
]


@pytest.mark.parametrize(("password", "username", "refused"), POLICY)
def test_password_policy(password: str, username: str | None, refused: bool) -> None:
    assert (password_problem(password, username) is not None) is refused


def test_the_common_password_list_ships_with_the_package() -> None:
    common = common_passwords()
    assert len(common) > 3000
    assert all(len(p) >= MIN_LENGTH and p == p.lower() for p in common)


def test_registration_applies_the_policy(client: TestClient) -> None:
    r = client.post("/api/accounts/register", json={"username": "ann", "password": "Password123"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_password"
    assert "common" in r.json()["error"]["message"] and "Password123" not in r.text


def test_a_taken_name_and_a_reserved_name_get_the_same_answer(client: TestClient) -> None:
    assert (
        client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD}).status_code
        == 201
    )
    client.cookies.clear()
    taken = client.post("/api/accounts/register", json={"username": "Ann", "password": PASSWORD})
    reserved = client.post("/api/accounts/register", json={"username": "admin", "password": PASSWORD})
    assert taken.status_code == reserved.status_code == 400
    assert taken.json() == reserved.json()
    assert taken.json()["error"]["code"] == "username_unavailable"
    assert "throne_session" not in client.cookies


class CountingHasher:
    """Wraps the real hasher and records which hashes were verified."""

    def __init__(self, real) -> None:
        self.real, self.verified = real, []

    def verify(self, password_hash: str, password: str) -> bool:
        self.verified.append(password_hash)
        return self.real.verify(password_hash, password)

    def hash(self, password: str) -> str:
        return self.real.hash(password)


def test_every_login_costs_one_argon2_verify(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    counting = CountingHasher(sessions._hasher)
    monkeypatch.setattr(sessions, "_hasher", counting)
    answers = {}
    for username, password in (("ann", "wrong-password"), ("nobody", "wrong-password"), ("ann", PASSWORD)):
        before = len(counting.verified)
        r = client.post("/api/accounts/login", json={"username": username, "password": password})
        assert len(counting.verified) == before + 1  # one verify, also without an account
        answers[username, password] = r
    unknown, wrong = answers["nobody", "wrong-password"], answers["ann", "wrong-password"]
    assert counting.verified[1] == sessions._dummy_hash()  # the unknown user was checked against the dummy
    assert counting.verified[1].startswith("$argon2id$") and counting.verified[0] != counting.verified[1]
    assert unknown.status_code == wrong.status_code == 401 and unknown.json() == wrong.json()
    assert answers["ann", PASSWORD].status_code == 200


def _login(client: TestClient, password: str = PASSWORD) -> str:
    client.cookies.clear()
    r = client.post("/api/accounts/login", json={"username": "ann", "password": password})
    assert r.status_code == 200, r.text
    return client.cookies["throne_session"]


def _me(client: TestClient, cookie: str) -> dict | None:
    client.cookies.clear()
    client.cookies.set("throne_session", cookie)
    return client.get("/api/accounts/me").json()["user"]


def test_logout_revokes_the_session_on_the_server(client: TestClient) -> None:
    client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    laptop, phone = _login(client), _login(client)
    assert _me(client, laptop)["username"] == "ann"
    client.cookies.set("throne_session", laptop)
    assert client.post("/api/accounts/logout", json={}).status_code == 200
    assert _me(client, laptop) is None  # a copy of the old cookie no longer works
    assert _me(client, phone) is None  # logging out ends every session of the account
    assert _me(client, _login(client))["username"] == "ann"  # logging in again works


def test_a_revoked_cookie_does_not_act_for_its_seat_on_the_socket(client: TestClient) -> None:
    client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    game = client.post("/api/games", json={"game": "leaders"}).json()["game"]["id"]
    old = client.cookies["throne_session"]
    client.post("/api/accounts/logout", json={})
    client.cookies.set("throne_session", old)
    with client.websocket_connect(f"/ws/games/{game}") as ws:
        welcome, _ = hello(ws)
        assert welcome["seat"] is None


def test_a_password_change_ends_every_other_session(client: TestClient) -> None:
    client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    laptop, phone = _login(client), _login(client)
    client.cookies.clear()
    client.cookies.set("throne_session", laptop)
    body = {"password": PASSWORD, "new_password": NEW_PASSWORD}
    r = client.post("/api/accounts/password", json=body)
    assert r.status_code == 200 and NEW_PASSWORD not in r.text
    renewed = r.cookies["throne_session"]
    assert _me(client, renewed)["username"] == "ann"  # the device that changed it stays logged in
    assert _me(client, laptop) is None and _me(client, phone) is None
    client.cookies.clear()
    old = client.post("/api/accounts/login", json={"username": "ann", "password": PASSWORD})
    assert old.status_code == 401
    assert _me(client, _login(client, NEW_PASSWORD))["username"] == "ann"


# (who asks, the body, status, code)
PASSWORD_CHANGE_REFUSALS = [
    ("nobody", {"password": PASSWORD, "new_password": NEW_PASSWORD}, 401, "login_needed"),
    ("guest", {"password": PASSWORD, "new_password": NEW_PASSWORD}, 401, "login_needed"),
    ("ann", {"password": "not-the-password", "new_password": NEW_PASSWORD}, 401, "bad_credentials"),
    ("ann", {"password": PASSWORD, "new_password": "iloveyou2025"}, 400, "bad_password"),
    ("ann", {"password": PASSWORD, "new_password": "ann-forever-1"}, 400, "bad_password"),
    ("ann", {"password": PASSWORD}, 422, "invalid_request"),
]


@pytest.mark.parametrize(("who", "body", "status", "code"), PASSWORD_CHANGE_REFUSALS)
def test_refused_password_changes_change_nothing(client: TestClient, who, body, status, code) -> None:
    client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    session = _login(client)
    client.cookies.clear()
    if who == "ann":
        client.cookies.set("throne_session", session)
    elif who == "guest":
        client.post("/api/accounts/guest", json={"name": "G"})
    r = client.post("/api/accounts/password", json=body)
    assert r.status_code == status and r.json()["error"]["code"] == code
    assert _me(client, session)["username"] == "ann"  # the session lives on
    assert _login(client)  # and the old password still works


def test_cookies_from_before_session_epochs_work_until_revoked(client: TestClient) -> None:
    user = client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD}).json()[
        "user"
    ]
    legacy = URLSafeTimedSerializer("test-secret", salt="throne-session").dumps({"uid": user["id"]})
    assert _me(client, legacy)["id"] == user["id"]
    client.post("/api/accounts/logout", json={})
    assert _me(client, legacy) is None


def test_a_cookie_with_an_out_of_range_user_id_is_no_session(client: TestClient) -> None:
    forged = URLSafeTimedSerializer("test-secret", salt="throne-session").dumps({"uid": 2**70, "v": 0})
    assert _me(client, forged) is None


def test_seat_sockets_still_accept_a_live_cookie(client: TestClient) -> None:
    client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    game = client.post("/api/games", json={"game": "leaders"}).json()["game"]["id"]
    with client.websocket_connect(f"/ws/games/{game}") as ws:
        welcome, _ = hello(ws)
        assert welcome["seat"] == 0
        ws.send_json({"type": "ping"})
        read_until(ws, "pong")


@pytest.mark.parametrize("ends", ["logout", "password"])
def test_ending_the_sessions_closes_the_sockets_they_opened(client: TestClient, ends: str) -> None:
    """A socket that sits at a table through a session cookie stops acting when the account's sessions end
    (a stolen cookie's open socket must not outlive a logout); a seat token's socket is not a session."""
    client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    r = client.post("/api/games", json={"game": "leaders"})
    game, token = r.json()["game"]["id"], r.json()["token"]
    with (
        client.websocket_connect(f"/ws/games/{game}") as by_cookie,
        client.websocket_connect(f"/ws/games/{game}") as by_token,
    ):
        assert hello(by_cookie)[0]["seat"] == 0 and hello(by_token, token)[0]["seat"] == 0
        if ends == "logout":
            assert client.post("/api/accounts/logout", json={}).status_code == 200
        else:
            body = {"password": PASSWORD, "new_password": NEW_PASSWORD}
            assert client.post("/api/accounts/password", json=body).status_code == 200
        by_cookie.send_json({"type": "ping"})
        answer = by_cookie.receive_json()
        while answer["type"] in ("table", "spectators", "chat_history"):
            answer = by_cookie.receive_json()
        assert answer["type"] == "error" and answer["code"] == "session_ended", answer
        by_token.send_json({"type": "ping"})
        read_until(by_token, "pong")


@pytest.mark.parametrize("slow_session_read", [False, True])
def test_a_spectator_socket_stops_chatting_as_an_ended_session(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, slow_session_read: bool
) -> None:
    """Slow: the socket's read of its session answers late, with the session as it was before the logout;
    the welcome must not come before it (a logout in between would miss the socket)."""
    client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD})
    r = client.post("/api/play-bot", json={"game": "leaders", "bot": "random"})
    game = r.json()["game"]["id"]
    repo = client.app.state.hub.repo
    real_get_user, slow = repo.get_user, threading.Event()

    @reads  # beside the logout's own reads, as the real one
    def get_user(user_id: int) -> Any:
        user = real_get_user(user_id)
        if slow.is_set():
            slow.clear()
            time.sleep(0.5)
        return user

    monkeypatch.setattr(repo, "get_user", get_user)
    with client.websocket_connect(f"/ws/games/{game}") as watcher:
        if slow_session_read:
            slow.set()
        assert hello(watcher, None, spectate=True)[0]["seat"] is None
        assert client.post("/api/accounts/logout", json={}).status_code == 200
        watcher.send_json({"type": "chat", "text": "still me?"})
        answer = watcher.receive_json()
        while answer["type"] not in ("chat", "error"):
            answer = watcher.receive_json()
        assert answer.get("code") == "session_ended", answer
    assert client.get(f"/api/games/{game}/chat").json()["messages"] == []
