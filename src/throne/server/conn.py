"""One WebSocket connection: an outbox drained by its own writer task, so a slow client never stalls a
game."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import orjson
from fastapi import WebSocket

log = logging.getLogger(__name__)

OUTBOX = 256


def encode(message: dict[str, Any]) -> str:
    """A message as JSON text (orjson: several times faster than the standard library; integer keys
    become strings, as the standard library writes them)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


class Conn:
    def __init__(self, ws: WebSocket, game_id: int) -> None:
        self.ws = ws
        self.game_id = game_id
        self.occupant: int | None = None  # seat row id; None for spectators
        self.seat: int | None = None
        self.session_user: int | None = None  # the account whose session cookie seated it, or it chats as
        self.events_ply: int | None = None  # the ply of the last `state` sent (its events were sent)
        self.closed = False
        self._outbox: asyncio.Queue[dict[str, Any] | str | None] = asyncio.Queue(OUTBOX)
        self._writer = asyncio.create_task(self._write())

    def send(self, message: dict[str, Any] | str) -> None:
        """Queues a message (a dict, or JSON text already encoded: `send_text`)."""
        if self.closed:
            return
        try:
            self._outbox.put_nowait(message)
        except asyncio.QueueFull:  # the client does not read: drop it, it will reconnect and resume
            log.info("closing a connection to game %s that does not read its messages", self.game_id)
            self.close(1013)

    def send_text(self, text: str) -> None:
        """Queues a message encoded once for several connections (`encode`)."""
        self.send(text)

    async def _write(self) -> None:
        try:
            while True:
                message = await self._outbox.get()
                if message is None:
                    break
                await self.ws.send_text(message if isinstance(message, str) else encode(message))
        except Exception:
            self.closed = True

    def close(self, code: int = 1000) -> None:
        if self.closed:
            return
        self.closed = True
        self._writer.cancel()

        async def _close() -> None:
            with contextlib.suppress(Exception):
                await self.ws.close(code)

        asyncio.get_running_loop().create_task(_close())

    def end(self, message: dict[str, Any], code: int) -> None:
        """Sends `message` last, then closes with `code`; from now on nothing is sent or acted on."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            self._outbox.put_nowait(message)
            self._outbox.put_nowait(None)

        async def _end() -> None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._writer, 2.0)
            with contextlib.suppress(Exception):
                await self.ws.close(code)

        asyncio.get_running_loop().create_task(_end())

    async def drain_and_stop(self) -> None:
        """Ends the writer after the queued messages went out."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            self._outbox.put_nowait(None)
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(self._writer, 2.0)
