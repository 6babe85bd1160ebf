"""The store's conversations: one row each (the whole Conversation as JSON, and the columns
`parsec conversations` lists by). Mixed into SqlStore, which provides `db`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select

from ..errors import NotFound
from ..models.workflow import Conversation, ConversationStatus
from . import rows
from .protocols import ConversationSummary
from .schema import conversations

if TYPE_CHECKING:
    from .database import Database


class Conversations:
    """Save, load and list conversations."""

    db: Database

    def save_conversation(self, conversation: Conversation) -> None:
        statement = self.db.upsert(conversations, rows.conversation_row(conversation), key="id")
        with self.db.write() as connection:
            connection.execute(statement)

    def load_conversation(self, conversation_id: str) -> Conversation:
        with self.db.read() as connection:
            data = connection.execute(
                select(conversations.c.data).where(conversations.c.id == conversation_id)
            ).scalar()
        if data is None:
            raise NotFound(f"no conversation {conversation_id}; `parsec conversations` lists them")
        return rows.conversation_from_row({"data": data})

    def list_conversations(
        self, limit: int = 50, session_id: str | None = None, cwd: str | None = None
    ) -> list[ConversationSummary]:
        c = conversations.c
        statement = select(
            c.id,
            c.session_id,
            c.name,
            c.original_prompt,
            c.status,
            c.created_at,
            c.updated_at,
            c.working_directory,
            c.step_count,
        ).order_by(c.updated_at.desc(), c.id.desc())
        if session_id is not None:
            statement = statement.where(c.session_id == session_id)
        if cwd is not None:
            statement = statement.where(c.working_directory == cwd)
        with self.db.read() as connection:
            found = connection.execute(statement.limit(limit)).mappings().all()
        return [
            ConversationSummary(
                id=r["id"],
                session_id=r["session_id"],
                name=r["name"],
                original_prompt=r["original_prompt"],
                status=ConversationStatus(r["status"]),
                created_at=r["created_at"],
                updated_at=r["updated_at"],
                working_directory=r["working_directory"],
                step_count=r["step_count"],
            )
            for r in found
        ]
