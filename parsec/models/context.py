"""What a model sees: the per-step context, context items with their scores, and summaries."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from .parsec_model import ParsecModel, UtcDatetime, utcnow


class ImportanceLevel(StrEnum):
    critical = "critical"  # current step, active errors
    high = "high"  # recent successes, environment changes
    medium = "medium"  # older achievements, patterns
    low = "low"  # historical, repeated data

    @property
    def rank(self) -> int:
        """Higher is more important; used to order pruning."""
        return {"critical": 3, "high": 2, "medium": 1, "low": 0}[self.value]


class ContextType(StrEnum):
    environment = "environment"
    command = "command"
    achievement = "achievement"
    error = "error"
    step_result = "step_result"
    artifact = "artifact"
    preference = "preference"
    history = "history"


class ContextItem(ParsecModel):
    content: str
    relevance_score: float = Field(default=0.0, ge=0.0, le=1.0)
    recency_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    importance_level: ImportanceLevel = ImportanceLevel.low
    context_type: ContextType
    source_id: str | None = None  # the execution, step or item it came from
    created_at: UtcDatetime = Field(default_factory=utcnow)
    tokens: int | None = None  # filled by the budgeter


class ArtifactInfo(ParsecModel):
    path: str
    change: Literal["created", "modified", "deleted"] = "created"
    size_bytes: int | None = None
    step_index: int | None = None


class EnvironmentChange(ParsecModel):
    kind: Literal["cwd", "env_var", "path"]
    name: str = ""  # variable name; empty for cwd
    old_value: str | None = None
    new_value: str | None = None
    step_index: int | None = None


class ContextSummary(ParsecModel):
    key_achievements: list[str] = Field(default_factory=list)
    generated_artifacts: list[ArtifactInfo] = Field(default_factory=list)
    environment_changes: list[EnvironmentChange] = Field(default_factory=list)
    learned_preferences: dict[str, str] = Field(default_factory=dict)


class StepExecutionRecord(ParsecModel):
    """One finished step as the next steps see it (the seed's `execution_history` entry)."""

    step_index: int
    commands_executed: list[str] = Field(default_factory=list)
    success: bool
    artifacts_created: list[str] = Field(default_factory=list)
    working_directory_changed: str | None = None
    summary: str | None = None  # set when older results are summarised into achievements
    exit_status: int | None = None
    output: str | None = None  # masked head + tail of the output (max_command_output_length)
    output_excerpt: str | None = None  # a completed step: the output lines that matter (context/excerpt.py)
    facts: list[str] = Field(default_factory=list)  # its compressed form: the best of those lines


class StepContext(ParsecModel):
    """The per-step context of the Parsec seed, as sent to the model for a step's command."""

    conversation: dict[str, Any] = Field(default_factory=dict)  # id, name, original_prompt
    workflow: dict[str, Any] = Field(default_factory=dict)  # {"steps": [{"description": ...}]}
    current_step: dict[str, Any] = Field(default_factory=dict)  # index, description
    execution_history: list[StepExecutionRecord] = Field(default_factory=list)
    current_environment: dict[str, Any] = Field(default_factory=dict)
    error_context: dict[str, Any] | None = None
    session_context: dict[str, Any] = Field(default_factory=dict)
    preferences: dict[str, str] = Field(default_factory=dict)
    token_count: int | None = None
