"""Rate limits: token buckets per client address and per user, 429 with Retry-After, nothing else changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import as_guest, two_player_leaders
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.errors import ApiError
from throne.server.ratelimit import Limit, RateLimiter, client_key

PASSWORD = "s3cret-Passw0rd"
WIDE = Limit(1000, 1000)
TIGHT = Limit(2, 1)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("burst", "per_minute"), [(2, 0), (2, -1), (2, float("inf")), (2, float("nan")), (-1, 10)]
)
def test_a_limit_that_never_refills_is_refused(burst: int, per_minute: float) -> None:
    with pytest.raises(ValueError, match="a rate limit holds 0 or more requests"):
        Limit(burst, per_minute)


def test_a_bucket_refuses_past_its_burst_and_refills_at_its_rate() -> None:
    clock = Clock()
    limiter = RateLimiter({"login:ip": Limit(3, 6)}, clock)  # 6 a minute: one every 10 s
    for _ in range(3):
        limiter.hit("login", "10.0.0.1")
    with pytest.raises(ApiError) as refused:
        limiter.hit("login", "10.0.0.1")
    assert refused.value.status == 429 and refused.value.headers == {"Retry-After": "10"}
    limiter.hit("login", "10.0.0.2")  # another address has its own bucket
    clock.now += 9.0
    with pytest.raises(ApiError) as again:
        limiter.hit("login", "10.0.0.1")
    assert again.value.headers == {"Retry-After": "1"}
    clock.now += 1.0
    limiter.hit("login", "10.0.0.1")


def test_a_refused_request_takes_nothing_from_its_other_buckets() -> None:
    limiter = RateLimiter({"login:ip": Limit(1, 1), "login:user": Limit(5, 1)}, Clock())
    limiter.hit("login", "10.0.0.1", "name:ann")
    for _ in range(10):
        with pytest.raises(ApiError):
            limiter.hit("login", "10.0.0.1", "name:ann")
    for n in range(4):  # the user's bucket lost only the one request that went through
        limiter.hit("login", f"10.0.1.{n}", "name:ann")
    with pytest.raises(ApiError):
        limiter.hit("login", "10.0.2.1", "name:ann")


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("192.0.2.7", "ip:192.0.2.7"),
        ("2001:db8:1:2:aaaa::1", "ip:2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "ip:2001:db8:1:2::/64"),
        ("::ffff:192.0.2.7", "ip:192.0.2.7"),
        (None, "ip:unknown"),
        ("testclient", "ip:testclient"),
    ],
)
def test_client_keys(host: str | None, key: str) -> None:
    assert client_key(host) == key


def test_the_buckets_are_bounded() -> None:
    from throne.server import ratelimit

    limiter = RateLimiter({"guest:ip": Limit(1, 1)}, Clock())
    for n in range(ratelimit.MAX_BUCKETS + 10):
        limiter.hit("guest", f"ip{n}")
    assert len(limiter._buckets) == ratelimit.MAX_BUCKETS


def _register(c: TestClient, n: int):
    return c.post("/api/accounts/register", json={"username": f"user{n}", "password": PASSWORD})


def _guest(c: TestClient, n: int):
    c.cookies.clear()
    return c.post("/api/accounts/guest", json={"name": f"G{n}"})


def _login(c: TestClient, n: int):
    return c.post("/api/accounts/login", json={"username": "nobody", "password": f"wrong-{n}"})


def _table(c: TestClient, n: int):
    return c.post("/api/games", json={"game": "leaders", "sit": True})


def _play_bot(c: TestClient, n: int):
    return c.post("/api/play-bot", json={"game": "leaders", "bot": "random"})


def _join_as_new_guest(c: TestClient, n: int):
    c.cookies.clear()
    return c.post("/api/games", json={"game": "leaders"})


# (the rule made tight, one request of that kind, the status of an allowed request)
HTTP_CASES: list[tuple[str, Callable, int]] = [
    ("register:ip", _register, 201),
    ("guest:ip", _guest, 200),
    ("guest:ip", _join_as_new_guest, 201),  # a guest made on the fly counts as a guest
    ("login:ip", _login, 401),
    ("login:user", _login, 401),
    ("table:ip", _table, 201),
    ("table:user", _table, 201),
    ("table:ip", _play_bot, 201),
]


def _client(tmp_path: Path, tight: str) -> TestClient:
    limits = {rule: WIDE for rule in ("login:ip", "login:user", "register:ip", "guest:ip", "table:ip")}
    limits |= {"table:user": WIDE, "replay:ip": WIDE, "replay:user": WIDE, tight: TIGHT}
    return TestClient(create_app(Settings(data_dir=tmp_path, secret_key="t", rate_limits=limits)))


@pytest.mark.parametrize(("rule", "request_once", "ok"), HTTP_CASES)
def test_http_limits_answer_429_with_retry_after(tmp_path: Path, rule, request_once, ok) -> None:
    with _client(tmp_path, rule) as c:
        if rule.startswith("table"):
            as_guest(c, "Ann")
        answers = [request_once(c, n) for n in range(3)]
        assert [a.status_code for a in answers] == [ok, ok, 429], answers[-1].text
        refused = answers[-1]
        assert refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        if rule == "login:user":  # another username is not held back by ann's bucket
            other = c.post("/api/accounts/login", json={"username": "somebody", "password": "x" * 9})
            assert other.status_code == 401
        if rule == "table:user":  # another user is not held back either
            as_guest(c, "Bob")
            assert _table(c, 9).status_code == 201


def test_a_refused_table_creation_creates_nothing(tmp_path: Path) -> None:
    with _client(tmp_path, "table:ip") as c:
        as_guest(c, "Ann")
        for n in range(2):
            assert _table(c, n).status_code == 201
        c.cookies.clear()
        assert _table(c, 2).status_code == 429
        assert "throne_session" not in c.cookies  # no guest was made for the refused request
        assert len(c.get("/api/games").json()["games"]) == 2


def test_replays_and_records_are_limited(tmp_path: Path) -> None:
    with _client(tmp_path, "replay:ip") as c:
        game_id, _ = two_player_leaders(c)
        assert c.get(f"/api/games/{game_id}/replay").status_code == 200
        assert c.get(f"/api/games/{game_id}/record").status_code == 200
        refused = c.get(f"/api/games/{game_id}/replay")
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"


def test_the_stored_chat_is_limited_like_replays(tmp_path: Path) -> None:
    """Up to 1,000 stored messages per request: the same buckets as replays and records."""
    with _client(tmp_path, "replay:ip") as c:
        game_id, _ = two_player_leaders(c)
        assert [c.get(f"/api/games/{game_id}/chat").status_code for _ in range(3)] == [200, 200, 429]


def test_limits_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THRONE_RATE_LIMITS", "off")
    assert Settings().rate_limits == {}
    monkeypatch.delenv("THRONE_RATE_LIMITS")
    assert Settings().rate_limits is None
