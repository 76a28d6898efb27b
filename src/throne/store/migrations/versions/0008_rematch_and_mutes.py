"""rematches: who asked to play a finished game again and the game that did (a restart keeps them);
chat_mutes: the writers a user muted, on every table and device.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rematches",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("new_game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=True),
    )
    op.create_table(
        "chat_mutes",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("muted_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("chat_mutes")
    op.drop_table("rematches")
