"""Learned preferences, LLM token usage and the achievements that outlive their conversation.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ID = sa.String(26)
MICROS = sa.BigInteger()


def upgrade() -> None:
    op.create_table(
        "preferences",
        sa.Column("namespace", sa.String(64), primary_key=True),
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", MICROS, nullable=False),
    )
    op.create_table(
        "llm_usage",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", MICROS, nullable=False),
        sa.Column("provider", sa.Text, nullable=False),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("purpose", sa.Text, nullable=False),
        sa.Column("input_tokens", sa.BigInteger, nullable=False),
        sa.Column("output_tokens", sa.BigInteger, nullable=False),
        sa.Column("conversation_id", ID),
    )
    op.create_index("ix_llm_usage_at", "llm_usage", ["at"])
    op.create_table(
        "achievements",
        sa.Column("conversation_id", ID, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("working_directory", sa.Text, nullable=False),
        sa.Column("achievements", sa.Text, nullable=False),
        sa.Column("artifacts", sa.Text, nullable=False),
        sa.Column("completed_at", MICROS, nullable=False),
    )
    op.create_index("ix_achievements_completed", "achievements", ["completed_at"])
    op.create_index("ix_achievements_cwd", "achievements", ["working_directory", "completed_at"])


def downgrade() -> None:
    op.drop_table("achievements")
    op.drop_table("llm_usage")
    op.drop_table("preferences")
