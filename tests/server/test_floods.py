"""Bad input that once escaped the checks: lone surrogates in socket messages, bidirectional overrides in
chat, a peer that never reads, request heads over 16 KiB. Bad input gets a precise error and changes nothing,
and no client's misbehaviour costs the server more than that client's own connection.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient

from tests.processes import free_port
from tests.server.helpers import as_guest, hello, read_until, two_player_leaders
from throne.server.app import create_app
from throne.server.config import Settings
from throne.server.slow_headers import header_deadline_protocol
from throne.server.socket_protocol import GameSocketProtocol

# A JSON string escape of a lone UTF-16 surrogate: valid JSON text, valid UTF-8 on the wire (six ASCII
# bytes), but Python's json module decodes it to the str "\ud800", which cannot be encoded back to UTF-8.
SURROGATE = "\\ud800"


# ---- lone surrogates in socket messages -------------------------------------------------------------------


def _answer_then_pong(ws: Any, frame: str) -> dict[str, Any]:
    """Sends `frame`, then a ping: the error `frame` got (the socket must still answer the ping)."""
    ws.send_text(frame)
    error, _ = read_until(ws, "error")
    ws.send_json({"type": "ping"})
    read_until(ws, "pong")
    return error


def test_a_move_with_a_lone_surrogate_is_refused_not_a_crash(client: TestClient) -> None:
    """`{"type": "move", "move": "\\ud800"}` is refused and the socket goes on (a refusal quoting the move
    could not be encoded: the socket died without a word)."""
    game_id, tokens = two_player_leaders(client)
    mover = client.get(f"/api/games/{game_id}/view").json()["to_play"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[mover])
        read_until(ws, "state", 0)
        error = _answer_then_pong(ws, '{"type": "move", "move": "' + SURROGATE + '"}')
        assert error["code"] in {"illegal_move", "bad_message"} and error["message"]
    assert client.get(f"/api/games/{game_id}/view").json()["ply"] == 0


def test_a_hello_token_with_a_lone_surrogate_is_a_bad_token_not_a_crash(client: TestClient) -> None:
    """A seat token holding a lone surrogate (which no hash can encode) is refused, and the same socket can
    still say hello properly."""
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        error = _answer_then_pong(ws, '{"type": "hello", "token": "' + SURROGATE + '"}')
        assert error["code"] in {"bad_token", "bad_message"} and error["message"]
        welcome, _ = hello(ws, tokens[0])  # the same socket can still say hello properly
        assert welcome["seat"] == 0


def test_a_hello_invite_with_a_lone_surrogate_is_refused_not_a_crash(client: TestClient) -> None:
    """An invite holding a lone surrogate is refused `bad_message` like any string that is no Unicode text
    (it reached the invite's check, whose encoding raised, and the socket died)."""
    as_guest(client, "Ann")
    r = client.post("/api/games", json={"game": "leaders", "players": 2, "private": True})
    assert r.status_code == 201, r.text
    game_id = r.json()["game"]["id"]
    client.cookies.clear()
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        error = _answer_then_pong(ws, '{"type": "hello", "invite": "' + SURROGATE + '"}')
        assert error["code"] == "bad_message"


# ---- chat -------------------------------------------------------------------------------------------------


def test_chat_refuses_a_bidi_override_as_names_do(client: TestClient) -> None:
    """Chat text has no control characters (docs/server-api.md), U+202E RIGHT-TO-LEFT OVERRIDE included: it
    reverses how the rest of the line is shown ("Trojan Source"). A name with it is refused too."""
    r = client.post("/api/accounts/guest", json={"name": "Ann\u202e"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name"  # names: refused
    game_id, tokens = two_player_leaders(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, tokens[0])
        read_until(ws, "state", 0)
        ws.send_json({"type": "chat", "text": "gg \u202eniw I"})
        ws.send_json({"type": "ping"})
        _, before = read_until(ws, "pong")
        kinds = {m["type"]: m for m in before}
        assert "chat" not in kinds, f"stored and broadcast: {kinds['chat']['message']['text']!r}"
        assert kinds["error"]["code"] == "bad_chat"


# ---- a real uvicorn, configured as `throne serve` runs it -------------------------------------------------


class _Served:
    def __init__(self, settings: Settings) -> None:
        self.app = create_app(settings)
        self.port = free_port()
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="critical",
            ws_max_size=64 * 1024,  # as throne.server.run.serve
            ws_per_message_deflate=False,
            http=header_deadline_protocol(settings.header_timeout),
            ws=GameSocketProtocol,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> _Served:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def connections(self) -> int:
        """TCP connections the server holds (uvicorn drops one from this set when its transport is gone)."""
        return len(self.server.server_state.connections)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[_Served]:
    settings = Settings(
        data_dir=tmp_path,
        secret_key="k",
        # a fast flood without the rate limits closing the socket first (they do not change what is tested:
        # with the defaults the same happens, only slower)
        ws_rate_per_s=1e9,
        ws_burst=10**9,
        ws_max_refused=10**9,
    )
    with _Served(settings) as served:
        yield served


def _frame(text: str) -> bytes:
    """One masked client text frame."""
    data, mask = text.encode(), os.urandom(4)
    assert len(data) < 126
    return bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def test_a_socket_that_never_reads_is_really_dropped(served: _Served) -> None:
    """A socket whose outbox filled is dropped (1013), and its TCP connection goes too: its close frame
    waits for a peer that never reads, so the connection is aborted a few seconds later
    (`throne.server.socket_protocol`). It held its full buffers, outside the per-address socket cap, for as
    long as the peer liked."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        sock.connect(("127.0.0.1", served.port))
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            f"GET /ws/games/1 HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        assert sock.recv(4096).startswith(b"HTTP/1.1 101")
        hub = served.app.state.hub
        deadline = time.monotonic() + 5
        while hub.sockets_open != 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        # Each unknown message type is answered by an error ~15 times its size; never read any of them.
        burst = _frame('{"type":"x"}') * 2000
        sock.settimeout(0.5)
        deadline = time.monotonic() + 10
        while hub.sockets_open and time.monotonic() < deadline:
            with contextlib.suppress(TimeoutError):  # the server stopped reading: wait for it to give up
                sock.sendall(burst)
        assert hub.sockets_open == 0, "the flood did not fill the outbox"  # the app closed it (1013)
        deadline = time.monotonic() + 10  # ABORT_AFTER (5 s) after the socket's task ended
        while served.connections() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert served.connections() == 0, "the socket the server 'closed' still holds its TCP connection"
    finally:
        sock.close()


def test_request_heads_over_16_kib_are_refused(served: _Served) -> None:
    """A request head over 16 KiB is answered `431 headers_too_large` and the connection closed, even when it
    arrives in one read (h11 bounds only a head still incomplete); one just under the limit is served."""
    for size, expected in ((15_000, b"200"), (100_000, b"431")):
        with socket.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * size + b"\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer or (expected == b"431" and b"}}" not in answer):
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
        assert answer.split(b"\r\n")[0].split()[1] == expected, answer[:200]
        if expected == b"431":
            assert b'"headers_too_large"' in answer


def test_a_socket_closed_for_its_refusals_hears_its_close_code(tmp_path: Path) -> None:
    """The 100th refusal closes a socket with code 1008 (docs/server-api.md), and a real client hears that
    code: the socket's task waits for its close frame to go out (it returned first, and the server dropped
    the connection without one)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with (
        _Served(Settings(data_dir=tmp_path, secret_key="k")) as served,
        connect(f"ws://127.0.0.1:{served.port}/ws/games/1") as ws,
    ):
        for _ in range(100):
            ws.send('{"type": "x"}')
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


def test_messages_larger_than_a_parsed_piece_and_many_in_one_read_all_arrive(served: _Served) -> None:
    """A read is parsed a piece at a time (`socket_protocol.PIECE`): a message longer than a piece, and many
    messages in one write, each still get their answer, in order."""
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{served.port}/ws/games/1") as ws:
        ws.send(json.dumps({"type": "ping", "pad": "x" * 12_000}))
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"
        ws.socket.sendall(b"".join(_frame('{"type":"ping"}') for _ in range(500)))
        answers = [json.loads(ws.recv(timeout=10))["type"] for _ in range(500)]
        assert answers == ["pong"] * 500
