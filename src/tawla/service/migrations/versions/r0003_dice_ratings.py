"""Fair dice drawn before a match (``rooms.dice``) and the players' ratings.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    insp = sa.inspect(op.get_bind())
    if "dice" not in {c["name"] for c in insp.get_columns("rooms")}:
        op.add_column("rooms", sa.Column("dice", sa.Text, nullable=True))
    if not insp.has_table("ratings"):
        op.create_table(
            "ratings",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("player", sa.String(64), nullable=False),
            sa.Column("ruleset", sa.String(40), nullable=False),
            sa.Column("kind", sa.String(8), nullable=False),
            sa.Column("rating", sa.Float, nullable=False),
            sa.Column("deviation", sa.Float, nullable=False),
            sa.Column("volatility", sa.Float, nullable=False),
            sa.Column("played", sa.Integer, nullable=False),
            sa.Column("updated", sa.Float, nullable=False),
        )
        op.create_index("rating_of_a_player", "ratings", ["player", "ruleset", "kind"], unique=True)
        op.create_index("ratings_of_a_ruleset", "ratings", ["ruleset", "kind", "rating"])
    if not insp.has_table("rating_changes"):
        op.create_table(
            "rating_changes",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("player", sa.String(64), nullable=False),
            sa.Column("ruleset", sa.String(40), nullable=False),
            sa.Column("kind", sa.String(8), nullable=False),
            sa.Column("room", sa.String(16), nullable=False),
            sa.Column("match_no", sa.Integer, nullable=False),
            sa.Column("opponent", sa.String(64), nullable=False),
            sa.Column("result", sa.Float, nullable=False),
            sa.Column("before", sa.Float, nullable=False),
            sa.Column("after", sa.Float, nullable=False),
            sa.Column("deviation", sa.Float, nullable=False),
            sa.Column("t", sa.Float, nullable=False),
        )
        op.create_index("rating_change_of_a_match", "rating_changes", ["room", "match_no", "player"], unique=True)
        op.create_index("rating_changes_of_a_player", "rating_changes", ["player", "id"])
