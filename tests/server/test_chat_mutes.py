"""A chat mute belongs to the user who set it (stored with the account, every table and device), not to one
browser: set, read back after logging in again, kept when a guest signs up, and refused precisely."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.helpers import as_guest

PASSWORD = "correct horse 1"


def _mute(client: TestClient, user_id, muted=True):
    return client.post("/api/accounts/mutes", json={"user_id": user_id, "muted": muted})


def test_a_mute_is_stored_with_the_account(client: TestClient) -> None:
    loud = as_guest(client, "Loud")["id"]
    other = as_guest(client, "Other")["id"]
    client.cookies.clear()
    assert client.get("/api/accounts/mutes").json()["error"]["code"] == "login_needed"
    me = as_guest(client, "Me")["id"]  # a guest first: its mutes move to the account it signs up as
    assert client.get("/api/accounts/mutes").json() == {"user_id": me, "muted": []}
    assert _mute(client, loud).json()["muted"] == [loud]
    assert _mute(client, loud).json()["muted"] == [loud]  # muting twice changes nothing
    assert _mute(client, other).json()["muted"] == sorted([loud, other])
    assert _mute(client, other, False).json()["muted"] == [loud]
    r = client.post("/api/accounts/register", json={"username": "quiet", "password": PASSWORD})
    assert r.status_code == 201, r.text
    client.cookies.clear()  # another device: a fresh login
    login = client.post("/api/accounts/login", json={"username": "quiet", "password": PASSWORD})
    assert login.status_code == 200, login.text
    mine = client.get("/api/accounts/mutes").json()
    assert mine["muted"] == [loud] and mine["user_id"] == r.json()["user"]["id"]


def test_bad_mutes_are_refused_and_change_nothing(client: TestClient) -> None:
    me = as_guest(client, "Me")["id"]
    for body, status, code in [
        ({"user_id": me, "muted": True}, 400, "bad_mute"),
        ({"user_id": 10**9, "muted": True}, 404, "unknown_user"),
        ({"user_id": "2", "muted": True}, 422, None),
        ({"user_id": 0, "muted": True}, 422, None),
        ({"user_id": 2, "muted": "yes"}, 422, None),
    ]:
        r = client.post("/api/accounts/mutes", json=body)
        assert r.status_code == status, (body, r.text)
        if code is not None:
            assert r.json()["error"]["code"] == code
    assert client.get("/api/accounts/mutes").json()["muted"] == []
