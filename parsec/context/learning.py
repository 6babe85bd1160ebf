"""Cross-conversation learning: what recent conversations in this directory achieved, and the
tools the user prefers, learned from their history with the evidence for each.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..models.session import DirectCommandExecution
from ..store.protocols import ConversationStore

# Preference name -> alternatives that do the same job. The most used wins.
ALTERNATIVES: dict[str, tuple[str, ...]] = {
    "search_tool": ("rg", "grep", "ag", "ack"),
    "find_tool": ("fd", "find"),
    "node_package_manager": ("pnpm", "npm", "yarn", "bun"),
    "python_installer": ("uv", "pip", "pip3", "poetry", "pipx"),
    "container_tool": ("docker", "podman"),
    "editor": ("nvim", "vim", "nano", "emacs", "code", "hx"),
    "pager_or_viewer": ("bat", "less", "cat"),
    # No `ll`: usually an alias, and workflow commands run without the user's rc files.
    "list_style": ("ls -la", "ls -l", "eza", "exa", "ls"),
    "http_client": ("curl", "wget", "http"),
    "privilege_tool": ("sudo", "doas"),
}
MIN_EVIDENCE = 3  # uses before a habit counts as a preference

_SEGMENT = re.compile(r"\|\|?|&&|;")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class LearnedPreference:
    name: str
    value: str
    evidence: int  # how many times the winner was used
    over: dict[str, int]  # the alternatives and how often each was used

    def describe(self) -> str:
        others = ", ".join(f"{tool} {n}x" for tool, n in self.over.items() if n)
        return f"{self.value} (used {self.evidence}x" + (f"; {others}" if others else "") + ")"


def _command_words(command: str) -> list[str]:
    """Leading word (and `ls` with its first flag) of every segment of a pipeline or list."""
    words = []
    for segment in _SEGMENT.split(command):
        parts = [p for p in segment.strip().split() if not _ASSIGNMENT.match(p)]
        while parts and parts[0] in ("sudo", "doas", "time", "env", "nohup", "command", "exec"):
            if parts[0] in ("sudo", "doas"):
                words.append(parts[0])
            parts = parts[1:]
        if not parts:
            continue
        head = parts[0].rsplit("/", 1)[-1]
        words.append(head)
        if head == "ls" and len(parts) > 1 and parts[1] in ("-la", "-l", "-al"):
            words.append("ls " + ("-la" if parts[1] in ("-la", "-al") else "-l"))
    return words


def learn_preferences(executions: list[DirectCommandExecution]) -> list[LearnedPreference]:
    """Preferences with evidence from a user's commands (newest first or any order)."""
    usage: Counter[str] = Counter()
    for execution in executions:
        usage.update(_command_words(execution.command))
    learned = []
    for name, tools in ALTERNATIVES.items():
        counts = {tool: usage.get(tool, 0) for tool in tools}
        if name == "list_style":
            counts["ls"] = max(0, counts["ls"] - counts["ls -la"] - counts["ls -l"])
        best = max(tools, key=lambda tool: (counts[tool], -tools.index(tool)))
        if counts[best] < MIN_EVIDENCE:
            continue
        others = {tool: n for tool, n in counts.items() if tool != best}
        if sum(others.values()) >= counts[best]:
            continue  # no clear habit
        learned.append(LearnedPreference(name, best, counts[best], others))
    return learned


@dataclass(frozen=True)
class PastConversation:
    id: str
    name: str
    completed_at: str | None
    key_achievements: list[str]
    artifacts: list[str]


def recent_conversations(
    store: ConversationStore | None, cwd: str, exclude_id: str | None, limit: int = 5
) -> list[PastConversation]:
    """Finished conversations in `cwd`, newest first, with what they achieved and produced."""
    if store is None:
        return []
    finder = getattr(store, "recent_achievements", None)
    if finder is not None:
        return [_past_from_any(row) for row in finder(cwd, limit=limit + 1) if _row_id(row) != exclude_id][:limit]
    out: list[PastConversation] = []
    for summary in store.list_conversations(limit=limit * 4, cwd=cwd):
        if summary.id == exclude_id or len(out) >= limit:
            continue
        conversation = store.load_conversation(summary.id)
        facts = conversation.context_summary
        if not facts.key_achievements and not facts.generated_artifacts:
            continue
        out.append(
            PastConversation(
                id=conversation.id,
                name=conversation.name,
                completed_at=conversation.finished_at.isoformat() if conversation.finished_at else None,
                key_achievements=list(facts.key_achievements),
                artifacts=[a.path for a in facts.generated_artifacts],
            )
        )
    return out


def _row_id(row: object) -> str | None:
    if isinstance(row, dict):
        return row.get("conversation_id") or row.get("id")
    return getattr(row, "conversation_id", None) or getattr(row, "id", None)


def _past_from_any(row: object) -> PastConversation:
    """Accept what the store returns for recent achievements: a mapping or an object."""
    get = row.get if isinstance(row, dict) else (lambda name, default=None: getattr(row, name, default))
    completed: Any = get("completed_at") or get("finished_at")
    artifacts = get("artifacts") or get("generated_artifacts") or []
    return PastConversation(
        id=str(get("conversation_id") or get("id") or ""),
        name=str(get("name") or ""),
        completed_at=completed.isoformat() if hasattr(completed, "isoformat") else completed,
        key_achievements=list(get("achievements") or get("key_achievements") or []),
        artifacts=[a if isinstance(a, str) else getattr(a, "path", str(a)) for a in artifacts],
    )
