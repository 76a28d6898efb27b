"""users: a username is unique in any case, by an index on lower(username). The server checked this before
each sign-up, but two nodes of a cluster signing up "Ann" and "ann" at one moment could both pass the check.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from throne.store.db import MigrationBlocked

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    twins = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT lower(username) FROM users WHERE username IS NOT NULL "
                "GROUP BY lower(username) HAVING count(*) > 1"
            )
        )
        .scalars()
        .all()
    )
    if twins:
        raise MigrationBlocked(
            f"accounts share a username apart from its case ({', '.join(sorted(twins)[:10])}): rename all "
            "but one of each (UPDATE users SET username = ... WHERE id = ...), then upgrade again"
        )
    op.create_index("uq_users_username_lower", "users", [sa.text("lower(username)")], unique=True)


def downgrade() -> None:
    op.drop_index("uq_users_username_lower", "users")
