"""A flooding peer's read is parsed only as far as the app reads it.

uvloop hands a protocol up to 256,000 bytes a read, and uvicorn's sans-I/O WebSocket protocol parses the
whole read at once: ~14,000 frames of `{"type":"x"}` (18 bytes each) in one callback, about 60–100 ms of the
event loop, queued for a game socket that reads ~100 of them before it closes the socket (`ws_max_refused`).
Sixty such sockets from one address, reconnecting in step, are read one after another in one pass of the
loop: every other game on the server stalled for up to a second (measured with `throne serve`: loop lag of
0.3–1.0 s, all of it in back-to-back `data_received` calls of ~22 ms each). The pause of reading uvicorn does
after the first queued message comes too late: the read is already parsed.
"""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState
from websockets.frames import Frame

from tests.asyncrun import run
from throne.server.socket_protocol import GameSocketProtocol

READ = 256_000  # what uvloop reads at once (UV_STREAM_RECV_BUF_SIZE)


def _frame(text: str) -> bytes:
    data, mask = text.encode(), os.urandom(4)
    return bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.reading = True
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_reading(self) -> bool:
        return self.reading


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A game socket that accepts, then is busy elsewhere (it reads nothing more meanwhile)."""
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    await asyncio.Event().wait()


async def _frames_parsed_from_one_read() -> tuple[int, int]:
    config = uvicorn.Config(_app, ws=GameSocketProtocol, ws_max_size=64 * 1024, ws_per_message_deflate=False)
    config.load()
    loop = asyncio.get_running_loop()
    protocol = GameSocketProtocol(config=config, server_state=ServerState(), app_state={}, _loop=loop)
    transport = _Transport()
    protocol.connection_made(transport)
    key = base64.b64encode(os.urandom(16)).decode()
    protocol.data_received(
        f"GET /ws/games/1 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    for _ in range(20):  # the app accepts
        await asyncio.sleep(0)
    assert transport.written.startswith(b"HTTP/1.1 101"), bytes(transport.written[:100])
    flood = _frame('{"type":"x"}') * (READ // 18)
    parsed = 0
    real_parse = Frame.parse.__func__  # type: ignore[attr-defined]

    def counting_parse(cls: type[Frame], *args: Any, **kwargs: Any) -> Any:
        nonlocal parsed
        parsed += 1
        return (yield from real_parse(cls, *args, **kwargs))

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Frame, "parse", classmethod(counting_parse))
        protocol.data_received(flood)  # one read of a flooding peer, as uvloop delivers it
    protocol.connection_lost(None)
    for task in list(protocol.tasks):
        task.cancel()
    await asyncio.gather(*protocol.tasks, return_exceptions=True)
    return parsed, len(flood) // 18


def test_one_read_of_a_flood_is_not_parsed_whole() -> None:
    """A read is parsed in bounded pieces, the next piece when the app has read what the last one held: a
    socket that acts on at most `ws_max_refused` (100) messages before it closes must not parse 14,000 of
    them in one callback of the event loop that every game shares."""
    parsed, sent = run(_frames_parsed_from_one_read())
    assert sent > 14_000
    assert parsed <= 500, f"one read parsed {parsed} frames of {sent} while the app read none of them"
