"""A deadline for reading a request's headers (uvicorn's h11 protocol has none: a client that trickles its
headers, one byte now and then, would hold its connection for ever — "slowloris").

The deadline starts when the connection opens and again after each response; a request whose head is not
complete by then is answered `408` and the connection is closed. A head over 16 KiB is answered `431` (h11
bounds only a head still incomplete: one that arrived in a single read was parsed whole, however long).
Bodies are bounded by BodyLimit; WebSocket connections leave this protocol at the upgrade and keep their own
hello timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from throne.server.errors import error_body

_BODY = json.dumps(error_body("header_timeout", "the request headers did not arrive in time")).encode()
MAX_HEAD = 16 * 1024  # bytes of a request head (its line and headers)
_TOO_LARGE = json.dumps(
    error_body("headers_too_large", f"request heads are at most {MAX_HEAD} bytes")
).encode()
# How long a cut-off connection still takes (and drops) what its client sends before it is closed for good.
LINGER = 2.0


class HeaderDeadlineH11(H11Protocol):
    header_timeout: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer: asyncio.TimerHandle | None = None  # the head's deadline, then the linger's end
        self._lingering = False

    def _arm(self) -> None:
        self._disarm()
        self._timer = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._lingering:  # a cut-off client's late bytes are dropped
            return
        if self.conn.their_state is h11.IDLE and self._head_too_large(data):
            self.logger.info("refusing a request head over %d bytes", MAX_HEAD)
            self._refuse(431, _TOO_LARGE)
            return
        super().data_received(data)

    def _head_too_large(self, data: bytes) -> bool:
        """Whether the request head arriving (`data` after what h11 holds unparsed) is over MAX_HEAD."""
        pending = self.conn.trailing_data[0]
        if len(pending) + len(data) <= MAX_HEAD:
            return False
        head = (pending + data).find(b"\r\n\r\n", 0, MAX_HEAD + 1)
        return head < 0 or head + 4 > MAX_HEAD

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        super().handle_websocket_upgrade(event)

    def _head_too_slow(self) -> None:
        self._timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return  # the head arrived: the request is being served (or the connection is going)
        self.logger.info(
            "closing a connection whose request head did not arrive in %g s", self.header_timeout
        )
        self._refuse(408, _BODY)

    def _refuse(self, status: int, body: bytes) -> None:
        """Answers `status` with the JSON `body` (when no answer was begun) and closes the connection."""
        self._disarm()
        if self.conn.our_state is h11.IDLE:
            with contextlib.suppress(h11.LocalProtocolError):
                self.transport.write(
                    self.conn.send(
                        h11.Response(
                            status_code=status,
                            headers=[
                                (b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close"),
                            ],
                        )
                    )
                    + self.conn.send(h11.Data(data=body))
                    + self.conn.send(h11.EndOfMessage())
                )
        self._hang_up()

    def _hang_up(self) -> None:
        """Closes the connection without losing the answer: a socket closed while its client still sends is
        reset (RST), and a reset can discard the answer before the client reads it. So the server ends its
        side (FIN after the answer), drops what still comes, and closes once the client ends its side
        (`eof_received`) or after LINGER seconds."""
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self._lingering = True
        self.transport.write_eof()
        self._timer = self.loop.call_later(LINGER, self.transport.close)


def header_deadline_protocol(seconds: float) -> type[HeaderDeadlineH11]:
    """The h11 protocol class for uvicorn (`http=`) with a header deadline of `seconds`."""
    return type("HeaderDeadlineH11", (HeaderDeadlineH11,), {"header_timeout": float(seconds)})
