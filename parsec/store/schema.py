"""The store's tables (SQLAlchemy Core), shared by the store, its migrations and history queries.

Times are stored as integer microseconds since the Unix epoch (UTC) on every backend: compact,
fast to bind in bulk, sortable, and identical on SQLite and PostgreSQL. `UtcMicros` converts
to and from aware datetimes, so `executions.c.executed_at >= some_datetime` just works.

Nested values (a session's environment, a conversation's steps) are stored as the JSON of the
pydantic model in a `data` column; the columns next to it are what queries filter and sort on.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
)

from .micros import from_micros, to_micros


class UtcMicros(TypeDecorator):
    """An aware UTC datetime stored as BIGINT microseconds since the epoch."""

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None or isinstance(value, int):
            return value
        return to_micros(value)

    def process_result_value(self, value, dialect):
        return None if value is None else from_micros(value)


ID = String(26)  # ULID text

metadata = MetaData()

sessions = Table(
    "sessions",
    metadata,
    Column("id", ID, primary_key=True),
    Column("created_at", UtcMicros, nullable=False),
    Column("last_active", UtcMicros, nullable=False),
    Column("ended_at", UtcMicros),
    Column("shell", Text, nullable=False, default=""),
    Column("pid", Integer),
    Column("tty", Text, nullable=False, default=""),
    Column("user", Text, nullable=False, default=""),
    Column("host", Text, nullable=False, default=""),
    Column("data", Text, nullable=False, default="{}"),  # global_context, settings, conversations
    Index("ix_sessions_last_active", "last_active"),
)

executions = Table(
    "executions",
    metadata,
    # `seq` is SQLite's rowid (INTEGER PRIMARY KEY, so VACUUM never renumbers it): the FTS5 index
    # is keyed by it, and it breaks ties between rows of the same microsecond, newest last.
    Column("seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("id", ID, nullable=False),
    Column("session_id", ID, ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
    Column("command", Text, nullable=False),
    Column("executed_at", UtcMicros, nullable=False),
    Column("duration_ms", BigInteger),
    Column("exit_status", Integer),
    Column("pipeline_statuses", Text),  # JSON list or NULL
    Column("stdout", Text),  # JSON of TruncatedText or NULL
    Column("stderr", Text),
    Column("cwd", Text, nullable=False, default=""),
    Column("cwd_after", Text),
    Column("host", Text, nullable=False, default=""),
    Column("user", Text, nullable=False, default=""),
    Column("source", Text, nullable=False, default="shell"),  # shell | import | workflow (run by `parsec ask`)
    Column("conversation_id", ID),  # revision 0003: the conversation a workflow's command belongs to
    Index("ux_executions_id", "id", unique=True),
    # Newest-first everywhere: every index ends with the sort key (SQLite appends seq itself).
    Index("ix_executions_session_time", "session_id", "executed_at"),
    Index("ix_executions_cwd_time", "cwd", "executed_at"),  # exact cwd, and subtree as a range
    Index("ix_executions_status_time", "exit_status", "executed_at"),
    Index("ix_executions_host_time", "host", "executed_at"),
    Index("ix_executions_time", "executed_at"),
    Index("ix_executions_source_time", "source", "executed_at"),  # revision 0003: history --source ai
)

conversations = Table(
    "conversations",
    metadata,
    Column("id", ID, primary_key=True),
    # No foreign key: a conversation outlives the shell session it started in (own retention).
    Column("session_id", ID, nullable=False),
    Column("name", Text, nullable=False),
    Column("original_prompt", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", UtcMicros, nullable=False),
    Column("updated_at", UtcMicros, nullable=False),
    Column("finished_at", UtcMicros),
    Column("working_directory", Text, nullable=False, default=""),
    Column("step_count", Integer, nullable=False, default=0),
    Column("data", Text, nullable=False),  # the whole Conversation as JSON
    Index("ix_conversations_updated", "updated_at"),
    Index("ix_conversations_session", "session_id", "updated_at"),
    Index("ix_conversations_cwd", "working_directory", "updated_at"),
)

# --- added by revision 0002 -----------------------------------------------------------------

preferences = Table(
    "preferences",
    metadata,
    Column("namespace", String(64), primary_key=True),
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),  # JSON object
    Column("updated_at", UtcMicros, nullable=False),
)

llm_usage = Table(
    "llm_usage",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", UtcMicros, nullable=False),
    Column("provider", Text, nullable=False),
    Column("model", Text, nullable=False),
    Column("purpose", Text, nullable=False),
    Column("input_tokens", BigInteger, nullable=False),
    Column("output_tokens", BigInteger, nullable=False),
    Column("conversation_id", ID),
    Index("ix_llm_usage_at", "at"),
)

achievements = Table(
    "achievements",
    metadata,
    # No foreign key on purpose: achievements survive the pruning of their conversation.
    Column("conversation_id", ID, primary_key=True),
    Column("name", Text, nullable=False),
    Column("working_directory", Text, nullable=False, default=""),
    Column("achievements", Text, nullable=False),  # JSON list of str
    Column("artifacts", Text, nullable=False),  # JSON list of str
    Column("completed_at", UtcMicros, nullable=False),
    Index("ix_achievements_completed", "completed_at"),
    Index("ix_achievements_cwd", "working_directory", "completed_at"),
)
