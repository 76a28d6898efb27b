"""Repository: every read and write the server makes, each one a short transaction.

Methods are synchronous; the server runs writes on one dedicated thread and the methods marked `@reads` on a
small pool of reader threads, so the event loop never waits on the disk and reads never queue behind writes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, delete, func, insert, or_, select, text, true, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from throne.store import statements as sql
from throne.store.db import Database
from throne.store.models import Chat, ChatMute, Game, Move, Rating, Rematch, Seat, User, utcnow
from throne.store.prepared import MoveLog

log = logging.getLogger(__name__)


class StoreError(ValueError):
    """A request the store refuses; `code` is the API error code."""

    code = "store_error"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StoreUnavailable(StoreError):
    """The database cannot be used right now (read-only, full, locked, unreachable): retry later."""

    code = "store_unavailable"
    status = 503


class NotFound(StoreError):
    code = "not_found"
    status = 404


class NoSuchSeat(StoreError):
    code = "no_such_seat"


class BadToken(StoreError):
    code = "bad_token"
    status = 403


class Conflict(StoreError):
    code = "conflict"
    status = 409


class UsernameTaken(Conflict):
    code = "username_taken"


class TableFull(Conflict):
    code = "table_full"


class SeatTaken(Conflict):
    code = "seat_taken"


class AlreadySeated(Conflict):
    code = "already_seated"


class NotOpen(Conflict):
    code = "not_open"


class RematchMade(Conflict):
    """The finished game was already played again, as game `new_game_id`."""

    code = "rematch_done"

    def __init__(self, new_game_id: int) -> None:
        super().__init__(f"this game was already played again as game {new_game_id}")
        self.new_game_id = new_game_id
        self.args = (new_game_id,)  # pickled across the store process, it is rebuilt from its id


class StalePly(Conflict):
    code = "stale"


class DamagedRecord(StoreError):
    """A stored game that cannot be rebuilt: its move log has a gap or does not replay from its seed.

    The record is left as it is for its operators, and `detail` (for the server's log) says what is wrong;
    the message a client sees says only that the game cannot go on, since the detail may name a hidden card.
    """

    code = "game_unavailable"
    status = 503

    def __init__(self, game_id: int, detail: str) -> None:
        super().__init__(f"game {game_id} cannot be shown or continued: its stored record is damaged")
        self.game_id, self.detail = game_id, detail

    def __reduce__(self) -> tuple[Any, ...]:  # raised in a store process, rebuilt in the server's
        return DamagedRecord, (self.game_id, self.detail)


@dataclass(frozen=True)
class NewMove:
    """One move to append to a game's log (`Repo.append_moves`): move number `ply` (0-based), the clock
    snapshot after it, and the result when it ends the game (`rate` then updates the ratings with it)."""

    game_id: int
    ply: int
    seat: int
    move: str
    result: dict[str, Any] | None = None
    rate: RateHook | None = None
    clock: dict[str, Any] | None = None
    fence: int | None = None  # in a cluster: the owner's fencing token (an older one than stored is stale)


@dataclass(frozen=True)
class SeatSpec:
    seat: int
    kind: str  # "human" or "bot"
    name: str
    user_id: int | None = None
    bot: str | None = None
    token_hash: str | None = None
    side: int | None = None  # the engine seat asked for (None: drawn when the table starts)


@dataclass
class SeatInfo:
    id: int
    seat: int
    kind: str
    name: str
    user_id: int | None
    bot: str | None
    takeover: bool
    registered: bool = False
    left: str | None = None  # why a bot took the seat over (abandoned, resign, timeout)
    side: int | None = None  # the engine seat asked for at creation, while the table is open


@dataclass
class GameInfo:
    id: int
    game: str
    status: str
    players: int
    options: dict[str, Any]
    rated: bool
    private: bool
    invite: str | None
    seed: int | None
    ply: int
    result: dict[str, Any] | None
    creator_id: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    seats: list[SeatInfo] = field(default_factory=list)
    #: the game's secret (hex); None for a game started before secrets, which has an integer `seed` instead
    secret: str | None = None
    #: the clock snapshot stored with the move log (`throne.clock.Clock.snapshot`); None: untimed
    clock: dict[str, Any] | None = None

    def seat(self, n: int) -> SeatInfo | None:
        for s in self.seats:  # a loop: asked several times a move
            if s.seat == n:
                return s
        return None

    def seats_out(self) -> frozenset[int]:
        """The seats whose person resigned or ran out of time while the game goes on: a bot plays each to the
        end, and its person is shown what spectators see (the bot's cards are no longer theirs to see, or to
        pass on to another player). Once the game is over they see it as everyone does."""
        if self.status != "live":
            return frozenset()
        return frozenset(s.seat for s in self.seats if s.takeover and s.left in ("resign", "timeout"))


def as_utc(ts: datetime | None) -> datetime | None:
    """Every stored time is UTC: SQLite hands back naive datetimes, PostgreSQL aware ones in its session's
    time zone (its server's, by default)."""
    if ts is None:
        return None
    return ts.astimezone(UTC) if ts.tzinfo else ts.replace(tzinfo=UTC)


def _readable(session: Session, q: Any) -> list[tuple[GameInfo, Any]]:
    """(GameInfo, the row's second column or None) of each game `q` (a select of Game, and maybe one more
    column) finds. A row that cannot be read (a corrupt record: options or a date the columns' types refuse)
    is left out and logged, and the others are listed: it spoils the read of the whole batch, so the rows
    are then read one by one."""

    def read(row: Any) -> tuple[GameInfo, Any]:
        return _info(session, row[0]), row[1] if len(row) > 1 else None

    try:
        return [read(row) for row in session.execute(q).all()]
    except StoreError:  # (a ValueError too) the store failing: not a corrupt row
        raise
    except (ValueError, TypeError, LookupError):
        session.rollback()
    found = []
    for game_id in session.scalars(q.with_only_columns(Game.id)).all():
        try:
            found.append(read(session.execute(q.limit(None).offset(None).where(Game.id == game_id)).one()))
        except StoreError:
            raise
        except (ValueError, TypeError, LookupError) as exc:
            session.rollback()
            why, game = type(exc).__name__, {"game_id": game_id}
            log.warning("game %s cannot be read from the store (%s); left out", game_id, why, extra=game)
    return found


def _info(session: Session | Connection, game: Any) -> GameInfo:
    """The GameInfo of `game` (a Game, or a row of the games table: the same attributes)."""
    return _info_and_tokens(session, game)[0]


def _info_and_tokens(session: Session | Connection, game: Any) -> tuple[GameInfo, dict[str, int]]:
    """The GameInfo of `game`, and its seats' token hashes (the seat id of each): one read of the seats."""
    rows = session.execute(sql.SEATS_WITH_USERNAMES, {"game_id": game.id}).all()  # plain rows: no ORM objects
    seats = [
        SeatInfo(
            s.id,
            s.seat,
            s.kind,
            s.name,
            s.user_id,
            s.bot,
            s.takeover,
            registered=s.username is not None,
            left=s.left,
            side=s.side,
        )
        for s in rows
    ]
    seats.sort(key=lambda s: s.seat)
    tokens = {s.token_hash: s.id for s in rows if s.token_hash is not None}
    info = GameInfo(
        game.id,
        game.game,
        game.status,
        game.players,
        dict(game.options or {}),
        game.rated,
        game.private,
        game.invite,
        game.seed,
        game.ply,
        game.result,
        game.creator_id,
        as_utc(game.created_at),
        as_utc(game.started_at),
        as_utc(game.finished_at),
        seats,
        game.secret,
        game.clock,
    )
    return info, tokens


def _game_row(c: Connection, game_id: int, for_update: bool = False) -> Any:
    """The games table's row of `game_id` (raises NotFound); `for_update` locks it where the database can."""
    row = c.execute(sql.GAME_ROW_LOCKED if for_update else sql.GAME_ROW, {"game_id": game_id}).first()
    if row is None:
        raise NotFound(f"no game {game_id}")
    return row


def _finish(c: Connection, finished: Sequence[NewMove], now: datetime) -> None:
    """Marks the games that `finished` end finished, and runs their rating updates, in `c`'s transaction."""
    c.execute(
        sql.UPDATE_GAME,
        [
            {"game_id": m.game_id, "status": "finished", "result": m.result, "finished_at": now}
            for m in finished
        ],
    )
    rated = [m for m in finished if m.rate is not None]
    if rated:
        with Session(bind=c) as s:  # joins the transaction of `c`, which commits it with the moves
            for m in rated:
                assert m.rate is not None
                m.rate(s, _info(s, s.get(Game, m.game_id)))
            s.flush()


def _seat_row(game_id: int, spec: SeatSpec) -> dict[str, Any]:
    """The seats table's row for `spec` at `game_id`."""
    return {
        "game_id": game_id,
        "seat": spec.seat,
        "kind": spec.kind,
        "user_id": spec.user_id,
        "name": spec.name,
        "bot": spec.bot,
        "token_hash": spec.token_hash,
        "takeover": False,
        "side": spec.side,
    }


def _chat_json(row: Chat) -> dict[str, Any]:
    at = as_utc(row.created_at)
    return {
        "id": row.id,
        "channel": row.channel,
        "seat": row.seat,
        "user_id": row.user_id,
        "name": row.name,
        "ply": row.ply,
        "text": row.text,
        "at": at.isoformat().replace("+00:00", "Z") if at else None,
    }


RateHook = Callable[[Session, GameInfo], None]
F = TypeVar("F", bound=Callable[..., Any])


def reads(fn: F) -> F:
    """Marks a repository method that only reads: the server may run it beside the writer thread."""
    fn.store_reads = True  # type: ignore[attr-defined]
    return fn


def is_read(fn: Callable[..., Any]) -> bool:
    return bool(getattr(getattr(fn, "__func__", fn), "store_reads", False))


def seat_to_take(
    game_id: int, status: str, players: int, places: Sequence[Any], user_id: int | None, seat: int | None
) -> int:
    """The table place a join takes (`seat`, or the lowest free one when None), or the StoreError that
    refuses it. `places`: the seats taken (with `seat`, `kind`, `user_id`); `user_id` None: a visitor not yet
    known, who sits nowhere."""
    if status != "open":
        raise NotOpen(f"game {game_id} is {status}, seats can no longer be taken")
    if user_id is not None and any(p.user_id == user_id and p.kind == "human" for p in places):
        raise AlreadySeated(f"you already sit at game {game_id}")
    taken = {p.seat for p in places}
    free = [n for n in range(players) if n not in taken]
    if not free:
        raise TableFull(f"every seat of game {game_id} is taken")
    if seat is None:
        return free[0]
    if not 0 <= seat < players:
        raise NoSuchSeat(f"seat {seat} does not exist in a {players}-player game")
    if seat in taken:
        raise SeatTaken(f"seat {seat} of game {game_id} is taken")
    return seat


class Repo:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.move_log = MoveLog()  # the group commit's compiled statements

    # ---- users -------------------------------------------------------------------------------------------
    def create_user(self, name: str, username: str | None = None, password_hash: str | None = None) -> User:
        """A new user (a guest without `username`), returned detached like every user the store returns."""
        # Game set-up writes run as plain statements on a plain connection: a session's unit of work costs
        # about as much again as the SQL itself, and a busy server makes a guest or two per game.
        users = User.__table__
        values = {
            "name": name,
            "username": username,
            "password_hash": password_hash,
            "session_epoch": 0,
            "created_at": utcnow(),
        }
        with self.db.engine.begin() as c:
            if username is not None:
                taken = c.scalar(select(users.c.id).where(func.lower(users.c.username) == username.lower()))
                if taken is not None:
                    raise UsernameTaken(f"the username {username!r} is taken")
            try:
                (user_id,) = c.execute(sql.INSERT_USER, values).inserted_primary_key
            except IntegrityError as exc:
                raise UsernameTaken(f"the username {username!r} is taken") from exc
        return User(id=user_id, **values)

    @reads
    def get_user(self, user_id: int) -> User | None:
        with self.db.sessions() as s:
            return s.get(User, user_id)

    @reads
    def user_by_username(self, username: str) -> User | None:
        with self.db.sessions() as s:
            return s.scalar(select(User).where(func.lower(User.username) == username.lower()))

    def set_password_hash(self, user_id: int, password_hash: str) -> int:
        """Stores a new password hash and revokes every session; returns the new session epoch."""
        with self.db.sessions.begin() as s:
            s.execute(
                update(User)
                .where(User.id == user_id)
                .values(password_hash=password_hash, session_epoch=User.session_epoch + 1)
            )
            return s.scalar(select(User.session_epoch).where(User.id == user_id)) or 0

    def adopt_guest(self, guest_id: int, user_id: int) -> int:
        """Moves a guest's seats and tables to the account `user_id` (made by that guest signing up);
        returns how many seats moved. Refused (Conflict) unless `guest_id` is a guest."""
        with self.db.sessions.begin() as s:
            guest = s.get(User, guest_id)
            if guest is None or guest.username is not None or guest_id == user_id:
                raise Conflict(f"user {guest_id} is not a guest")
            moved = s.execute(update(Seat).where(Seat.user_id == guest_id).values(user_id=user_id)).rowcount
            s.execute(update(Game).where(Game.creator_id == guest_id).values(creator_id=user_id))
            s.execute(update(ChatMute).where(ChatMute.user_id == guest_id).values(user_id=user_id))
            s.execute(update(ChatMute).where(ChatMute.muted_id == guest_id).values(muted_id=user_id))
            return int(moved or 0)

    def revoke_sessions(self, user_id: int) -> None:
        """Ends every session of the user (each cookie names an older epoch from now on)."""
        with self.db.sessions.begin() as s:
            s.execute(update(User).where(User.id == user_id).values(session_epoch=User.session_epoch + 1))

    # ---- games and seats ---------------------------------------------------------------------------------
    def create_game(
        self,
        *,
        game: str,
        players: int,
        options: dict[str, Any],
        rated: bool,
        private: bool,
        invite: str | None,
        creator_id: int | None,
        seats: Iterable[SeatSpec],
        clock: dict[str, Any] | None = None,
        rematch_of: int | None = None,
    ) -> GameInfo:
        """A new open table. With `rematch_of`, it is that finished game's rematch, recorded in the same
        transaction (a crash leaves neither, and a rematch whose making failed can be made later); raises
        RematchMade when one was made already."""
        specs = list(seats)
        for spec in specs:
            if not 0 <= spec.seat < players:
                raise NoSuchSeat(f"seat {spec.seat} does not exist in a {players}-player game")
        values = {
            "game": game,
            "status": "open",
            "players": players,
            "options": options,
            "rated": rated,
            "private": private,
            "invite": invite,
            "ply": 0,
            "creator_id": creator_id,
            "created_at": utcnow(),
            "clock": clock,
        }
        with self.db.engine.begin() as c:
            if rematch_of is not None:
                made = c.execute(
                    select(Rematch.new_game_id).where(Rematch.game_id == rematch_of).with_for_update()
                ).scalar()
                if made is not None:
                    raise RematchMade(made)
            (game_id,) = c.execute(sql.INSERT_GAME, values).inserted_primary_key
            if specs:
                c.execute(sql.INSERT_SEAT, [_seat_row(game_id, spec) for spec in specs])
            if rematch_of is not None:
                rematch = {"game_id": rematch_of, "new_game_id": game_id}
                if not c.execute(update(Rematch).where(Rematch.game_id == rematch_of), rematch).rowcount:
                    c.execute(insert(Rematch), {**rematch, "seats": []})
            return _info(c, _game_row(c, game_id))

    @reads
    def get_game(self, game_id: int) -> GameInfo:
        with self.db.engine.connect() as c:  # a plain connection: cheaper than a session for two reads
            return _info(c, _game_row(c, game_id))

    @reads
    def game_and_seat(self, game_id: int, token_hash: str) -> tuple[GameInfo, SeatInfo | None]:
        """A game and the seat that `token_hash` belongs to (None: no seat of this game), in one read: a
        socket's hello asks for both."""
        with self.db.engine.connect() as c:
            info, tokens = _info_and_tokens(c, _game_row(c, game_id))
            seat_id = tokens.get(token_hash)
            return info, next((seat for seat in info.seats if seat.id == seat_id), None)

    @reads
    def list_games(
        self, statuses: Sequence[str], game: str | None = None, limit: int = 50, include_private: bool = False
    ) -> list[GameInfo]:
        with self.db.sessions() as s:
            q = select(Game).where(Game.status.in_(list(statuses)))
            if game:
                q = q.where(Game.game == game)
            if not include_private:
                q = q.where(Game.private.is_(False))
            q = q.order_by(Game.id.desc()).limit(limit)
            return [info for info, _ in _readable(s, q)]

    @reads
    def games_with_status(self, status: str) -> list[int]:
        with self.db.sessions() as s:
            return list(s.scalars(select(Game.id).where(Game.status == status).order_by(Game.id)).all())

    def join_seat(
        self, game_id: int, seat: int | None, *, user_id: int, name: str, token_hash: str
    ) -> tuple[GameInfo, int]:
        """Takes a free table place (the lowest when `seat` is None); returns the game and the place."""
        with self.db.engine.begin() as c:
            row = _game_row(c, game_id, for_update=True)
            places = c.execute(sql.PLACES, {"game_id": game_id}).all()
            # checked here, in the write, so two joins cannot both pass
            seat = seat_to_take(game_id, row.status, row.players, places, user_id, seat)
            spec = SeatSpec(seat, "human", name, user_id=user_id, token_hash=token_hash)
            try:
                c.execute(sql.INSERT_SEAT, _seat_row(game_id, spec))
            except IntegrityError as exc:
                raise SeatTaken(f"seat {seat} of game {game_id} is taken") from exc
            return _info(c, row), seat

    def leave_seat(self, game_id: int, token_hash: str) -> GameInfo:
        with self.db.sessions.begin() as s:
            row = s.get(Game, game_id, with_for_update=True)
            if row is None:
                raise NotFound(f"no game {game_id}")
            if row.status != "open":
                raise NotOpen(f"game {game_id} is {row.status}; only an open table can be left")
            seat = s.scalar(select(Seat).where(Seat.game_id == game_id, Seat.token_hash == token_hash))
            if seat is None:
                raise BadToken("the seat token does not belong to this game")
            s.delete(seat)
            s.flush()
            humans = s.scalar(select(func.count()).where(Seat.game_id == game_id, Seat.kind == "human"))
            if not humans:
                row.status = "aborted"
                row.finished_at = utcnow()
            return _info(s, row)

    @reads
    def seat_by_token(self, game_id: int, token_hash: str) -> SeatInfo | None:
        with self.db.sessions() as s:
            row = s.scalar(select(Seat).where(Seat.game_id == game_id, Seat.token_hash == token_hash))
            if row is None:
                return None
            return SeatInfo(
                row.id, row.seat, row.kind, row.name, row.user_id, row.bot, row.takeover, left=row.left
            )

    def start_game(
        self, game_id: int, seed: int | str, order: Sequence[int]
    ) -> tuple[GameInfo, dict[str, int]]:
        """Marks an open, full table live: `order[i]` is the table place that becomes engine seat i. Returns
        the live game and its seats' token hashes (the seat id of each; a live seat's token never changes).

        `seed` is the game's secret (a hex string, stored in `secret`); an integer is stored as a legacy
        seed (games dealt by the old generator; tests).
        """
        with self.db.engine.begin() as c:
            row = _game_row(c, game_id, for_update=True)
            if row.status != "open":
                raise NotOpen(f"game {game_id} is {row.status}")
            places = {p.seat: p.id for p in c.execute(sql.PLACES, {"game_id": game_id})}
            if sorted(places) != list(range(row.players)) or sorted(order) != list(range(row.players)):
                raise Conflict(f"game {game_id} is not full")
            # two steps keep (game, seat) unique after each statement: every place to -1 - place first
            c.execute(sql.UPDATE_SEAT, [{"seat_id": i, "seat": -1 - p} for p, i in places.items()])
            # a side asked for is now given (or not): a live seat is its engine seat
            given = [{"seat_id": places[place], "seat": e, "side": None} for e, place in enumerate(order)]
            c.execute(sql.UPDATE_SEAT, given)
            secret, legacy_seed = (seed, None) if isinstance(seed, str) else (None, seed)
            started = {"status": "live", "started_at": utcnow(), "ply": 0}
            c.execute(sql.UPDATE_GAME, {"game_id": game_id, "secret": secret, "seed": legacy_seed, **started})
            return _info_and_tokens(c, _game_row(c, game_id))

    def append_move(
        self,
        game_id: int,
        ply: int,
        seat: int,
        move: str,
        result: dict[str, Any] | None = None,
        rate: RateHook | None = None,
        clock: dict[str, Any] | None = None,
    ) -> None:
        """Appends move number `ply` (0-based) with the clock snapshot after it and, when `result` is
        given, finishes the game — atomically.

        Raises StalePly when the log does not hold exactly `ply` moves: nothing is duplicated or skipped.
        """
        (stale,) = self.append_moves([NewMove(game_id, ply, seat, move, result, rate, clock)])
        if stale is not None:
            raise stale

    def append_moves(self, moves: Sequence[NewMove]) -> list[StalePly | None]:
        """Appends moves of several games in ONE transaction (group commit); at most one move per game.

        Returns, per move, None (stored) or StalePly: that game's log does not hold exactly `ply` moves, and
        that move alone is left out (its guarded update matched no row, so nothing of it changed). Any other
        failure rolls the whole group back: no move of it is stored.
        """
        now = utcnow()
        with self.db.engine.begin() as c:  # a plain connection: no session's unit of work on the hot path
            # Few statements for the whole group, whatever its size: one guarded update of every game's ply,
            # one of the clocks, one multi-row insert. On a busy server each statement the writer thread
            # makes waits for the interpreter lock again, so their number, not their size, sets the commit
            # time; each is compiled once per group size (throne.store.prepared).
            advanced = self.move_log.advance(c, moves)
            out: list[StalePly | None] = [
                None if m.game_id in advanced else StalePly(f"game {m.game_id} is not live at ply {m.ply}")
                for m in moves
            ]
            stored = [m for m, stale in zip(moves, out, strict=True) if stale is None]
            self.move_log.set_clocks(c, stored)
            self.move_log.insert(c, stored, now)
            finished = [m for m in stored if m.result is not None]
            if finished:
                _finish(c, finished, now)
        return out

    def take_back(
        self,
        game_id: int,
        ply: int,
        keep: int,
        start: dict[str, Any] | None = None,
        fence: int | None = None,
    ) -> dict[str, Any] | None:
        """A takeback: removes moves `keep`.. of a live game at `ply` and restores the clock snapshot stored
        with the last move kept (`start` when no move is kept), atomically,
        so that a replay of the log gives the position kept. Returns the clock snapshot now stored.

        Raises StalePly when the game is not live at exactly `ply` (or `fence`, a cluster owner's token, is
        older than the game's)."""
        if not 0 <= keep < ply:
            raise ValueError(f"cannot keep {keep} of {ply} moves")
        with self.db.sessions.begin() as s:
            clock = start
            if keep > 0:  # (None for a move stored without a clock: the game's clock stays as it is)
                clock = s.scalar(select(Move.clock).where(Move.game_id == game_id, Move.ply == keep - 1))
            _move_live_game(s, game_id, ply, keep, clock, fence)
            s.execute(delete(Move).where(Move.game_id == game_id, Move.ply >= keep))
            return clock

    def fence_game(self, game_id: int, token: int) -> bool:
        """A cluster node claimed the live game with fencing token `token`: from now on a move stored with an
        older token is stale. False when a newer token is already stored (this claim is the stale one)."""
        with self.db.sessions.begin() as s:
            done = s.execute(
                update(Game)
                .where(Game.id == game_id, or_(Game.fence.is_(None), Game.fence < token))
                .values(fence=token)
            )
            return bool(done.rowcount == 1)

    def save_clock(self, game_id: int, ply: int, clock: dict[str, Any], fence: int | None = None) -> bool:
        """A clock checkpoint of a live game at `ply`; False when the game moved on or ended meanwhile (or
        `fence`, a cluster owner's token, is older than the game's)."""
        with self.db.sessions.begin() as s:
            done = s.execute(
                update(Game)
                .where(Game.id == game_id, Game.status == "live", Game.ply == ply, _fenced(fence))
                .values(clock=clock)
            )
            return bool(done.rowcount == 1)

    def finish_game(
        self,
        game_id: int,
        ply: int,
        result: dict[str, Any],
        rate: RateHook | None = None,
        clock: dict[str, Any] | None = None,
        fence: int | None = None,
    ) -> None:
        """Ends a live game at `ply` without a move (a flag fall, a resignation, an agreed draw).

        Raises StalePly when the game is not live at exactly `ply` (or `fence`, a cluster owner's token, is
        older than the game's)."""
        with self.db.engine.begin() as c:
            values: dict[str, Any] = {"status": "finished", "result": result, "finished_at": utcnow()}
            if clock is not None:
                values["clock"] = clock
            _update_live_game(c, game_id, ply, values, fence)
            if rate is not None:
                with Session(bind=c) as s:  # joins the transaction of `c`
                    rate(s, _info(s, s.get(Game, game_id)))
                    s.flush()

    def add_chat(
        self,
        game_id: int,
        user_id: int | None,
        seat: int | None,
        name: str,
        channel: str,
        ply: int,
        text: str,
    ) -> dict[str, Any]:
        """Stores one chat message; returns it as the protocol sends it."""
        with self.db.sessions.begin() as s:
            row = Chat(
                game_id=game_id,
                user_id=user_id,
                seat=seat,
                name=name,
                channel=channel,
                ply=ply,
                text=text,
                created_at=utcnow(),
            )
            s.add(row)
            s.flush()
            return _chat_json(row)

    @reads
    def chat(self, game_id: int, channels: Sequence[str], limit: int = 200) -> list[dict[str, Any]]:
        """The last `limit` messages of these channels of a game, oldest first."""
        with self.db.sessions() as s:
            rows = s.scalars(
                select(Chat)
                .where(Chat.game_id == game_id, Chat.channel.in_(list(channels)))
                .order_by(Chat.id.desc())
                .limit(limit)
            ).all()
            return [_chat_json(r) for r in reversed(rows)]

    # ---- rematches and chat mutes --------------------------------------------------------------------------
    def ask_rematch(self, game_id: int, seat: int) -> tuple[list[int], bool, int | None]:
        """`seat` asks to play finished game `game_id` again: (the seats that asked so far, whether this ask
        is new, the rematch already made or None). The first two asks at once (two nodes) both insert the
        row: the one that loses the insert reads it again, locked."""
        try:
            return self._ask_rematch(game_id, seat)
        except IntegrityError:
            return self._ask_rematch(game_id, seat)

    def _ask_rematch(self, game_id: int, seat: int) -> tuple[list[int], bool, int | None]:
        with self.db.sessions.begin() as s:
            row = s.get(Rematch, game_id, with_for_update=True)
            if row is None:
                row = Rematch(game_id=game_id, seats=[])
                s.add(row)
            if row.new_game_id is not None or seat in row.seats:
                return sorted(row.seats), False, row.new_game_id
            row.seats = sorted([*row.seats, seat])
            s.flush()
            return list(row.seats), True, None

    @reads
    def rematch(self, game_id: int) -> tuple[list[int], int | None]:
        """The seats that asked for a rematch of `game_id` and the rematch (None: not made)."""
        with self.db.sessions() as s:
            row = s.get(Rematch, game_id)
            return ([], None) if row is None else (sorted(row.seats), row.new_game_id)

    @reads
    def chat_mutes(self, user_id: int) -> list[int]:
        """The users whose chat `user_id` muted."""
        with self.db.sessions() as s:
            q = select(ChatMute.muted_id).where(ChatMute.user_id == user_id).order_by(ChatMute.muted_id)
            return list(s.scalars(q).all())

    def set_chat_mute(self, user_id: int, muted_id: int, muted: bool) -> list[int]:
        """Mutes (or unmutes) `muted_id` for `user_id`; returns the muted users. NotFound: no such user."""
        with self.db.sessions.begin() as s:
            if s.get(User, muted_id) is None:
                raise NotFound(f"no user {muted_id}")
            row = s.get(ChatMute, (user_id, muted_id))
            if muted and row is None:
                s.add(ChatMute(user_id=user_id, muted_id=muted_id))
            elif not muted and row is not None:
                s.delete(row)
            s.flush()
            q = select(ChatMute.muted_id).where(ChatMute.user_id == user_id).order_by(ChatMute.muted_id)
            return list(s.scalars(q).all())

    @reads
    def moves(self, game_id: int) -> list[tuple[int, str]]:
        """A game's move log as (seat, move) pairs, from ply 0; raises DamagedRecord if a ply is missing."""
        with self.db.sessions() as s:
            rows = s.execute(
                select(Move.ply, Move.seat, Move.move).where(Move.game_id == game_id).order_by(Move.ply)
            ).all()
        for expected, (ply, _seat, _move) in enumerate(rows):
            if ply != expected:
                raise DamagedRecord(game_id, f"its move log has no ply {expected} (the next stored is {ply})")
        return [(seat, move) for _ply, seat, move in rows]

    def takeover(
        self, game_id: int, seat: int, bot: str, left: str = "abandoned", fence: int | None = None
    ) -> GameInfo:
        """A bot plays a person's seat from now on; `left` says why (abandoned, resign, timeout). Raises
        StalePly when `fence`, a cluster owner's token, is older than the game's."""
        with self.db.sessions.begin() as s:
            _hold_fence(s, game_id, fence)
            row = s.scalar(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat))
            if row is None or row.kind != "human":
                raise Conflict(f"seat {seat} of game {game_id} is not a human seat")
            row.kind, row.bot, row.takeover, row.left = "bot", bot, True, left
            s.flush()
            return _info(s, s.get(Game, game_id))

    def reclaim(self, game_id: int, seat: int, fence: int | None = None) -> GameInfo:
        """The player of a seat left by abandonment takes it back (`takeover` stays: the game had a bot).
        Raises StalePly when `fence`, a cluster owner's token, is older than the game's."""
        with self.db.sessions.begin() as s:
            _hold_fence(s, game_id, fence)
            row = s.scalar(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat))
            if row is None or row.kind != "bot" or row.left != "abandoned":
                raise Conflict(f"seat {seat} of game {game_id} was not left by abandonment")
            row.kind, row.bot, row.left = "human", None, None
            s.flush()
            return _info(s, s.get(Game, game_id))

    # ---- abuse limits ------------------------------------------------------------------------------------
    @reads
    def open_tables_by(self, user_id: int) -> int:
        """How many open tables `user_id` created."""
        with self.db.sessions() as s:
            q = select(func.count()).where(Game.status == "open", Game.creator_id == user_id)
            return int(s.scalar(q) or 0)

    @reads
    def bot_games_by(self, user_id: int, excluding: Sequence[int] = ()) -> tuple[int, int]:
        """How many open or live games with a bot of their own (not one playing for a person who left)
        `user_id` created, on any node, and how many of them are tables of bots only (live, no person seated:
        an open table waits for a person); the games `excluding` left out (those that cannot go on)."""
        own_bot = (
            select(Seat.id)
            .where(Seat.game_id == Game.id, Seat.kind == "bot", Seat.takeover.is_not(True))
            .exists()
        )
        # a person's seat, even if a bot plays it on after they resigned, ran out of time or left
        person = (
            select(Seat.id)
            .where(Seat.game_id == Game.id, (Seat.kind != "bot") | Seat.takeover.is_(True))
            .exists()
        )
        bots_only = (Game.status == "live") & ~person
        q = select(func.count(), func.count().filter(bots_only)).where(
            Game.status.in_(("open", "live")), Game.creator_id == user_id, own_bot, Game.id.not_in(excluding)
        )
        with self.db.sessions() as s:
            games, bots_only = s.execute(q).one()
            return int(games), int(bots_only)

    @reads
    def statuses(self, game_ids: Sequence[int]) -> dict[int, str]:
        with self.db.sessions() as s:
            rows = s.execute(select(Game.id, Game.status).where(Game.id.in_(list(game_ids)))).all()
            return {game_id: status for game_id, status in rows}

    def abort_stale_tables(self, empty_before: datetime, open_before: datetime) -> list[GameInfo]:
        """Aborts the open tables created before `open_before`, and those where no person sits that were
        created before `empty_before`; returns them."""
        with self.db.sessions.begin() as s:
            humans = select(Seat.id).where(Seat.game_id == Game.id, Seat.kind == "human").exists()
            stale = (
                select(Game)
                .where(Game.status == "open")
                .where((Game.created_at < open_before) | ((Game.created_at < empty_before) & ~humans))
                .with_for_update()
            )
            aborted = []
            for row in s.scalars(stale).all():
                row.status, row.finished_at = "aborted", utcnow()
                aborted.append(row)
            s.flush()
            return [_info(s, row) for row in aborted]

    def abort_open(self, game_ids: Sequence[int]) -> list[GameInfo]:
        """Aborts those of `game_ids` that are still open; returns them."""
        with self.db.sessions.begin() as s:
            rows = s.scalars(
                select(Game).where(Game.id.in_(list(game_ids)), Game.status == "open").with_for_update()
            ).all()
            for row in rows:
                row.status, row.finished_at = "aborted", utcnow()
            s.flush()
            return [_info(s, row) for row in rows]

    @reads
    def user_games(
        self, user_id: int, limit: int = 50, offset: int = 0, include_private: bool = True
    ) -> tuple[list[tuple[GameInfo, int]], int]:
        with self.db.sessions() as s:
            base = (
                select(Game, Seat.seat)
                .join(Seat, Seat.game_id == Game.id)
                .where(Seat.user_id == user_id, Game.status.in_(["live", "finished"]))
            )
            if not include_private:
                base = base.where(Game.private.is_(False))
            total = s.scalar(select(func.count()).select_from(base.subquery())) or 0
            return _readable(s, base.order_by(Game.id.desc()).limit(limit).offset(offset)), total

    def probe_write(self) -> int:
        """Rewrites the one row of the migrations' table with its own value, committed: fails when the
        database refuses writes. (A statement that matches no row commits without writing a page, so it
        succeeded on a full disk.) Returns the rows rewritten."""
        with self.db.sessions.begin() as s:
            return s.execute(text("UPDATE alembic_version SET version_num = version_num")).rowcount

    # ---- ratings -----------------------------------------------------------------------------------------
    @reads
    def rating(self, user_id: int, game: str) -> Rating | None:
        with self.db.sessions() as s:
            return s.get(Rating, (user_id, game))

    @reads
    def leaderboard(self, game: str, limit: int = 50) -> list[tuple[Rating, User]]:
        with self.db.sessions() as s:
            rows = s.execute(
                select(Rating, User)
                .join(User, User.id == Rating.user_id)
                .where(Rating.game == game, Rating.games > 0)
                .order_by(Rating.score.desc(), Rating.user_id)
                .limit(limit)
            ).all()
            return [(r, u) for r, u in rows]


RATINGS_LOCK = 0x7468726F6E65  # the advisory lock of rating updates on PostgreSQL ("throne")


def load_ratings(session: Session, game: str, user_ids: Sequence[int], system: str) -> dict[int, Rating]:
    """The players' ratings of `game`, locked until the transaction ends: games of one player that end at once
    (on several nodes of a cluster) update the rating one after the other, none overwriting another's
    update. A player without a rating gets an empty one (no `data`, `games` 0) that `save_rating` fills in the
    same transaction."""
    users = sorted(set(user_ids))
    empty = [dict(user_id=u, game=game, system=system, data={}, score=0.0, games=0) for u in users]
    if not empty:
        return {}
    if session.get_bind().dialect.name == "postgresql":
        # One rating update at a time in the whole database, until the transaction ends: a group commit
        # rates several games, so locking each game's rows in order would still let two groups lock them
        # crosswise (a deadlock). Games end seldom; the wait is one commit at most. (SQLite has one writer.)
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": RATINGS_LOCK})
        upsert = postgresql.insert
    else:
        upsert = sqlite.insert
    session.execute(upsert(Rating).values(empty).on_conflict_do_nothing())
    rows = session.scalars(
        select(Rating)
        .where(Rating.game == game, Rating.user_id.in_(users))
        .order_by(Rating.user_id)
        .with_for_update()
    ).all()
    return {r.user_id: r for r in rows}


def save_rating(session: Session, existing: Rating, data: dict[str, Any], score: float) -> None:
    """One more rated game in `existing` (a row of `load_ratings`)."""
    existing.data, existing.score, existing.games = data, score, existing.games + 1
    existing.updated_at = utcnow()


__all__ = [
    "AlreadySeated",
    "Conflict",
    "GameInfo",
    "NotFound",
    "NotOpen",
    "Repo",
    "SeatInfo",
    "SeatSpec",
    "SeatTaken",
    "StalePly",
    "StoreError",
    "StoreUnavailable",
    "TableFull",
    "UsernameTaken",
    "as_utc",
    "is_read",
    "load_ratings",
    "reads",
    "save_rating",
]


def _fenced(fence: int | None) -> ColumnElement[bool]:
    """The condition that no newer owner than token `fence` claimed the game (always true for None)."""
    if fence is None:
        return true()
    return or_(Game.fence.is_(None), Game.fence <= fence)


def _hold_fence(s: Session, game_id: int, fence: int | None) -> None:
    """Raises StalePly when a newer owner than token `fence` claimed the game; else locks the game's row
    until the transaction ends. A claim stores its token before it reads the game, so that read comes after
    this transaction's writes, or the token came first and this transaction is refused."""
    if fence is not None:
        done = s.execute(update(Game).where(Game.id == game_id, _fenced(fence)).values(fence=Game.fence))
        if done.rowcount != 1:
            raise StalePly(f"game {game_id} has an owner newer than token {fence}")


def _move_live_game(
    s: Session, game_id: int, ply: int, to: int, clock: dict[str, Any] | None, fence: int | None = None
) -> None:
    """Sets a live game at exactly `ply` to ply `to` (and its clock, when given); StalePly otherwise, and
    when `fence` (a cluster owner's token) is older than the game's stored token."""
    values: dict[str, Any] = {"ply": to}
    if clock is not None:
        values["clock"] = clock
    _update_live_game(s, game_id, ply, values, fence)


def _update_live_game(
    s: Session | Connection, game_id: int, ply: int, values: dict[str, Any], fence: int | None
) -> None:
    """Writes `values` into a game that is live at exactly `ply`; StalePly otherwise, and when `fence` (a
    cluster owner's token) is older than the game's stored token."""
    guard = {"game_id": game_id, "at_ply": ply}
    if fence is None:
        done = s.execute(sql.UPDATE_LIVE_GAME, {**guard, **values})
    else:
        done = s.execute(sql.UPDATE_LIVE_GAME_FENCED, {**guard, "fence_token": fence, **values})
    if done.rowcount != 1:
        raise StalePly(f"game {game_id} is not live at ply {ply}")
