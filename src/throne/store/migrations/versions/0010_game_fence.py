"""games.fence: the fencing token of the node that owns a live game in a cluster (`throne serve --redis`);
a move whose owner's token is older than the stored one is refused by the guarded append.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("fence", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("fence")
