"""Each move stores the clock snapshot after it: a takeback restores the clocks of the last move it keeps.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("moves") as batch:
        batch.add_column(sa.Column("clock", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("moves") as batch:
        batch.drop_column("clock")
