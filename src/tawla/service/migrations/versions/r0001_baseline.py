"""Baseline: the first service's tables (each match whole in ``rooms.match``).

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "accounts" not in have:
        op.create_table(
            "accounts",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", sa.String(200), nullable=False),
            sa.Column("token", sa.String(64), nullable=False, unique=True),
            sa.Column("house", sa.String(40), nullable=False),
            sa.Column("balance", sa.Integer, sa.CheckConstraint("balance >= 0", name="balance_not_negative"),
                      nullable=False),
            sa.Column("created", sa.Float, nullable=False),
        )
    if "ledger" not in have:
        op.create_table(
            "ledger",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("account", sa.Integer, nullable=True, index=True),
            sa.Column("room", sa.String(16), nullable=True),
            sa.Column("amount", sa.Integer, nullable=False),
            sa.Column("kind", sa.String(16), nullable=False),
            sa.Column("t", sa.Float, nullable=False),
        )
    if "rooms" not in have:
        op.create_table(
            "rooms",
            sa.Column("code", sa.String(16), primary_key=True),
            sa.Column("options", sa.Text, nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("match", sa.Text, nullable=True),
            sa.Column("deadline", sa.Float, nullable=True),
            sa.Column("escrow", sa.Integer, nullable=False, default=0),
            sa.Column("match_no", sa.Integer, nullable=False, default=0),
            sa.Column("rematch", sa.Text, nullable=False, default="[]"),
            sa.Column("created", sa.Float, nullable=False),
        )
    if "members" not in have:
        op.create_table(
            "members",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("room", sa.String(16), nullable=False, index=True),
            sa.Column("seat", sa.Integer, nullable=True),
            sa.Column("name", sa.String(200), nullable=False),
            sa.Column("token", sa.String(64), nullable=True, unique=True),
            sa.Column("account", sa.Integer, nullable=True),
            sa.Column("bot", sa.String(16), nullable=True),
        )
