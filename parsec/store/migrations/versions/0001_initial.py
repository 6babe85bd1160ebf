"""The first schema: sessions, executions (with full-text search) and conversations.

Frozen: no imports of live code, so this revision means the same forever (the full-text DDL,
once in store/fts.py, is written out here as it was when this revision was made).

Full-text search on command text has the same meaning on both backends: a row matches when its
command contains every term as a case-insensitive substring (execution_sql.py holds the queries),
so `git push --force` finds `git push --force-with-lease` and punctuation such as `--` is searchable.
- SQLite: an FTS5 index with the `trigram` tokenizer (external content = `executions`, kept in
  sync by triggers). Trigrams answer substring questions exactly, which word tokenizers do not
  (`unicode61` drops `--`).
- PostgreSQL: a `pg_trgm` GIN index on `command`, queried with ILIKE. A `tsvector` would stem
  and split words (`--force` becomes `force`, `pushed` matches `push`), which is wrong for
  commands; pg_trgm's GIN index serves `ILIKE '%term%'` directly.

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


# SQLite: an FTS5 trigram index over executions.command (external content, kept by triggers).
SQLITE_FTS_DDL = [
    "CREATE VIRTUAL TABLE IF NOT EXISTS executions_fts USING fts5("
    "command, content='executions', content_rowid='seq', tokenize='trigram')",
    """CREATE TRIGGER IF NOT EXISTS executions_fts_insert AFTER INSERT ON executions BEGIN
        INSERT INTO executions_fts(rowid, command) VALUES (new.seq, new.command);
    END""",
    """CREATE TRIGGER IF NOT EXISTS executions_fts_delete AFTER DELETE ON executions BEGIN
        INSERT INTO executions_fts(executions_fts, rowid, command) VALUES ('delete', old.seq, old.command);
    END""",
    """CREATE TRIGGER IF NOT EXISTS executions_fts_update AFTER UPDATE OF command ON executions BEGIN
        INSERT INTO executions_fts(executions_fts, rowid, command) VALUES ('delete', old.seq, old.command);
        INSERT INTO executions_fts(rowid, command) VALUES (new.seq, new.command);
    END""",
]

SQLITE_FTS_DROP = [
    "DROP TRIGGER IF EXISTS executions_fts_update",
    "DROP TRIGGER IF EXISTS executions_fts_delete",
    "DROP TRIGGER IF EXISTS executions_fts_insert",
    "DROP TABLE IF EXISTS executions_fts",
]


def _create_full_text_index() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for statement in SQLITE_FTS_DDL:
            op.execute(statement)
    elif bind.dialect.name == "postgresql":
        _create_pg_trigram_index(bind)


def _create_pg_trigram_index(bind) -> None:
    """The pg_trgm GIN index on executions.command. Without the extension ILIKE still gives the
    right rows, only slower, so a server without pg_trgm (or the right to create it) still works."""
    try:
        with bind.begin_nested():
            bind.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception:
        pass
    schema = bind.exec_driver_sql(
        "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm'"
    ).scalar()
    if schema is None:
        return
    bind.exec_driver_sql(
        f"CREATE INDEX ix_executions_command_trgm ON executions USING gin (command {schema}.gin_trgm_ops)"
    )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for statement in SQLITE_FTS_DROP:
            op.execute(statement)
    op.drop_table("conversations")
    op.drop_table("executions")
    op.drop_table("sessions")
