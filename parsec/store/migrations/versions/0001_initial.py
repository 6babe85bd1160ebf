"""The first schema: sessions, executions (with full-text search) and conversations.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.String(26)
MICROS = sa.BigInteger()  # UTC microseconds since the epoch (see parsec.store.schema.UtcMicros)


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", ID, primary_key=True),
        sa.Column("created_at", MICROS, nullable=False),
        sa.Column("last_active", MICROS, nullable=False),
        sa.Column("ended_at", MICROS),
        sa.Column("shell", sa.Text, nullable=False),
        sa.Column("pid", sa.Integer),
        sa.Column("tty", sa.Text, nullable=False),
        sa.Column("user", sa.Text, nullable=False),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_index("ix_sessions_last_active", "sessions", ["last_active"])

    op.create_table(
        "executions",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("id", ID, nullable=False),
        sa.Column("session_id", ID, sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("executed_at", MICROS, nullable=False),
        sa.Column("duration_ms", sa.BigInteger),
        sa.Column("exit_status", sa.Integer),
        sa.Column("pipeline_statuses", sa.Text),
        sa.Column("stdout", sa.Text),
        sa.Column("stderr", sa.Text),
        sa.Column("cwd", sa.Text, nullable=False),
        sa.Column("cwd_after", sa.Text),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("user", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
    )
    op.create_index("ux_executions_id", "executions", ["id"], unique=True)
    op.create_index("ix_executions_session_time", "executions", ["session_id", "executed_at"])
    op.create_index("ix_executions_cwd_time", "executions", ["cwd", "executed_at"])
    op.create_index("ix_executions_status_time", "executions", ["exit_status", "executed_at"])
    op.create_index("ix_executions_host_time", "executions", ["host", "executed_at"])
    op.create_index("ix_executions_time", "executions", ["executed_at"])

    op.create_table(
        "conversations",
        sa.Column("id", ID, primary_key=True),
        sa.Column("session_id", ID, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("original_prompt", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", MICROS, nullable=False),
        sa.Column("updated_at", MICROS, nullable=False),
        sa.Column("finished_at", MICROS),
        sa.Column("working_directory", sa.Text, nullable=False),
        sa.Column("step_count", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_index("ix_conversations_updated", "conversations", ["updated_at"])
    op.create_index("ix_conversations_session", "conversations", ["session_id", "updated_at"])
    op.create_index("ix_conversations_cwd", "conversations", ["working_directory", "updated_at"])

    _create_full_text_index()


def _create_full_text_index() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        from parsec.store.fts import SQLITE_FTS_DDL

        for statement in SQLITE_FTS_DDL:
            op.execute(statement)
    elif bind.dialect.name == "postgresql":
        from parsec.store.fts import create_pg_trigram_index

        create_pg_trigram_index(bind)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        from parsec.store.fts import SQLITE_FTS_DROP

        for statement in SQLITE_FTS_DROP:
            op.execute(statement)
    op.drop_table("conversations")
    op.drop_table("executions")
    op.drop_table("sessions")
