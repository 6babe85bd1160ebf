"""How long history is kept; applied by ContextStore.prune_old_context."""

from __future__ import annotations

from pydantic import Field

from .parsec_model import ParsecModel


class RetentionPolicy(ParsecModel):
    """Per tier. The command history (command, time, exit, cwd, duration, and the sessions they
    belong to) is kept until the user asks otherwise: `history_retention_days` and `max_sessions`
    are 0 (forever) unless set. What ages out by default is the bulky part: captured output and
    sessions' context snapshots after `session_retention_days`, conversations after
    `conversation_retention_days` and beyond `max_conversation_history`."""

    history_retention_days: int = Field(default=0, ge=0)  # 0 keeps the command history forever
    session_retention_days: int = Field(default=30, ge=0)  # output and context snapshots; 0 = forever
    conversation_retention_days: int = Field(default=90, ge=0)  # 0 keeps conversations forever
    max_conversation_history: int = Field(default=50, ge=0)  # 0 = no limit
    max_sessions: int = Field(default=0, ge=0)  # sessions (with their commands) kept; 0 = no limit
    keep_achievements: bool = True  # pruned conversations leave their achievements behind
    batch_size: int = Field(default=20_000, ge=1)  # most rows per transaction; each is also timed (prune.BATCH_SECONDS)
