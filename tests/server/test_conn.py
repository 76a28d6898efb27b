"""A connection's sends: at once when the socket takes them, in order behind one that waits for it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.asyncrun import run
from throne.server.conn import Conn, encode


class _Socket:
    """A WebSocket whose sends wait while `open` is clear (a client that does not read: flow control)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.open = asyncio.Event()
        self.open.set()
        self.fail = False

    async def send_text(self, text: str) -> None:
        await self.open.wait()
        if self.fail:
            raise RuntimeError("the socket went away")
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        pass


def _run(scenario: Any) -> None:
    run(scenario())  # in a thread of its own: a worker that ran browser tests keeps a loop running here


def test_a_send_the_socket_takes_goes_out_at_once() -> None:
    async def scenario() -> None:
        ws = _Socket()
        conn = Conn(ws, 1)  # type: ignore[arg-type]
        conn.send_text("a")
        conn.send({"type": "b"})
        assert ws.sent == ["a", '{"type":"b"}']  # no await in between: sent without a task switch
        await conn.drain_and_stop()

    _run(scenario)


def test_messages_queue_in_order_behind_a_send_that_waits_for_the_socket() -> None:
    async def scenario() -> None:
        ws = _Socket()
        conn = Conn(ws, 1)  # type: ignore[arg-type]
        conn.send_text("a")
        ws.open.clear()
        conn.send_text("b")  # waits for the socket
        conn.send_text("c")  # queued behind it
        await asyncio.sleep(0.01)
        assert ws.sent == ["a"] and not conn.closed
        ws.open.set()
        await asyncio.sleep(0.01)
        assert ws.sent == ["a", "b", "c"]
        conn.send_text("d")
        assert ws.sent == ["a", "b", "c", "d"]  # nothing waits any more: at once again
        await conn.drain_and_stop()

    _run(scenario)


def test_a_socket_that_fails_while_waiting_closes_the_connection() -> None:
    async def scenario() -> None:
        ws = _Socket()
        conn = Conn(ws, 1)  # type: ignore[arg-type]
        ws.open.clear()
        conn.send_text("a")
        conn.send_text("b")
        ws.fail = True
        ws.open.set()
        await asyncio.sleep(0.01)
        assert conn.closed and ws.sent == []
        conn.send_text("c")  # a closed connection sends nothing
        assert ws.sent == []

    _run(scenario)


def test_closing_cancels_a_send_that_waits() -> None:
    async def scenario() -> None:
        ws = _Socket()
        conn = Conn(ws, 1)  # type: ignore[arg-type]
        ws.open.clear()
        conn.send_text("a")
        await asyncio.sleep(0)
        conn.close()
        await asyncio.sleep(0.01)
        ws.open.set()
        await asyncio.sleep(0.01)
        assert conn.closed and ws.sent == []

    _run(scenario)


ENCODED = [
    # (message, its JSON text): string keys take orjson's fast path, integer keys the standard library's way
    (
        {"type": "state", "ply": 3, "view": {"pieces": [], "winner": None}},
        '{"type":"state","ply":3,"view":{"pieces":[],"winner":null}}',
    ),
    ({"type": "scores", "by_seat": {0: 5, 1: 7}}, '{"type":"scores","by_seat":{"0":5,"1":7}}'),
    ({"nested": [{"a": {2: "x"}}]}, '{"nested":[{"a":{"2":"x"}}]}'),
]


@pytest.mark.parametrize(("message", "text"), ENCODED)
def test_encode_writes_what_the_standard_library_writes(message: dict[str, Any], text: str) -> None:
    assert encode(message) == text
    assert json.loads(text) == json.loads(json.dumps(message))


def test_encode_refuses_what_is_not_json() -> None:
    with pytest.raises(TypeError):
        encode({"type": "state", "when": object()})
