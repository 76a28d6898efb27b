"""One WebSocket connection: a message goes out at once when the socket takes it without waiting, otherwise
through an outbox drained in order by the connection's own writer task, so a slow client never stalls a
game."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

import orjson
from fastapi import WebSocket

log = logging.getLogger(__name__)

OUTBOX = 256


def encode(message: dict[str, Any]) -> str:
    """A message as JSON text (orjson: several times faster than the standard library; integer keys
    become strings, as the standard library writes them). Most messages have string keys only, which
    orjson writes about a third faster without the option integer keys need."""
    try:
        return orjson.dumps(message).decode()
    except TypeError:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclass
class _Started:
    """A send that began at once and then had to wait for the socket: the writer finishes it."""

    send: Coroutine[Any, Any, None]
    waiting_for: Any  # what it waits for (a future), as a task would have been handed it


async def _finish(started: _Started) -> None:
    """Drives a started send to its end: what its task would have done had it run in one."""
    send, waiting_for = started.send, started.waiting_for
    while True:
        try:
            if waiting_for is None:  # a bare yield: let the loop run once
                result = await asyncio.sleep(0)
            else:
                waiting_for._asyncio_future_blocking = False  # as a task does before it waits for a future
                result = await waiting_for
        except BaseException as exc:  # handed to the send, as a task does (cancellation too)
            try:
                waiting_for = send.throw(exc)
            except StopIteration:
                return
        else:
            try:
                waiting_for = send.send(result)
            except StopIteration:
                return


class Conn:
    def __init__(self, ws: WebSocket, game_id: int) -> None:
        self.ws = ws
        self.game_id = game_id
        self.occupant: int | None = None  # seat row id; None for spectators
        self.seat: int | None = None
        self.session_user: int | None = None  # the account whose session cookie seated it, or it chats as
        self.events_ply: int | None = None  # the ply of the last `state` sent (its events were sent)
        self.closed = False
        self._outbox: asyncio.Queue[dict[str, Any] | str | _Started | None] = asyncio.Queue(OUTBOX)
        self._writing = False  # the writer is in the middle of a send
        self._writer = asyncio.create_task(self._write())
        self._closing: asyncio.Task[None] | None = None  # the close (`close`, `end`) under way

    def send(self, message: dict[str, Any] | str) -> None:
        """Sends a message (a dict, or JSON text already encoded: `send_text`) after the ones before it."""
        if self.closed:
            return
        if not self._writing and self._outbox.empty():
            self._send_now(message if isinstance(message, str) else encode(message))
            return
        try:
            self._outbox.put_nowait(message)
        except asyncio.QueueFull:  # the client does not read: drop it, it will reconnect and resume
            # logged with its game's id: the send may come from an HTTP request or another game's task
            log.info(
                "closing a connection to game %s that does not read its messages",
                self.game_id,
                extra={"game_id": self.game_id},
            )
            self.close(1013)

    def send_text(self, text: str) -> None:
        """Queues a message encoded once for several connections (`encode`)."""
        self.send(text)

    def _send_now(self, text: str) -> None:
        """Runs the socket's send up to its first wait, here: most sends end there, without the switches
        to the writer task and back (two sends per move; measured in docs/BENCHMARKS.md). A send that must
        wait for the socket (flow control) goes to the writer, and the next messages queue behind it."""
        send = self.ws.send_text(text)
        try:
            waiting_for = send.send(None)
        except StopIteration:
            return
        except Exception:
            self.closed = True
            return
        self._outbox.put_nowait(_Started(send, waiting_for))  # the outbox is empty: it fits

    async def _write(self) -> None:
        try:
            while True:
                message = await self._outbox.get()
                if message is None:
                    break
                self._writing = True
                if isinstance(message, _Started):
                    await _finish(message)
                else:
                    await self.ws.send_text(message if isinstance(message, str) else encode(message))
                self._writing = False
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

        self._closing = asyncio.get_running_loop().create_task(_close())

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

        self._closing = asyncio.get_running_loop().create_task(_end())

    async def drain_and_stop(self) -> None:
        """Ends the writer after the queued messages went out; or lets a close under way finish (at most a
        few seconds): the socket's task must not return before its close frame went out, or the server
        would drop the connection without it (the client then sees no close code)."""
        if self._closing is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._closing), 3.0)
            return
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            self._outbox.put_nowait(None)
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(self._writer, 2.0)
