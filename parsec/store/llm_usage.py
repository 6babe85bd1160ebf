"""Tokens sent to and received from each model, per call, and their sums (`parsec stats`).
Mixed into SqlStore, which provides `db`."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from .rows import llm_usage_row
from .schema import llm_usage

if TYPE_CHECKING:
    from .database import Database


class LlmUsage:
    """Record model calls' token usage and sum it."""

    db: Database

    def record_llm_usage(
        self,
        provider: str,
        model: str,
        purpose: str,
        input_tokens: int,
        output_tokens: int,
        conversation_id: str | None = None,
        at: datetime | None = None,
    ) -> None:
        row = llm_usage_row(provider, model, purpose, input_tokens, output_tokens, conversation_id, at)
        with self.db.write() as connection:
            connection.execute(llm_usage.insert().values(row))

    def llm_usage_summary(self, since: datetime | None = None) -> list[dict]:
        """Per provider and model: calls, input_tokens, output_tokens (since `since`, inclusive)."""
        c = llm_usage.c
        statement = (
            select(
                c.provider,
                c.model,
                func.count().label("calls"),
                func.coalesce(func.sum(c.input_tokens), 0).label("input_tokens"),
                func.coalesce(func.sum(c.output_tokens), 0).label("output_tokens"),
            )
            .group_by(c.provider, c.model)
            .order_by(c.provider, c.model)
        )
        if since is not None:
            statement = statement.where(c.at >= since)
        with self.db.read() as connection:
            found = connection.execute(statement).mappings().all()
        return [
            {
                **row,
                "calls": int(row["calls"]),
                "input_tokens": int(row["input_tokens"]),
                "output_tokens": int(row["output_tokens"]),
            }
            for row in found
        ]
