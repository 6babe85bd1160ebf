"""What finished conversations achieved, kept when the conversations themselves are pruned: the
planning context of later ones in the same directory tree. Mixed into SqlStore, which provides `db`."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select

from . import rows
from .queries import under_directory
from .schema import achievements as achievements_table

if TYPE_CHECKING:
    from .database import Database


class Achievements:
    """Save and read what conversations achieved."""

    db: Database

    def save_achievements(
        self,
        conversation_id: str,
        name: str,
        working_directory: str,
        achievements: list[str],
        artifacts: list[str],
        completed_at: datetime,
    ) -> None:
        """Store (or replace) what a conversation achieved; kept when the conversation is pruned."""
        row = rows.achievement_row(conversation_id, name, working_directory, achievements, artifacts, completed_at)
        with self.db.write() as connection:
            connection.execute(self.db.upsert(achievements_table, row, key="conversation_id"))

    def recent_achievements(self, cwd: str | None = None, limit: int = 10) -> list[dict]:
        """Newest first; with `cwd`, those from that directory or below it."""
        c = achievements_table.c
        statement = select(achievements_table).order_by(c.completed_at.desc()).limit(limit)
        if cwd is not None:
            statement = statement.where(under_directory("working_directory", cwd))
        with self.db.read() as connection:
            found = connection.execute(statement).mappings().all()
        return [
            {**row, "achievements": json.loads(row["achievements"]), "artifacts": json.loads(row["artifacts"])}
            for row in found
        ]
