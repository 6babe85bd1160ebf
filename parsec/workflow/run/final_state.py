"""Where a conversation's shell ended up: its last directory and the variables its steps set.

Read from the environment changes stored with each step, so a paused or finished conversation
answers without its shell: `parsec resume` starts there, the --json document and the wrap-up
report it.
"""

from __future__ import annotations

import os
from typing import Any

from ...models.workflow import Conversation


def resume_point(conversation: Conversation, env: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Where the conversation's shell stood: the last cwd and the variables its steps exported."""
    cwd = conversation.working_directory or os.getcwd()
    for state in conversation.steps:
        for change in state.environment_changes:
            if change.kind == "cwd" and change.new_value:
                cwd = change.new_value
            elif change.name and "[REDACTED" not in (change.new_value or ""):
                if change.new_value is None:
                    env.pop(change.name, None)
                else:
                    env[change.name] = change.new_value
    if not os.path.isdir(cwd):
        cwd = conversation.working_directory if os.path.isdir(conversation.working_directory) else os.getcwd()
    return cwd, env


def env_changes(conversation: Conversation) -> list[dict[str, Any]]:
    """The last value of every variable the steps set or unset (values masked as stored)."""
    latest: dict[str, dict[str, Any]] = {}
    for state in conversation.steps:
        for change in state.environment_changes:
            if change.kind in ("env_var", "path") and change.name:
                first = latest.get(change.name, {"old": change.old_value})
                latest[change.name] = {"name": change.name, "old": first["old"], "new": change.new_value}
    return [value for value in latest.values() if value["old"] != value["new"]]
