"""Guests, registration, login, sessions; passwords are never echoed or logged."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

PASSWORD = "s3cret-Passw0rd"


def test_guest_session(client: TestClient) -> None:
    assert client.get("/api/accounts/me").json() == {"user": None}
    user = client.post("/api/accounts/guest", json={"name": "  Ann  "}).json()["user"]
    assert user["name"] == "Ann" and user["registered"] is False
    assert client.get("/api/accounts/me").json()["user"]["id"] == user["id"]
    client.post("/api/accounts/logout", json={})
    assert client.get("/api/accounts/me").json() == {"user": None}


def test_register_login_logout(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    r = client.post("/api/accounts/register", json={"username": "ann", "password": PASSWORD, "name": "Ann"})
    assert r.status_code == 201 and r.json()["user"]["registered"] is True
    taken = client.post("/api/accounts/register", json={"username": "ANN", "password": PASSWORD})
    assert taken.status_code == 400 and taken.json()["error"]["code"] == "username_unavailable"
    client.post("/api/accounts/logout", json={})
    bad = client.post("/api/accounts/login", json={"username": "ann", "password": "wrong-password"})
    assert bad.status_code == 401 and bad.json()["error"]["code"] == "bad_credentials"
    assert (
        client.post("/api/accounts/login", json={"username": "nobody", "password": PASSWORD}).status_code
        == 401
    )
    ok = client.post("/api/accounts/login", json={"username": "ann", "password": PASSWORD})
    assert ok.status_code == 200 and client.get("/api/accounts/me").json()["user"]["username"] == "ann"
    assert PASSWORD not in caplog.text


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"username": "a", "password": PASSWORD}, 400, "bad_username"),
        ({"username": "has space", "password": PASSWORD}, 400, "bad_username"),
        ({"username": "ann", "password": "short"}, 400, "bad_password"),
        ({"username": "ann", "password": PASSWORD + "x" * 200}, 400, "bad_password"),
        ({"username": "ann", "password": [PASSWORD]}, 422, "invalid_request"),
        ({"username": "ann"}, 422, "invalid_request"),
    ],
)
def test_bad_registrations_never_echo_the_password(client: TestClient, body, status, code) -> None:
    r = client.post("/api/accounts/register", json=body)
    assert r.status_code == status and r.json()["error"]["code"] == code
    assert PASSWORD not in r.text
    assert client.get("/api/accounts/me").json() == {"user": None}


def test_a_forged_cookie_is_no_session(client: TestClient) -> None:
    client.post("/api/accounts/guest", json={"name": "Ann"})
    client.cookies.set("throne_session", client.cookies.get("throne_session")[:-2] + "xx")
    assert client.get("/api/accounts/me").json() == {"user": None}
