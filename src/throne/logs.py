"""Structured logs: text or JSON lines, with the game id on every line logged on a game's behalf.

A game's owner task, its bots and the sockets of its room run with `GAME_ID` set (a context variable that
tasks inherit), so a record needs no id in its arguments to be found by game: the JSON formatter writes it as
`"game_id"`, the text formatter as `game=N`. `record.game_id` (logging's `extra=`) wins over the context.
The invites of private tables are blanked in the addresses logged (uvicorn's access lines carry each
request's query string).
"""

from __future__ import annotations

import contextvars
import logging
import os
import re
from datetime import UTC, datetime
from typing import IO, Any

import orjson

GAME_ID: contextvars.ContextVar[int | None] = contextvars.ContextVar("throne_game_id", default=None)
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s%(game)s: %(message)s"
INVITE = re.compile(r"(?<=[?&]invite=)[^&#\s\"]+")


class GameFilter(logging.Filter):
    """Stamps `record.game_id` (from `extra=`, else the context of the call) and `record.game` (" game=N"
    or "", for the text format). It runs when the record is handled, in the logging call's own context."""

    def filter(self, record: logging.LogRecord) -> bool:
        game = getattr(record, "game_id", None)
        if game is None:
            game = record.game_id = GAME_ID.get()
        record.game = "" if game is None else f" game={game}"
        return True


class InviteFilter(logging.Filter):
    """Blanks private tables' invites in a record's string arguments: an invite lets whoever holds it watch
    or join the table, and a log is read by more people than the table's."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and any(isinstance(a, str) and "invite=" in a for a in args):
            record.args = tuple(INVITE.sub("…", a) if isinstance(a, str) else a for a in args)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, game id, exception."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        game = getattr(record, "game_id", None)
        if game is not None:
            line["game_id"] = game
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


LEVELS = ("debug", "info", "warning", "error")
CHOSEN: dict[str, str] = {}
"""The level and format `configure` set (empty before): the store processes log as the server does."""


def chosen_format(fmt: str | None = None) -> str:
    """`fmt`, else THRONE_LOG_FORMAT, else "text"; ValueError for anything but text or json."""
    fmt = (fmt or os.environ.get("THRONE_LOG_FORMAT") or "text").lower()
    if fmt not in ("text", "json"):
        raise ValueError(f"unknown log format {fmt!r} (--log-format, THRONE_LOG_FORMAT): text or json")
    return fmt


def handler(fmt: str | None = None, stream: IO[str] | None = None) -> logging.Handler:
    """A handler writing `chosen_format(fmt)` to `stream` (default stderr)."""
    fmt = chosen_format(fmt)
    out = logging.StreamHandler(stream)
    out.addFilter(GameFilter())
    out.addFilter(InviteFilter())
    out.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    return out


FRAME_LOGGERS = ("uvicorn.error", "websockets")
"""Never below INFO: at DEBUG the `websockets` protocol (which logs to `uvicorn.error` under uvicorn) writes
every frame and handshake header, seat tokens and session cookies among them."""


def configure(level: str = "info", fmt: str | None = None) -> logging.Handler:
    """Replaces the root logger's handlers with one `handler(fmt)`; uvicorn's loggers write through it too.
    Sets every level (uvicorn runs with `log_level=None`, which leaves them); the choice is kept in CHOSEN."""
    out = handler(fmt)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(out)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
        logger.setLevel(logging.NOTSET)
    for name in FRAME_LOGGERS:
        logging.getLogger(name).setLevel(max(root.level, logging.INFO))
    CHOSEN.update(level=level.lower(), fmt=chosen_format(fmt))
    return out
