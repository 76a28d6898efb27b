"""Table chat: two channels per game, stored with it. Players write in "players" (everyone at the table reads
it); spectators write in "spectators", which players cannot read while the game is live (spectators cannot
message players during a game); once it is over everyone reads both. Text is plain text: clients render it as
text, never as markup. Nothing a seat writes reaches the engine."""

from __future__ import annotations

import time
import unicodedata
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from throne.server.match import MoveRefused
from throne.server.ratelimit import client_key

if TYPE_CHECKING:
    from throne.server.conn import Conn
    from throne.server.lobby import Hub

MAX_CHARS = 300
HISTORY = 200
PER_ADDRESS = 4  # one client address may write as much as this many writers
REMEMBERED = 20_000  # buckets kept (the least recently used are forgotten first)


class ChatBucket:
    """Token bucket per connection (an explicit `now` keeps it testable)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.at = float(burst), time.monotonic()

    def level(self, now: float) -> float:
        return min(self.burst, self.tokens + (now - self.at) * self.rate)

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = self.level(now)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class ChatLimits:
    """Chat buckets per writer (user) and per client address, shared by all their connections: a reconnect
    or one more socket starts no fresh burst. A refused message takes from no bucket."""

    def __init__(self) -> None:
        self._buckets: OrderedDict[str, ChatBucket] = OrderedDict()

    def _bucket(self, key: str, rate: float, burst: int) -> ChatBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = ChatBucket(rate, burst)
        self._buckets.move_to_end(key)
        while len(self._buckets) > REMEMBERED:
            self._buckets.popitem(last=False)
        return bucket

    @staticmethod
    def buckets(
        user_id: int | None, ip: str | None, rate: float, burst: int
    ) -> list[tuple[str, float, float]]:
        """The (key, rate, burst) of the writer's and the address's buckets."""
        return [(f"user:{user_id}", rate, burst), (client_key(ip), rate * PER_ADDRESS, burst * PER_ADDRESS)]

    async def take(self, user_id: int | None, ip: str | None, rate: float, burst: int) -> bool:
        return self.take_here(user_id, ip, rate, burst)

    def take_here(
        self, user_id: int | None, ip: str | None, rate: float, burst: int, now: float | None = None
    ) -> bool:
        """From this process's buckets: a message from both, or from none if either is empty."""
        now = time.monotonic() if now is None else now
        buckets = [self._bucket(key, r, b) for key, r, b in self.buckets(user_id, ip, rate, burst)]
        if any(b.level(now) < 1.0 for b in buckets):
            return False
        return all([b.take(now) for b in buckets])


# Embeddings, overrides and isolates reorder the text after them (a message that reads otherwise than it is
# written, "Trojan Source"); the marks that Persian needs (ZWNJ, RLM, LRM) stay allowed.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")


def clean(text: Any) -> str:
    """The text to store, or MoveRefused `bad_chat` (not a string, empty, too long, control characters)."""
    if not isinstance(text, str):
        raise MoveRefused("bad_chat", "chat text is a string")
    text = text.strip()
    if not text or len(text) > MAX_CHARS:
        raise MoveRefused("bad_chat", f"chat text has 1 to {MAX_CHARS} characters")
    if any(unicodedata.category(c) in ("Cc", "Cs") or c in BIDI_CONTROLS for c in text):
        raise MoveRefused("bad_chat", "chat text has no control characters (nor bidirectional overrides)")
    return text


def readable(status: str, seated: bool) -> tuple[str, ...]:
    """The channels a connection may read."""
    if seated and status == "live":
        return ("players",)
    return ("players", "spectators")


async def post(hub: Hub, conn: Conn, user_id: int | None, name: str, text: Any) -> None:
    """Stores a message and sends it to every connection allowed to read its channel."""
    body = clean(text)
    match = hub.matches.get(conn.game_id)
    info = match.info if match is not None else await hub.db(hub.repo.get_game, conn.game_id)
    status = "live" if match is not None and not match.over else info.status
    if status not in ("live", "finished"):
        raise MoveRefused("not_live", "the table chat opens when the game starts")
    channel = "players" if conn.seat is not None else "spectators"
    ply = match.ply if match is not None else info.ply
    message = await hub.db(hub.repo.add_chat, conn.game_id, user_id, conn.seat, name, channel, ply, body)
    if match is not None:
        match.chat_empty = False
    out = {"type": "chat", "game_id": conn.game_id, "message": message}
    for other in list(hub.rooms.get(conn.game_id, ())):
        if channel in readable(status, other.seat is not None):
            other.send(out)
    if hub.cluster is not None:  # the other nodes filter by the same rule for their sockets
        note = {"t": "chat", "channel": channel, "status": status, "msg": out}
        hub.cluster.publish_room(conn.game_id, note)


async def history(hub: Hub, game_id: int, status: str, seated: bool) -> list[dict[str, Any]]:
    """The last messages a connection may read (none to read back for a game known to have none)."""
    match = hub.matches.get(game_id)
    if match is not None and match.chat_empty:
        return []
    return await hub.db(hub.repo.chat, game_id, readable(status, seated), HISTORY)
