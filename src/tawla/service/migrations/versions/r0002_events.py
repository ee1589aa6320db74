"""Events: one row per event after the match's document, and the room's version.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    insp = sa.inspect(op.get_bind())
    if not insp.has_table("events"):
        op.create_table(
            "events",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("room", sa.String(16), nullable=False),
            sa.Column("match_no", sa.Integer, nullable=False),
            sa.Column("seq", sa.Integer, nullable=False),
            sa.Column("event", sa.Text, nullable=False),
        )
        op.create_index("events_of_a_match", "events", ["room", "match_no", "seq"], unique=True)
    if "version" not in {c["name"] for c in insp.get_columns("rooms")}:
        op.add_column("rooms", sa.Column("version", sa.Integer, nullable=True))
