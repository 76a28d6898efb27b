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
    """The group commit's three statements, compiled on first use per dialect and number of rows (a group
    holds at most `commit.MAX_GROUP` moves, so there are at most that many shapes of each)."""

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

    def advance(self, c: Connection, moves: Sequence[NewMove]) -> set[int]:
        """Moves each live game of `moves` from exactly its move's ply to the next, where the stored fencing
        token is not newer than the move's; returns the ids of the games it moved."""
        fenced = any(m.fence is not None for m in moves)
        values: dict[str, Any] = {}
        for i, m in enumerate(moves):
            values[f"g_{i}"], values[f"p_{i}"] = m.game_id, m.ply
            if fenced:
                values[f"f_{i}"] = m.fence
        build = _advance_fenced if fenced else _advance
        statement = self._prepared(c, "advance-fenced" if fenced else "advance", len(moves), build)
        return {row[0] for row in statement.execute(c, values)}

    def set_clocks(self, c: Connection, moves: Sequence[NewMove]) -> None:
        """Stores each move's clock snapshot in its game (moves without one are left out)."""
        timed = [m for m in moves if m.clock is not None]
        if timed:
            values: dict[str, Any] = {}
            for i, m in enumerate(timed):
                values[f"g_{i}"], values[f"c_{i}"] = m.game_id, m.clock
            self._prepared(c, "clocks", len(timed), _set_clocks).execute(c, values)

    def insert(self, c: Connection, moves: Sequence[NewMove], now: datetime) -> None:
        """Inserts the moves into the log."""
        if moves:
            values: dict[str, Any] = {}
            for i, m in enumerate(moves):
                row = (m.game_id, m.ply, m.seat, m.move, m.clock, now)
                for column, value in zip(_MOVE_COLUMNS, row, strict=True):
                    values[f"{column}_{i}"] = value
            self._prepared(c, "insert", len(moves), _insert_moves).execute(c, values)


def _insert_moves(rows: int) -> ClauseElement:
    table = Move.__table__
    return insert(table).values(
        [{c: bindparam(f"{c}_{i}", type_=table.c[c].type) for c in _MOVE_COLUMNS} for i in range(rows)]
    )


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
