"""`parsec export`: every execution, then every conversation, as JSON-ready dicts, in keyset
pages so that memory stays flat on a million rows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import RowMapping

    from .sql_store import SqlStore

EXPORT_PAGE = 5000


def iter_export(store: SqlStore, since: datetime | None = None) -> Iterator[dict[str, Any]]:
    """Every execution (oldest first) then every conversation, as JSON-ready dicts with a "type".
    Keyset pages keep memory flat on a million rows."""
    from sqlalchemy import select

    from .schema import conversations, executions

    c = executions.c
    last = None
    while True:
        statement = select(executions).order_by(c.seq).limit(EXPORT_PAGE)
        if since is not None:
            statement = statement.where(c.executed_at >= since)
        if last is not None:
            statement = statement.where(c.seq > last)
        with store.db.read() as connection:
            page = connection.execute(statement).mappings().all()
        if not page:
            break
        for row in page:
            yield _export_execution(row)
        last = page[-1]["seq"]
    statement = select(conversations.c.data).order_by(conversations.c.created_at)
    if since is not None:
        statement = statement.where(conversations.c.updated_at >= since)
    with store.db.read() as connection:
        for (data,) in connection.execute(statement):
            yield {"type": "conversation", **json.loads(data)}


def _export_execution(row: RowMapping) -> dict[str, Any]:
    return {
        "type": "execution",
        "id": row["id"],
        "session_id": row["session_id"],
        "command": row["command"],
        "executed_at": row["executed_at"].isoformat(),
        "duration_ms": row["duration_ms"],
        "exit_status": row["exit_status"],
        "pipeline_statuses": json.loads(row["pipeline_statuses"]) if row["pipeline_statuses"] else [],
        "stdout": json.loads(row["stdout"]) if row["stdout"] else None,
        "stderr": json.loads(row["stderr"]) if row["stderr"] else None,
        "cwd": row["cwd"],
        "cwd_after": row["cwd_after"],
        "host": row["host"],
        "user": row["user"],
        "source": row["source"],
    }
