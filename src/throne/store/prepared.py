"""The move log's hot path: statements compiled once per shape and sent straight to the database driver.

A group commit writes the same few statements over and over with a different number of rows. Built and
executed through SQLAlchemy each time, compiling them and binding their parameters cost ~85 µs per move
(profiled: most of the writer thread's time); compiled once per (statement, rows) by SQLAlchemy for the
connection's dialect and executed with `exec_driver_sql`, ~15 µs (docs/BENCHMARKS.md). SQLAlchemy still
renders the SQL and converts each value (JSON, datetimes) with the dialect's own bind processors, so every
database the store supports gets exactly the SQL it would otherwise get.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, bindparam, case, func, insert, or_, tuple_, update
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.expression import ClauseElement

if TYPE_CHECKING:
    from throne.store.repo import NewMove

from throne.store.models import Game, Move

_MOVE_COLUMNS = ("game_id", "ply", "seat", "move", "clock", "created_at")


class Prepared:
    """One statement compiled for one dialect: its SQL text, and how to turn named values into the driver's
    parameters (in the dialect's order, each through its column type's bind processor)."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = compiled.string
        self.positional = compiled.positiontup is not None
        # per parameter as the SQL names it: the caller's value's name (or the value SQLAlchemy bound itself,
        # the 1 of `ply + 1`) and the type's bind processor
        binds: dict[str, tuple[str, bool, Any, Callable[[Any], Any] | None]] = {
            rendered: (
                bind.key,
                bind.required,
                bind.value,
                bind.type.dialect_impl(dialect).bind_processor(dialect),
            )
            for bind, rendered in compiled.bind_names.items()
        }
        self._order = list(compiled.positiontup or binds)
        self._plan = [binds[rendered] for rendered in self._order]

    def params(self, values: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        out = []
        for key, required, fixed, processor in self._plan:
            value = values[key] if required else fixed
            out.append(value if processor is None else processor(value))
        return tuple(out) if self.positional else dict(zip(self._order, out, strict=True))

    def execute(self, connection: Connection, values: Mapping[str, Any]) -> Any:
        return connection.exec_driver_sql(self.sql, self.params(values))


class MoveLog:
    """The group commit's statements, compiled on first use per dialect and shape.

    Groups come in every size from 1 to `commit.MAX_GROUP`, and compiling a statement of a hundred rows costs
    tens of milliseconds, so sizes share shapes: the two updates are compiled for the next power of two of
    rows and the spare rows repeat the last move (a repeated `(game, ply)` pair or CASE branch changes
    nothing), and the insert is one row's statement sent with the driver's executemany. A server thus
    compiles at most ~9 statements of each kind, whatever mix of group sizes its load brings.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple[Dialect, str, int], Prepared] = {}

    def _prepared(
        self, c: Connection, kind: str, rows: int, build: Callable[[int], ClauseElement]
    ) -> Prepared:
        key = (c.dialect, kind, rows)
        prepared = self._cache.get(key)
        if prepared is None:
            prepared = self._cache[key] = Prepared(build(rows), c.dialect)
        return prepared

    def shapes(self) -> list[tuple[str, int]]:
        """The (statement, rows) shapes compiled so far, sorted: what a long-running server keeps."""
        return sorted((kind, rows) for _, kind, rows in self._cache)

    def advance(self, c: Connection, moves: Sequence[NewMove]) -> set[int]:
        """Moves each live game of `moves` from exactly its move's ply to the next, where the stored fencing
        token is not newer than the move's; returns the ids of the games it moved."""
        fenced = any(m.fence is not None for m in moves)
        rows = _rows(len(moves))
        values: dict[str, Any] = {}
        for i, m in enumerate(_filled(moves, rows)):
            values[f"g_{i}"], values[f"p_{i}"] = m.game_id, m.ply
            if fenced:
                values[f"f_{i}"] = m.fence
        build = _advance_fenced if fenced else _advance
        statement = self._prepared(c, "advance-fenced" if fenced else "advance", rows, build)
        return {row[0] for row in statement.execute(c, values)}

    def set_clocks(self, c: Connection, moves: Sequence[NewMove]) -> None:
        """Stores each move's clock snapshot in its game (moves without one are left out)."""
        timed = [m for m in moves if m.clock is not None]
        if timed:
            rows = _rows(len(timed))
            values: dict[str, Any] = {}
            for i, m in enumerate(_filled(timed, rows)):
                values[f"g_{i}"], values[f"c_{i}"] = m.game_id, m.clock
            self._prepared(c, "clocks", rows, _set_clocks).execute(c, values)

    def insert(self, c: Connection, moves: Sequence[NewMove], now: datetime) -> None:
        """Inserts the moves into the log: one row's statement, executed for every move in one driver call."""
        if moves:
            statement = self._prepared(c, "insert", 1, _insert_moves)
            rows = [
                statement.params(
                    {
                        "game_id": m.game_id,
                        "ply": m.ply,
                        "seat": m.seat,
                        "move": m.move,
                        "clock": m.clock,
                        "created_at": now,
                    }
                )
                for m in moves
            ]
            c.exec_driver_sql(statement.sql, rows)


def _rows(n: int) -> int:
    """The shape a group of `n` moves is written with: the next power of two."""
    return 1 << (n - 1).bit_length()


def _filled(moves: Sequence[NewMove], rows: int) -> list[NewMove]:
    """`moves`, its last move repeated up to `rows`."""
    return [*moves, *[moves[-1]] * (rows - len(moves))]


def _insert_moves(rows: int) -> ClauseElement:
    """One row's insert (`rows` is always 1: see MoveLog.insert)."""
    table = Move.__table__
    return insert(table).values({c: bindparam(c, type_=table.c[c].type) for c in _MOVE_COLUMNS})


def _advance(rows: int, fenced: bool = False) -> ClauseElement:
    games = Game.__table__
    pairs = [tuple_(_game_id(i), bindparam(f"p_{i}", type_=games.c.ply.type)) for i in range(rows)]
    where = [games.c.status == "live", tuple_(games.c.id, games.c.ply).in_(pairs)]
    if fenced:  # a cluster: each owner's token is at least the stored one
        tokens = [bindparam(f"f_{i}", type_=games.c.fence.type) for i in range(rows)]
        token = case(
            *[(games.c.id == _game_id(i), func.coalesce(t, games.c.fence)) for i, t in enumerate(tokens)],
            else_=games.c.fence,
        )
        where.append(or_(games.c.fence.is_(None), games.c.fence <= token))
    return update(games).where(*where).values(ply=games.c.ply + 1).returning(games.c.id)


def _advance_fenced(rows: int) -> ClauseElement:
    return _advance(rows, fenced=True)


def _set_clocks(rows: int) -> ClauseElement:
    games = Game.__table__
    clock = case(
        *[(games.c.id == _game_id(i), bindparam(f"c_{i}", type_=games.c.clock.type)) for i in range(rows)],
        else_=games.c.clock,
    )
    return update(games).where(games.c.id.in_([_game_id(i) for i in range(rows)])).values(clock=clock)


def _game_id(i: int) -> Any:
    return bindparam(f"g_{i}", type_=Game.__table__.c.id.type)
