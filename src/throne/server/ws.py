"""The live-game WebSocket: hello (token or session), moves, pings; every error goes to its sender only."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from functools import partial
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from throne.logs import GAME_ID
from throne.server import chat, validate
from throne.server.auth import session_user
from throne.server.caps import Caps
from throne.server.conn import Conn
from throne.server.csrf import from_this_site, origins
from throne.server.errors import ApiError
from throne.server.lobby import Hub, person_seat
from throne.server.match import MoveRefused
from throne.server.sessions import COOKIE, token_hash
from throne.store.repo import DamagedRecord, GameInfo, NotFound, StoreError, StoreUnavailable

router = APIRouter()
log = logging.getLogger(__name__)
MOVE_MAX = 256
REFUSALS_WINDOW_S = 60.0
CONTROLS = (
    "resign",
    "draw_offer",
    "draw_answer",
    "rematch",
    "claim_win",
    "takeback_request",
    "takeback_answer",
    "undo",
)
ANSWERS = ("draw_answer", "takeback_answer")


class _Bucket:
    """Token bucket: `rate` messages per second with bursts of `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


def _is_ply(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= validate.INT63_MAX


def _error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **extra}


class _Session:
    def __init__(self, hub: Hub, ws: WebSocket, game_id: int) -> None:
        self.hub, self.ws, self.game_id = hub, ws, game_id
        self.info: GameInfo | None = None
        settings = hub.settings
        self.conn = Conn(ws, game_id)
        self.bucket = _Bucket(settings.ws_rate_per_s, settings.ws_burst)
        # The `ws_max_refused`-th refusal within about a minute closes the socket; a long game's few are
        # forgotten (a stale move now and then is no flood).
        self.refusals = _Bucket(settings.ws_max_refused / REFUSALS_WINDOW_S, settings.ws_max_refused - 1)
        self.greeted = False
        self.chat_as: tuple[int | None, str] | None = None  # (user id, name) this connection writes as

    def refuse(self, code: str, message: str, **extra: Any) -> None:
        error = _error(code, message, **extra)
        if self.refusals.take():
            self.conn.send(error)
        else:
            self.conn.end(error, 1008)  # the last refusal is told too, then the socket closes

    async def handle(self, text: str) -> None:
        try:
            msg = validate.loads(text)
        except validate.LoneSurrogate:
            self.refuse("bad_message", "a string escape names a lone surrogate: strings are Unicode text")
            return
        except (ValueError, RecursionError):
            self.refuse("bad_json", "the message is not valid JSON")
            return
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            self.refuse("bad_message", 'a message is a JSON object with a string field "type"')
            return
        kind = msg["type"]
        try:
            await self._dispatch(kind, msg)
        except Exception:  # a stored record the server cannot read, a bug: this request fails, not the socket
            log.exception("game %s: a %s message could not be answered", self.game_id, kind[:32])
            self.refuse("server_error", "the server failed to answer this message", request=kind[:32])

    async def _dispatch(self, kind: str, msg: dict[str, Any]) -> None:
        if kind == "ping":
            self.conn.send({"type": "pong"})
        elif kind == "hello":
            try:
                await self.hello(msg)
            except StoreUnavailable:
                self._store_down_at_hello()
            except DamagedRecord as exc:  # greeted: the socket stays, for the chat
                self.refuse(exc.code, exc.message, request="hello")
        elif kind == "move":
            await self.move(msg)
        elif kind in CONTROLS:
            await self.control(kind, msg)
        elif kind == "chat":
            await self.chat(msg)
        else:
            self.refuse(
                "bad_message",
                f"unknown message type {kind[:32]!r}; expected hello, move, ping, chat, "
                + ", ".join(CONTROLS),
            )

    def _store_down_at_hello(self) -> None:
        """A hello the store could not answer is told so, and the socket closes with 1013 (try again later):
        a client connects again, as after any lost connection, and says hello anew."""
        error = _error("store_unavailable", "the game store is unavailable; try again shortly")
        error["request"] = "hello"
        self.conn.end(error, 1013)

    async def hello(self, msg: dict[str, Any]) -> None:
        if self.greeted:
            self.refuse("bad_message", "hello was already received on this connection")
            return
        token, invite, spectate = msg.get("token"), msg.get("invite"), msg.get("spectate", False)
        if (
            (token is not None and not isinstance(token, str))
            or (invite is not None and not isinstance(invite, str))
            or not isinstance(spectate, bool)
        ):
            self.refuse(
                "bad_message", "hello takes an optional string token, string invite and boolean spectate"
            )
            return
        hub = self.hub
        seat = None
        try:
            if not 1 <= self.game_id <= validate.ID_MAX:
                raise NotFound(f"no game {self.game_id}")
            match = hub.matches.get(self.game_id)
            if not token or len(token) > 128:
                info = await hub.db(hub.repo.get_game, self.game_id)
            elif match is not None and match.tokens is not None:  # started here: nothing to read
                info, seat_id = match.info, match.tokens.get(token_hash(token))
                seat = next((s for s in info.seats if s.id == seat_id), None)
            else:  # the game and the token's seat in one read
                info, seat = await hub.db(hub.repo.game_and_seat, self.game_id, token_hash(token))
            self.info = info
        except NotFound:
            await self.unknown()
            return
        owner = await hub.owner_summary(info)  # (before the session is read: nothing waits after that)
        occupant = None
        if token:
            if seat is None:
                if info.private:  # a private table answers a wrong token as if it did not exist
                    await self.unknown()
                else:
                    self.refuse("bad_token", "the seat token is not valid for this game")
                return
            occupant = seat.id
        elif not spectate and self._same_origin():
            user = await session_user(hub, self.ws.app.state.signer, self.ws.cookies.get(COOKIE))
            uid = None if user is None else user.id
            occupant = next(
                (s.id for s in info.seats if uid is not None and s.user_id == uid and person_seat(s)), None
            )
            self.conn.session_user = uid if occupant is not None else None
        if spectate and occupant is not None:  # forced spectating (a valid token shows a private table)
            occupant = None
        elif occupant is None:
            try:
                hub.check_invite(info, invite)
            except ApiError:
                await self.unknown()
                return
        if occupant is not None:
            seat_row = next(s for s in info.seats if s.id == occupant)
            self.chat_as = (seat_row.user_id, seat_row.name)
        else:
            viewer = None
            if self._same_origin():
                viewer = await session_user(hub, self.ws.app.state.signer, self.ws.cookies.get(COOKIE))
            self.chat_as = None if viewer is None else (viewer.id, viewer.name)
            self.conn.session_user = None if viewer is None else viewer.id  # it chats as the session's user
        # From here until the hub knows this connection nothing waits: a session ended meanwhile
        # (`Hub.end_sessions`) either came before the session was read, or finds this connection among the
        # hub's.
        self.greeted = True
        self.conn.occupant = occupant
        self.conn.seat = next((s.seat for s in info.seats if s.id == occupant), None)
        user = None if occupant is None else next(s.user_id for s in info.seats if s.id == occupant)
        hub.add_conn(self.conn)
        if info.status == "open" and occupant is not None:
            # The table may have started while this hello read it, numbering its seats anew (a start from
            # now on reseats this connection itself): read once more, and take the engine seat if it did.
            fresh = await hub.db(hub.repo.get_game, info.id)
            if fresh.status != "open":
                info = fresh
                self.conn.seat = next((s.seat for s in info.seats if s.id == occupant), None)
        await hub.peek_presence(info.id)
        summary = hub.summary(info, user, owner)
        self.conn.send({"type": "welcome", "game_id": info.id, "seat": self.conn.seat, "game": summary})
        if occupant is not None:  # a seat's presence changed; spectators only change a count
            hub.broadcast_table(info)
        match = hub.matches.get(info.id)
        status = ("finished" if match.over else "live") if match is not None else info.status
        if status in ("live", "finished"):  # before the state: a page draws the chat with the position
            messages = await chat.history(hub, info.id, status, self.conn.seat is not None)
            self.conn.send({"type": "chat_history", "game_id": info.id, "messages": messages})
        state = await hub.current_state(info.id, self.conn.seat, self.conn)
        if state is not None:
            self.conn.send(state)

    async def unknown(self) -> None:
        """No such game, or a private one this hello may not see: the same answer, after the hello."""
        self.conn.send(_error("unknown_game", f"no game {self.game_id}"))
        await self.conn.drain_and_stop()
        with contextlib.suppress(Exception):
            await self.ws.close(4404)

    def _same_origin(self) -> bool:
        """The session cookie acts for a seat only on sockets opened by this site's own pages."""
        origin = self.ws.headers.get("origin")
        allowed = origins(self.hub.settings.allowed_origins)
        return origin is None or from_this_site(origin, self.ws.headers.get("host") or "", allowed)

    async def control(self, kind: str, msg: dict[str, Any]) -> None:
        """resign, draw_offer, draw_answer / takeback_answer {"accept": bool}, takeback_request, undo,
        claim_win, rematch: the seat's person only."""
        if not self.greeted:
            self.refuse("need_hello", "send hello first", request=kind)
            return
        accept, ply = msg.get("accept", False), msg.get("ply")
        if kind in ANSWERS and not isinstance(msg.get("accept"), bool):
            self.refuse("bad_message", f'{kind} has a boolean field "accept"', request=kind)
            return
        if ply is not None and not _is_ply(ply):
            self.refuse("bad_message", "ply is an integer between 0 and 2^63-1", request=kind)
            return
        if self.conn.seat is None:
            self.refuse("spectator", f"spectators cannot {kind.replace('_', ' ')}", request=kind)
            return
        try:
            if kind == "rematch":  # the ask that makes the table pays the rate limit of making one over HTTP
                ip = self.ws.client.host if self.ws.client else None
                limit = partial(self.ws.app.state.limiter.take, "table", ip)
                await self.hub.rematch(self.game_id, self.conn.seat, before_table=limit)
            else:
                await self.hub.table_control(self.game_id, self.conn.seat, kind, bool(accept), ply)
        except (MoveRefused, ApiError, StoreError) as exc:
            self.refuse(exc.code, exc.message, request=kind, **getattr(exc, "extra", {}))

    async def chat(self, msg: dict[str, Any]) -> None:
        """{"type": "chat", "text": "…"}: a seat writes in the players' channel, a spectator in the
        spectators' (as its session's user, on this site's own pages only)."""
        if not self.greeted:
            self.refuse("need_hello", "send hello first", request="chat")
            return
        if self.chat_as is None:
            self.refuse("login_needed", "spectators chat with a guest or registered account", request="chat")
            return
        try:
            text = chat.clean(msg.get("text"))
            s, ip = self.hub.settings, self.ws.client.host if self.ws.client else None
            if not await self.hub.chat_limits.take(self.chat_as[0], ip, s.chat_rate_per_s, s.chat_burst):
                raise MoveRefused("chat_rate_limited", "too many chat messages; wait a few seconds")
            await chat.post(self.hub, self.conn, self.chat_as[0], self.chat_as[1], text)
        except (MoveRefused, ApiError, StoreError) as exc:
            self.refuse(exc.code, exc.message, request="chat")

    async def move(self, msg: dict[str, Any]) -> None:
        move, ply = msg.get("move"), msg.get("ply")
        shown = {"move": move[:64]} if isinstance(move, str) else {}  # each refusal names the move it refuses
        if not self.greeted:
            self.refuse("need_hello", "send hello first", **shown)
            return
        if not isinstance(move, str) or not move or len(move) > MOVE_MAX:
            self.refuse(
                "bad_message",
                f"a move message has a non-empty string move (at most {MOVE_MAX} "
                "characters) and an optional integer ply",
                **shown,
            )
            return
        if ply is not None and not _is_ply(ply):
            self.refuse("bad_message", "ply is an integer between 0 and 2^63-1", **shown)
            return
        if self.conn.seat is None:
            self.refuse("spectator", "spectators cannot move; send hello with a seat token to play", **shown)
            return
        try:
            await self.hub.submit_move(self.game_id, self.conn.seat, move, ply)
        except (MoveRefused, ApiError, StoreError) as exc:
            self.refuse(exc.code, exc.message, **shown)


@router.websocket("/ws/games/{game_id}")
async def game_socket(ws: WebSocket, game_id: int) -> None:
    GAME_ID.set(game_id)  # the lines this socket logs name its game, the server's "accepted" line too
    caps: Caps = ws.app.state.caps
    hub: Hub = ws.app.state.hub
    ip = ws.client.host if ws.client else None
    await ws.accept()
    if not caps.socket_opened(ip):
        limit = caps.settings.max_sockets_per_ip
        with contextlib.suppress(Exception):
            await ws.send_json(_error("too_many_sockets", f"at most {limit} game connections per address"))
            await ws.close(1013)  # try again later
        return
    hub.sockets_open += 1
    try:
        await _serve(ws, game_id)
    finally:
        hub.sockets_open -= 1
        caps.socket_closed(ip)


async def _serve(ws: WebSocket, game_id: int) -> None:
    hub: Hub = ws.app.state.hub
    session = _Session(hub, ws, game_id)  # the game is looked up at hello: unknown and hidden look alike
    settings = hub.settings
    try:
        while not session.conn.closed:
            timeout = None if session.greeted else settings.hello_timeout
            try:
                frame = await asyncio.wait_for(ws.receive(), timeout)
            except TimeoutError:
                session.conn.send(_error("need_hello", "no hello received in time"))
                break
            if frame["type"] == "websocket.disconnect" or session.conn.closed:
                break
            text = frame.get("text")
            data = frame.get("bytes")
            if text is None:
                if data is not None and len(data) > settings.max_ws_message_bytes:
                    session.refuse("too_large", f"messages are at most {settings.max_ws_message_bytes} bytes")
                else:
                    session.refuse("bad_message", "messages are JSON text frames")
                continue
            if (
                len(text) > settings.max_ws_message_bytes
                or len(text.encode("utf-8")) > settings.max_ws_message_bytes
            ):
                session.refuse("too_large", f"messages are at most {settings.max_ws_message_bytes} bytes")
                continue
            if not session.bucket.take():
                session.refuse("rate_limited", f"at most {settings.ws_rate_per_s:g} messages per second")
                continue
            await session.handle(text)
    except WebSocketDisconnect:
        pass
    except RuntimeError:  # the socket went away while we were reading
        pass
    finally:
        if session.greeted:
            hub.remove_conn(session.conn)
        if session.greeted and session.conn.occupant is not None and hub.table_watched(game_id):
            with contextlib.suppress(Exception):  # the hub may be shutting down
                hub.broadcast_table(await hub.table_info(game_id))
        await session.conn.drain_and_stop()
        if not session.conn.closed:
            session.conn.close()
