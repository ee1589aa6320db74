"""Snapshots: the state of a room's match after its first events (``rooms.snapshot``), so that
a room is rebuilt from it and the events after it.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    if "snapshot" not in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("rooms")}:
        op.add_column("rooms", sa.Column("snapshot", sa.Text, nullable=True))
