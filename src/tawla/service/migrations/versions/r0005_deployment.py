"""The deployment's id: a random name drawn once, which the processes serving this database
share (their Redis keys are named after it, so that deployments sharing a Redis never meet).

Revision ID: 0005
Revises: 0004
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    if not sa.inspect(op.get_bind()).has_table("deployment"):
        table = op.create_table("deployment", sa.Column("id", sa.String(32), primary_key=True))
        op.bulk_insert(table, [{"id": secrets.token_hex(8)}])
