"""What of a conversation may reach the store in privacy mode."""

from __future__ import annotations

from ...models.workflow import Conversation


def commands_only(conversation: Conversation) -> Conversation:
    """What privacy mode lets reach the store: the commands and their exit statuses, not their
    output, the variables they set or the context the model saw. The running workflow keeps all
    of it in memory, so the model still sees each result."""
    stored = conversation.model_copy(deep=True)
    stored.planning_exchanges = []
    for state in stored.steps:
        state.context_used = None
        state.exchanges = []
        state.environment_changes = [c for c in state.environment_changes if c.kind == "cwd"]
        for attempt in state.command_attempts:
            attempt.output = None
    return stored
