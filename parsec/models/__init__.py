"""The domain model (pydantic v2). Names are exported lazily so `import parsec.models` stays cheap."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (parsec search's start-up)
if TYPE_CHECKING:
    from typing import Any

_EXPORTS = {
    "parsec_model": ["ParsecModel", "Ulid", "UtcDatetime", "new_id", "utcnow"],
    "text": ["TruncatedText", "clean_text"],
    "session": ["Session", "GlobalContext", "SessionSettings", "DirectCommandExecution", "ProjectType"],
    "workflow": [
        "Conversation",
        "ConversationStatus",
        "WorkflowPlan",
        "WorkflowStep",
        "WorkflowStepState",
        "StepStatus",
        "CommandAttempt",
        "Approval",
    ],
    "context": [
        "StepContext",
        "StepExecutionRecord",
        "ContextSummary",
        "ArtifactInfo",
        "EnvironmentChange",
        "ContextItem",
        "ImportanceLevel",
        "ContextType",
    ],
    "retention": ["RetentionPolicy"],
    "chat": ["ChatMessage", "TokenUsage"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:  # noqa: ANN401 - a lazily imported model class
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'parsec.models' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
