"""Truncation of conversation-style message lists, keeping a tool call and its results together.

Parsec's chat messages carry no tool-call fields: a "tool call" is an assistant message that
proposes a command, and its results are the user messages that follow it and start with
TOOL_RESULT_PREFIX (build them with `tool_result_message`). A group is either one standalone
message or an assistant message with all the results that follow it; groups are never split.
Leading system messages are always kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ..models.chat import ChatMessage
from .tokens import OVERHEAD_PER_MESSAGE, OVERHEAD_PER_REQUEST, TokenCounter

TOOL_RESULT_PREFIX = "[command result]"

Strategy = Literal["oldest_first", "middle_out"]


def tool_result_message(command: str, exit_status: int | None, output: str) -> ChatMessage:
    return ChatMessage(role="user", content=f"{TOOL_RESULT_PREFIX} `{command}` exit {exit_status}\n{output}")


def is_tool_result(message: ChatMessage) -> bool:
    return message.role == "user" and message.content.startswith(TOOL_RESULT_PREFIX)


def split_system(messages: list[ChatMessage]) -> tuple[list[ChatMessage], list[ChatMessage]]:
    """(leading system messages, the rest)."""
    cut = 0
    while cut < len(messages) and messages[cut].role == "system":
        cut += 1
    return messages[:cut], messages[cut:]


def message_groups(
    messages: list[ChatMessage], is_result: Callable[[ChatMessage], bool] = is_tool_result
) -> list[list[ChatMessage]]:
    groups: list[list[ChatMessage]] = []
    for message in messages:
        joins_call = is_result(message) and groups and (groups[-1][0].role == "assistant")
        if joins_call:
            groups[-1].append(message)
        else:
            groups.append([message])
    return groups


def group_tokens(group: list[ChatMessage], counter: TokenCounter) -> int:
    return sum(OVERHEAD_PER_MESSAGE + counter.count(m.content) for m in group)


def truncate(
    messages: list[ChatMessage],
    budget: int,
    counter: TokenCounter,
    strategy: Strategy = "middle_out",
    is_result: Callable[[ChatMessage], bool] = is_tool_result,
) -> list[ChatMessage]:
    """The messages that fit in `budget` tokens under `strategy`; the newest group always stays."""
    system, rest = split_system(messages)
    groups = message_groups(rest, is_result)
    if not groups:
        return list(system)
    room = budget - OVERHEAD_PER_REQUEST - group_tokens(system, counter)
    sizes = [group_tokens(g, counter) for g in groups]
    if sum(sizes) <= room:
        return list(messages)
    if strategy == "oldest_first":
        chosen = _newest_that_fit(range(len(groups)), sizes, room)
    elif strategy == "middle_out":
        chosen = _middle_out(sizes, room)
    else:
        raise ValueError(f"unknown truncation strategy {strategy!r}")
    kept = [message for i in sorted(chosen) for message in groups[i]]
    return list(system) + kept


def _newest_that_fit(indices, sizes: list[int], room: int) -> set[int]:
    chosen: set[int] = set()
    for i in reversed(list(indices)):
        if sizes[i] > room and chosen:
            break
        chosen.add(i)  # the newest group is kept even if alone it is too big
        room -= sizes[i]
    return chosen


def _middle_out(sizes: list[int], room: int) -> set[int]:
    """Keep the first and last groups, then fill with the groups nearest the end."""
    last = len(sizes) - 1
    chosen = {last}
    room -= sizes[last]
    if last > 0 and sizes[0] <= room:
        chosen.add(0)
        room -= sizes[0]
    for i in range(last - 1, 0, -1):
        if sizes[i] > room:
            break
        chosen.add(i)
        room -= sizes[i]
    return chosen
