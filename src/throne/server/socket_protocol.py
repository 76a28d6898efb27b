"""uvicorn's sans-I/O WebSocket protocol, with the connection of a peer that stopped reading cut off.

A close frame waits until the transport takes writes again, and a closed transport waits until its buffer is
written: a peer that reads nothing would keep its TCP connection and full buffers for as long as it likes,
outside every socket cap once the app gave its slot back. So a connection is aborted when it is still there a
few seconds after the app closed it (it drops a socket whose outbox filled) or was done with it.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

ABORT_AFTER = 5.0  # seconds a connection the app closed may take to send its close frame and go


class GameSocketProtocol(WebSocketsSansIOProtocol):
    async def send(self, message: Any) -> None:
        if message["type"] == "websocket.close":
            self._abort_later()  # before the send waits for a peer that may never read again
        await super().send(message)

    async def run_asgi(self) -> None:
        await super().run_asgi()
        self._abort_later()

    def _abort_later(self) -> None:
        self.loop.call_later(ABORT_AFTER, self._abort_if_still_open)

    def _abort_if_still_open(self) -> None:
        if not self.disconnected:  # (set when the connection is lost)
            self.logger.info("aborting a game socket whose peer does not read")
            self.transport.abort()
