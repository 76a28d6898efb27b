"""Slow request heads time out (a raw socket that trickles its headers is answered 408 and closed); a prompt
request, a keep-alive connection and an upgraded WebSocket are not affected."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from websockets.sync.client import connect

from tests.processes import free_port
from throne.server import run
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.slow_headers import header_deadline_protocol

DEADLINE = 0.6
REQUEST = b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nUser-Agent: slow-test\r\nAccept: */*\r\n\r\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("slow"), secret_key="k")
    port = free_port()
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        http=header_deadline_protocol(DEADLINE),
        ws_ping_interval=None,
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield port
    srv.should_exit = True
    thread.join(timeout=10)


def _read_all(sock: socket.socket, limit: float = 5.0) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and when it closed (s since the call)."""
    start = time.monotonic()
    sock.settimeout(limit)
    data = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            return data, time.monotonic() - start
        data += chunk


def _read_response(sock: socket.socket) -> bytes:
    """One whole response (head and Content-Length body) from a kept-alive connection."""
    sock.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(4096)
    assert len(body) == length
    return head + b"\r\n\r\n" + body


def _trickle(sock: socket.socket, data: bytes, pause: float) -> None:
    """Sends `data` a byte at a time, until the server hangs up."""
    for byte in data:
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            return
        time.sleep(pause)


# (what the client sends, after how long it should be cut off at the latest; None: it is served)
CASES = [
    ("nothing", None, True),
    ("trickled head", 0.1, True),
    ("prompt request", 0.0, False),
]


@pytest.mark.parametrize(("name", "pause", "cut"), CASES)
def test_a_request_head_must_arrive_in_time(server: int, name: str, pause: float | None, cut: bool) -> None:
    with socket.create_connection(("127.0.0.1", server)) as sock:
        opened = time.monotonic()
        if pause is not None:
            threading.Thread(target=_trickle, args=(sock, REQUEST, pause), daemon=True).start()
        if not cut:
            answer = _read_response(sock)
            assert answer.startswith(b"HTTP/1.1 200") and b"nosniff" in answer
            return
        data, _ = _read_all(sock)
        closed_after = time.monotonic() - opened
        assert data.startswith(b"HTTP/1.1 408"), data[:80]
        assert data.endswith(
            b'{"error": {"code": "header_timeout", "message": "the request headers did not arrive in time"}}'
        )
        assert DEADLINE * 0.9 <= closed_after < 4.0 < len(REQUEST) * 0.1  # long before the head is done


def test_a_client_still_sending_when_cut_off_gets_the_whole_answer(server: int) -> None:
    """Bytes that arrive after the 408 must not reset the connection (a socket closed with input still coming
    answers it with RST, and the client may lose the response): the server hangs up its side, then drops
    what still comes until the client hangs up too."""
    with socket.create_connection(("127.0.0.1", server)) as sock:
        sock.sendall(REQUEST[:10])
        time.sleep(DEADLINE + 0.4)  # the answer is sent meanwhile; the client has not read it yet
        for byte in REQUEST[10:30]:  # and keeps sending
            sock.sendall(bytes([byte]))
            time.sleep(0.01)
        time.sleep(0.2)  # long enough for a reset to come back
        data, _ = _read_all(sock)
        assert data.startswith(b"HTTP/1.1 408") and data.endswith(b"did not arrive in time\"}}"), data[-80:]


def test_the_deadline_restarts_for_each_request_on_a_kept_connection(server: int) -> None:
    with socket.create_connection(("127.0.0.1", server)) as sock:
        sock.sendall(REQUEST)
        assert _read_response(sock).startswith(b"HTTP/1.1 200")
        threading.Thread(target=_trickle, args=(sock, REQUEST, 0.1), daemon=True).start()
        data, _ = _read_all(sock)
        assert data.startswith(b"HTTP/1.1 408")


def test_a_websocket_outlives_the_header_deadline(server: int) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{server}") as client:
        assert client.post("/api/accounts/guest", json={"name": "Ann"}).status_code == 200
        game = client.post("/api/games", json={"game": "leaders"}).json()["game"]["id"]
    with connect(f"ws://127.0.0.1:{server}/ws/games/{game}") as ws:
        time.sleep(DEADLINE * 2)
        ws.send(json.dumps({"type": "hello", "spectate": True}))
        assert json.loads(ws.recv(timeout=5))["type"] == "welcome"


def test_throne_serve_uses_the_deadline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: seen.update(kw))
    run.serve("127.0.0.1", 0, Settings(data_dir=tmp_path, secret_key="k", header_timeout=3.5))
    assert seen["http"].header_timeout == 3.5
