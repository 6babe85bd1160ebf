"""Compaction: when a message list passes `context_compression_threshold` of the budget, its
older part is summarised by the model (the `summarize` callback) into one marked message.

Groups (a tool call and its results) are never split between the summarised and kept parts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..models.chat import ChatMessage
from .redact import masked
from .tokens import TokenCounter
from .truncation import group_tokens, is_tool_result, message_groups, split_system

SUMMARY_MARKER = "[CONTEXT SUMMARY]"
SUMMARY_PREAMBLE = (
    "The following is a summary of the earlier part of this conversation, generated at {when} "
    "when the context window needed compaction. Treat it as established context."
)
RECENT_PRESERVE_RATIO = 0.25

Summarize = Callable[[list[ChatMessage]], str]


@dataclass
class CompactionResult:
    messages: list[ChatMessage]
    summarised_count: int
    original_tokens: int
    new_tokens: int


def is_summary(message: ChatMessage) -> bool:
    return message.content.startswith(SUMMARY_MARKER)


def summary_message(text: str, now: datetime | None = None) -> ChatMessage:
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    body = f"{SUMMARY_MARKER}\n{SUMMARY_PREAMBLE.format(when=when)}\n\n---\n{masked(text.strip())}"
    return ChatMessage(role="user", content=body)


def split_for_compaction(
    messages: list[ChatMessage], counter: TokenCounter, budget: int, ratio: float = RECENT_PRESERVE_RATIO
) -> tuple[list[ChatMessage], list[ChatMessage], list[ChatMessage]]:
    """(system messages, older groups to summarise, recent groups to keep as they are)."""
    system, rest = split_system(messages)
    groups = message_groups(rest, is_tool_result)
    keep_room = int(budget * ratio)
    cut = len(groups)
    while cut > 0:
        size = group_tokens(groups[cut - 1], counter)
        if size > keep_room and cut < len(groups):
            break
        keep_room -= size  # the newest group is always kept
        cut -= 1
    older = [m for g in groups[:cut] for m in g]
    recent = [m for g in groups[cut:] for m in g]
    return system, older, recent


def compact(
    messages: list[ChatMessage],
    counter: TokenCounter,
    budget: int,
    threshold: float,
    summarize: Summarize,
    now: datetime | None = None,
) -> CompactionResult | None:
    """Compacted messages, or None when usage is under the threshold or nothing is old enough."""
    used = counter.count_messages(messages)
    if used <= threshold * budget:
        return None
    system, older, recent = split_for_compaction(messages, counter, budget)
    if not older:
        return None
    summary = summary_message(summarize(older), now)
    compacted = [*system, summary, *recent]
    return CompactionResult(compacted, len(older), used, counter.count_messages(compacted))
