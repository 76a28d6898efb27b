"""Tables of the store. The move log is append-only: one row per (game, ply), never updated."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    username: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    # Sessions carry the epoch they were made in; raising it revokes them all (logout, password change).
    session_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    # a username is unique in any case: "Ann" and "ann" are one account (migration 0012)
    __table_args__ = (Index("uq_users_username_lower", func.lower(username), unique=True),)


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(32), index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)  # open, live, finished, aborted
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    invite: Mapped[str | None] = mapped_column(String(64), nullable=True)
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # legacy games (before secrets) only
    secret: Mapped[str | None] = mapped_column(String(128), nullable=True)  # the deal's 128-bit secret, hex
    ply: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: the time control and the clock snapshot (throne.clock), updated with every move; None: untimed
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # A cluster's fencing token of the game's current owner (None: one process owns every game).
    fence: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    creator_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Seat(Base):
    """An occupant of a game: a table place while open, the engine seat once live."""

    __tablename__ = "seats"
    # A seat's id names one person's place at one table (a socket's occupant): SQLite must never give the id
    # of a seat that left to the next one (AUTOINCREMENT, migration 0011); PostgreSQL's sequence never does.
    __table_args__ = (
        UniqueConstraint("game_id", "seat", name="uq_seats_game_seat"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # human, bot
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    name: Mapped[str] = mapped_column(String(64))
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    takeover: Mapped[bool] = mapped_column(Boolean, default=False)
    #: why a bot took the seat over: abandoned (its player may take it back), resign, timeout
    left: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: the engine seat this table place asked for at creation (None: drawn at the start); read at the start
    side: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Move(Base):
    __tablename__ = "moves"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(String(256))
    #: the clock snapshot after this move (None: untimed, or stored before moves kept one)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Chat(Base):
    """One chat message of a table: `channel` is "players" (a seat wrote it) or "spectators"."""

    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    channel: Mapped[str] = mapped_column(String(16))
    ply: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Rematch(Base):
    """The rematch of a finished game: the seats that asked so far and, once everyone did, the new game."""

    __tablename__ = "rematches"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seats: Mapped[list[int]] = mapped_column(JSON, default=list)
    new_game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), nullable=True)


class ChatMute(Base):
    """A user who does not want to read another user's chat messages (on every table)."""

    __tablename__ = "chat_mutes"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    muted_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)


class Rating(Base):
    __tablename__ = "ratings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    system: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    score: Mapped[float] = mapped_column(Float, index=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
