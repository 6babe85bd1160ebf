"""How long history is kept; applied by ContextStore.prune_old_context."""

from __future__ import annotations

from pydantic import Field

from .base import ParsecModel


class RetentionPolicy(ParsecModel):
    session_retention_days: int = Field(default=30, ge=0)  # 0 keeps sessions forever
    conversation_retention_days: int = Field(default=90, ge=0)  # 0 keeps conversations forever
    max_conversation_history: int = Field(default=50, ge=0)  # 0 = no limit
    max_sessions: int = Field(default=0, ge=0)  # 0 = no limit
    keep_achievements: bool = True  # pruned conversations leave their achievements behind
    batch_size: int = Field(default=5000, ge=1)  # rows per transaction, so writers never stall
