"""The ContextStore protocol: everything Parsec persists goes through these operations.

The seed's operations (save/load session, save/load conversation, prune_old_context) plus what
history, stats, the daemon and the context engine need. Layers above see the store only through
this protocol; `parsec.store.open_store(url)` returns the SQLAlchemy implementation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from ..models.retention import RetentionPolicy
from ..models.session import DirectCommandExecution, Session
from ..models.text import TruncatedText
from ..models.workflow import Conversation, ConversationStatus


class ExecutionRecord(Protocol):
    """What recording an execution reads: a DirectCommandExecution, or the light tuple `parsec
    import` builds instead (building 100,000 pydantic models was a quarter of an import)."""

    @property
    def id(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def command(self) -> str: ...
    @property
    def executed_at(self) -> datetime: ...
    @property
    def duration_ms(self) -> int | None: ...
    @property
    def exit_status(self) -> int | None: ...
    @property
    def pipeline_statuses(self) -> Sequence[int]: ...
    @property
    def stdout(self) -> TruncatedText | None: ...
    @property
    def stderr(self) -> TruncatedText | None: ...
    @property
    def working_directory(self) -> str: ...
    @property
    def cwd_after(self) -> str | None: ...
    @property
    def host(self) -> str: ...
    @property
    def user(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def conversation_id(self) -> str | None: ...


@dataclass(frozen=True)
class ExecutionQuery:
    """Filters for `query_executions`; every field is optional. Results are newest first."""

    session_id: str | None = None
    cwd: str | None = None
    cwd_subtree: bool = False  # match `cwd` and everything below it
    exit_status: int | None = None  # an exact status
    failed: bool | None = None  # True: non-zero exit; False: exit 0
    host: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    search: str | None = None  # full-text search on the command text
    limit: int = 50
    before_id: str | None = None  # paging: only rows older than this execution id
    source: str | None = None  # "ai": what workflows ran; "user": what the user ran (execution_sql.SOURCES)


@dataclass(frozen=True)
class SessionSummary:
    session: Session
    command_count: int
    failed_count: int
    conversation_count: int


@dataclass(frozen=True)
class ConversationSummary:
    id: str
    session_id: str
    name: str
    original_prompt: str
    status: ConversationStatus
    created_at: datetime
    updated_at: datetime
    working_directory: str
    step_count: int


@dataclass(frozen=True)
class PruneReport:
    """What a prune removed (or, with dry_run, would remove)."""

    sessions: int = 0  # history tier: sessions deleted with their commands
    executions: int = 0  # history tier: commands deleted
    outputs: int = 0  # commands whose captured output was dropped (the command stays)
    contexts: int = 0  # sessions whose context snapshot (environment, tools) was dropped
    conversations: int = 0
    achievements_kept: int = 0
    bytes_freed: int = 0
    dry_run: bool = False
    details: dict[str, int] = field(default_factory=dict)


class HistoryStore(Protocol):
    """Sessions and the commands run in them (sql_store.py)."""

    def save_session(self, session: Session) -> None: ...
    def load_session(self, session_id: str, history_limit: int = 1000) -> Session: ...
    def list_sessions(self, limit: int = 50, open_only: bool = False) -> list[SessionSummary]: ...
    def append_executions(self, executions: Iterable[ExecutionRecord]) -> int: ...
    def query_executions(self, query: ExecutionQuery) -> list[DirectCommandExecution]: ...
    def count_executions(self, query: ExecutionQuery | None = None) -> int: ...
    def recorded_times(
        self, commands: list[str], since: datetime, until: datetime
    ) -> list[tuple[str, str, datetime]]: ...
    def recorded_counts(self, shell: str, host: str) -> tuple[dict[str, int], datetime | None]: ...


class ConversationStore(Protocol):
    """Prompt workflows (conversations.py)."""

    def save_conversation(self, conversation: Conversation) -> None: ...
    def load_conversation(self, conversation_id: str) -> Conversation: ...
    def list_conversations(
        self, limit: int = 50, session_id: str | None = None, cwd: str | None = None
    ) -> list[ConversationSummary]: ...


class PreferenceStore(Protocol):
    """Learned preferences: classifier choices, context-engine preferences (preferences.py)."""

    def set_preference(self, namespace: str, key: str, value: dict) -> None: ...
    def get_preferences(self, namespace: str) -> dict[str, dict]: ...
    def delete_preferences(self, namespace: str, key: str | None = None) -> int: ...


class UsageStore(Protocol):
    """LLM token usage (llm_usage.py)."""

    def record_llm_usage(
        self,
        provider: str,
        model: str,
        purpose: str,
        input_tokens: int,
        output_tokens: int,
        conversation_id: str | None = None,
        at: datetime | None = None,
    ) -> None: ...
    def llm_usage_summary(self, since: datetime | None = None) -> list[dict]: ...


class AchievementStore(Protocol):
    """What conversations achieved; outlives them (achievements.py)."""

    def save_achievements(
        self,
        conversation_id: str,
        name: str,
        working_directory: str,
        achievements: list[str],
        artifacts: list[str],
        completed_at: datetime,
    ) -> None: ...
    def recent_achievements(self, cwd: str | None = None, limit: int = 10) -> list[dict]: ...


class ForgettingStore(Protocol):
    """`parsec forget`: matching text deleted from every table (forgetting.py)."""

    def forget_executions(self, pattern: str, *, regex: bool = True, dry_run: bool = False) -> int: ...
    def forget_conversations(self, pattern: str, *, regex: bool = True, dry_run: bool = False) -> int: ...
    def forget_preferences(self, pattern: str, *, regex: bool = True, dry_run: bool = False) -> int: ...
    def forget_environment_values(self, pattern: str, *, regex: bool = True, dry_run: bool = False) -> int: ...


@runtime_checkable
class ContextStore(
    HistoryStore, ConversationStore, PreferenceStore, UsageStore, AchievementStore, ForgettingStore, Protocol
):
    """The whole store, as the seed describes it: each concept's protocol, retention and closing.
    A user that needs one concept types its argument with that concept's protocol."""

    @property
    def url(self) -> str: ...  # read-only: SqlStore's is a property

    def prune_old_context(self, policy: RetentionPolicy, dry_run: bool = False) -> PruneReport: ...
    def close(self) -> None: ...


def ids_of(items: Sequence[DirectCommandExecution]) -> list[str]:
    return [item.id for item in items]
