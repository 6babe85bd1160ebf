"""What `parsec forget` does, shared with the search's Ctrl-D: count, ask, delete."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


def exactly(text: str) -> str:
    """A pattern for `forget` matching this whole command (or prompt) and nothing longer."""
    return r"\A" + re.escape(text) + r"\Z"


def forget_matching(store: Any, pattern: str, *, regex: bool, ask: Callable[[str], bool]) -> tuple[str, str]:
    """Forget every recorded command and conversation matching `pattern` once `ask(question)`
    agrees. Returns (outcome, message): outcome is "none" (nothing matches), "declined" or "done"."""
    commands = store.forget_executions(pattern, regex=regex, dry_run=True)
    conversations = store.forget_conversations(pattern, regex=regex, dry_run=True)
    learned = store.forget_preferences(pattern, regex=regex, dry_run=True)  # the classifier's learned lines
    environment = store.forget_environment_values(pattern, regex=regex, dry_run=True)  # sessions' snapshots
    shown = pattern if regex is False or not pattern.startswith(r"\A") else _plain(pattern)
    if commands == 0 and conversations == 0 and learned == 0 and environment == 0:
        return "none", f"no recorded command or conversation matches {shown!r}"
    if not ask(f"forget {counted(commands, conversations, learned, environment)} matching {shown!r}?"):
        return "declined", "nothing forgotten"
    removed = store.forget_executions(pattern, regex=regex)
    removed_conversations = store.forget_conversations(pattern, regex=regex)
    removed_learned = store.forget_preferences(pattern, regex=regex)
    removed_environment = store.forget_environment_values(pattern, regex=regex)
    return "done", f"forgot {counted(removed, removed_conversations, removed_learned, removed_environment)}"


def _plain(pattern: str) -> str:
    """The text of an `exactly()` pattern, for the question (people do not read escaped regexes)."""
    body = pattern[2:-2] if pattern.endswith(r"\Z") else pattern
    return re.sub(r"\\(.)", r"\1", body, flags=re.S)


def counted(commands: int, conversations: int, learned: int = 0, environment: int = 0) -> str:
    """'3 commands', '1 command and 2 conversations', '1 conversation and 1 learned choice'."""
    parts = []
    if commands or not (conversations or learned or environment):
        parts.append(f"{commands} {'command' if commands == 1 else 'commands'}")
    if conversations:
        parts.append(f"{conversations} {'conversation' if conversations == 1 else 'conversations'}")
    if learned:
        parts.append(f"{learned} learned {'choice' if learned == 1 else 'choices'}")
    if environment:
        parts.append(f"{environment} environment {'value' if environment == 1 else 'values'}")
    return " and ".join(parts)
