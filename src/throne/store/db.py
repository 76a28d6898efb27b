"""Engine creation (SQLite in WAL mode by default, PostgreSQL by URL) and Alembic migrations."""

from __future__ import annotations

import math
import os
from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, Engine, create_engine, event, make_url
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker


def shown_url(url: str) -> str:
    """A database URL fit to print: no user, password or query (a password may travel in either)."""
    full = make_url(url)
    bare = URL.create(full.drivername, host=full.host, port=full.port, database=full.database)
    return bare.render_as_string()


def default_sqlite_url(data_dir: str | Path) -> str:
    path = Path(data_dir).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path / 'throne.sqlite3'}"


DEFAULT_BUSY_TIMEOUT = 2.0
"""Seconds a statement waits for a lock held elsewhere before it fails: one request fails, not the server."""


def _sqlite_pragmas(busy_ms: int):
    def apply(dbapi_conn, _record) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process (only an OS crash could lose the last commits).
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={busy_ms}")
        cur.close()

    return apply


def _sqlite_file_guard(path: str) -> tuple:
    """Pool listeners that fail the checkout of a connection (OSError: the store is unavailable) when the
    SQLite file it opened is no longer at `path`: deleted, or replaced by another file (a data directory
    removed or restored under a running server). Such a connection would go on writing into a file nobody
    will read again, and every commit would be lost at the next start. (On the pool, not the connections:
    a connection event would make every statement pay for event dispatch, a few % of the server's moves.)"""

    def remember(_dbapi_conn, record) -> None:
        st = os.stat(path)
        record.info["file"] = (st.st_dev, st.st_ino)

    def check(_dbapi_conn, record, _proxy) -> None:
        opened = record.info.get("file")
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise FileNotFoundError(f"the database file {path} is gone") from None
        if opened is not None and (st.st_dev, st.st_ino) != opened:
            raise FileNotFoundError(f"the database file {path} was replaced")

    return remember, check


def make_engine(url: str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> Engine:
    busy_ms = max(1, int(busy_timeout * 1000))
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": busy_timeout},
            pool_timeout=busy_timeout,
            hide_parameters=True,  # a failed statement's message must not carry password hashes or tokens
        )
        event.listen(engine, "connect", _sqlite_pragmas(busy_ms))
        path = make_url(url).database
        if path and path != ":memory:" and not path.startswith("file:"):
            remember, check = _sqlite_file_guard(path)
            event.listen(engine, "connect", remember)
            event.listen(engine, "checkout", check)
        return engine
    args: dict[str, object] = {}
    if url.startswith("postgresql"):
        # A lock held elsewhere fails the statement after the busy timeout; a server that does not answer a
        # connection attempt fails it after `connect_timeout`, and one that vanished mid-query (a dead host,
        # a cut network) is noticed by TCP keepalives within ~20 s instead of the kernel's ~15 minutes.
        args = {
            "options": f"-c lock_timeout={busy_ms}",
            "connect_timeout": max(2, math.ceil(busy_timeout)),
            "keepalives": 1,
            "keepalives_idle": 10,
            "keepalives_interval": 3,
            "keepalives_count": 3,
        }
    engine = create_engine(
        url,
        pool_pre_ping=True,
        pool_size=5,
        max_overflow=5,
        pool_timeout=busy_timeout,
        connect_args=args,
        hide_parameters=True,
    )
    if url.startswith("postgresql"):
        event.listen(engine, "handle_error", _unavailable_as_operational)
    return engine


# SQLSTATEs of a PostgreSQL that cannot take the work now, which psycopg raises as other errors than
# OperationalError: a read-only transaction (a standby after a failover, a database set read-only), and the
# classes of insufficient resources (53: disk full, out of memory), operator intervention (57) and system
# errors (58). They fail one request as the store being unavailable (503, /api/ready 503), not as a bug.
UNAVAILABLE_STATES = ("25006", "53", "57", "58")


def _unavailable_as_operational(context: ExceptionContext) -> BaseException | None:
    orig = context.original_exception
    state = getattr(orig, "sqlstate", None) or ""
    if isinstance(context.sqlalchemy_exception, OperationalError) or not state.startswith(UNAVAILABLE_STATES):
        return None
    return OperationalError(context.statement, context.parameters, orig, hide_parameters=True)


def alembic_config(url: str) -> Config:
    ini = resources.files("throne.store").joinpath("alembic.ini")
    cfg = Config(str(ini))
    cfg.set_main_option("script_location", str(resources.files("throne.store").joinpath("migrations")))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer Throne: this one does not know its schema."""


class MigrationBlocked(RuntimeError):
    """A migration that cannot run on the data as it is; the message says what to change first."""


def upgrade(url: str, engine: Engine | None = None) -> None:
    """Runs every migration up to head (idempotent); SchemaTooNew for a schema newer than this code's."""
    own = engine is None
    eng = engine or make_engine(url)
    try:
        with eng.begin() as conn:
            cfg = alembic_config(url)
            cfg.attributes["connection"] = conn
            current = MigrationContext.configure(conn).get_current_revision()
            scripts = ScriptDirectory.from_config(cfg)
            if current is not None and current not in {s.revision for s in scripts.walk_revisions()}:
                raise SchemaTooNew(
                    f"the database's schema {current} is newer than this Throne's (up to "
                    f"{scripts.get_current_head()}): run the newer Throne, or this one on a copy made before "
                    "the upgrade"
                )
            command.upgrade(cfg, "head")
    finally:
        if own:
            eng.dispose()


class Database:
    """One engine plus a session factory; `upgrade()` brings the schema to the latest revision."""

    def __init__(self, url: str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
        self.url = url
        self.engine = make_engine(url, busy_timeout)
        self.sessions: sessionmaker[Session] = sessionmaker(self.engine, expire_on_commit=False)

    def upgrade(self) -> None:
        upgrade(self.url, self.engine)

    def dispose(self) -> None:
        self.engine.dispose()
