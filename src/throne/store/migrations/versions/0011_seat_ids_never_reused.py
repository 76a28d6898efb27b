"""seats.id is never handed out again: SQLite AUTOINCREMENT on the seats table.

A seat row's id names one person's place at a table (a socket's occupant, a started game's token map).
Without AUTOINCREMENT SQLite gives a new row the largest rowid plus one, so the id of the newest seat is
given again to the next seat once that seat left its table (its row deleted): the next person to join
anywhere. On SQLite the table is rebuilt (batch mode: every row, index, unique constraint and foreign key is
copied; the AUTOINCREMENT counter starts at the largest id kept). PostgreSQL's sequences never give an id
twice: nothing to do there.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        "seats", recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
    ):
        pass


def upgrade() -> None:
    _rebuild(True)


def downgrade() -> None:
    _rebuild(False)
