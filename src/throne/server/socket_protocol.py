"""uvicorn's sans-I/O WebSocket protocol, kept from serving a flooding or stalled peer at every game's cost.

- **A read is parsed as the app reads it.** uvloop hands a connection up to 256 kB a read, and uvicorn
  parses a whole read at once: ~14,000 tiny frames, 20–100 ms of the event loop, for a game socket that acts
  on a hundred of them before it drops the peer; sixty such sockets read in one pass of the loop stalled
  every other game for up to a second. Here a read is parsed a piece at a time, and only while the app has
  no message waiting; reading pauses while some of it is left.
- **A peer that stopped reading is cut off.** A close frame waits until the transport takes writes again,
  and a closed transport until its buffer is written: a peer that reads nothing would keep its TCP
  connection and full buffers for as long as it likes, outside every socket cap once the app gave its slot
  back. So a connection still there a few seconds after the app was done with it is aborted.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

PIECE = 4096  # bytes of a read parsed at once (a 64 KiB message is still parsed within one callback)
ABORT_AFTER = 5.0  # seconds a connection the app is done with may take to send its close frame and go


class GameSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unparsed = bytearray()

    def data_received(self, data: bytes) -> None:
        if not self._unparsed and len(data) <= PIECE:  # the usual read: a message or a few, parsed at once
            super().data_received(data)
            return
        self._unparsed += data
        self._parse_some()

    def _parse_some(self) -> None:
        """Parses what was read, a piece at a time, until the app has a message waiting; pauses reading while
        some is left."""
        unparsed = self._unparsed
        while unparsed and self.queue.empty() and not self.transport.is_closing():
            piece = bytes(unparsed[:PIECE])
            del unparsed[:PIECE]
            super().data_received(piece)
        if unparsed and not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    async def receive(self) -> Any:
        message = await self.queue.get()
        if self.queue.empty() and self._unparsed:
            self._parse_some()
        if self.read_paused and self.queue.empty() and not self._unparsed:
            self.read_paused = False
            self.transport.resume_reading()
        return message

    async def run_asgi(self) -> None:
        await super().run_asgi()  # (a game socket's task waits a few seconds at most for its close frame)
        self.loop.call_later(ABORT_AFTER, self._abort_if_still_open)

    def _abort_if_still_open(self) -> None:
        if not self.disconnected:  # (set when the connection is lost)
            self.logger.info("aborting a game socket whose peer does not read")
            self.transport.abort()
