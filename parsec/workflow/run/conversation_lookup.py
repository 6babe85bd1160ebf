"""The conversation a command names: by id or id prefix (as `parsec conversations show`,
`parsec resume`, `parsec abort` and `parsec context show` take them), else the newest one."""

from __future__ import annotations

import re

from ...errors import NotFound, UsageError
from ...models.workflow import Conversation, ConversationStatus
from ...store.protocols import ConversationStore

ULID_SHAPE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


def find_conversation(
    store: ConversationStore, conversation_id: str | None, *, open_only: bool = False
) -> Conversation:
    """The conversation with this id (or id prefix); without an id, the newest open one."""
    if conversation_id:
        if ULID_SHAPE.match(conversation_id.upper()):
            return store.load_conversation(conversation_id.upper())
        matches = [c for c in store.list_conversations(limit=500) if c.id.startswith(conversation_id.upper())]
        if len(matches) == 1:
            return store.load_conversation(matches[0].id)
        if not matches:
            raise NotFound(f"no conversation {conversation_id!r}: see `parsec conversations`")
        raise UsageError(f"{conversation_id!r} matches {len(matches)} conversations: give more characters")
    open_states = {ConversationStatus.planning, ConversationStatus.ready, ConversationStatus.in_progress}
    for summary in store.list_conversations(limit=200):
        if not open_only or summary.status in open_states:
            return store.load_conversation(summary.id)
    if open_only:
        raise NotFound("no open conversation: `parsec conversations` lists them all")
    raise NotFound('no conversations yet: start one with `parsec ask "..."`')
