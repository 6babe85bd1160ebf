"""How executions are inserted: SQLite's bulk INSERT and its JSON payloads, and the sessions an
insert touches. Standard library only: the store (SQLAlchemy) and the sqlite3 writer
(sqlite_writer.py, used by `parsec ask` without SQLAlchemy) both insert through it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from . import rows
from .newest_first import EXECUTION_COLUMNS  # every column but seq, in the table's order

if TYPE_CHECKING:
    from .protocols import ExecutionRecord

QUOTED_COLUMNS = ", ".join('"' + name + '"' for name in EXECUTION_COLUMNS)  # "user" is reserved

# SQLite: multi-row INSERT ... VALUES statements of up to INSERT_CHUNK rows instead of
# executemany. FTS5 (SQLite 3.40) flushes its pending index changes as a new segment at the end
# of every statement, and executemany is one statement per row, so each row made a one-row
# segment for automerge to fold (100,000 imported commands: 1.65 s). One INSERT ... SELECT over
# json_each() per chunk was the next form (0.26 s then); plain VALUES with bound parameters
# skips the JSON (encoding it here, parsing it in SQLite): 100,000 import rows took 0.93-1.04 s
# of CPU against 1.26-1.27 s for json_each in one run at load 20, and no json.dumps.
INSERT_CHUNK = 2000  # rows per statement: 15 columns, 30,000 parameters (SQLite's limit: 32,766 since 3.32)
SQLITE_PAYLOAD_CHARS = 8_000_000  # a statement's text and outputs stay a few MB even when rows carry outputs
_ROW = "(" + ", ".join("?" * len(EXECUTION_COLUMNS)) + ")"


def sqlite_insert(rows: int) -> str:
    """The INSERT of `rows` rows; an id already stored is skipped (retries are safe)."""
    return f"INSERT INTO executions ({QUOTED_COLUMNS}) VALUES {', '.join([_ROW] * rows)} ON CONFLICT (id) DO NOTHING"


def sqlite_inserts(batch: Sequence[ExecutionRecord]) -> Iterator[tuple[str, list[Any]]]:
    """The batch as (statement, parameters) pairs of at most INSERT_CHUNK rows or about
    SQLITE_PAYLOAD_CHARS characters each."""
    values: list[Any] = []
    count = size = 0
    for item in batch:
        row = rows.execution_row(item)
        values.extend([row[name] for name in EXECUTION_COLUMNS])
        count += 1
        size += len(row["command"]) + len(row["stdout"] or "") + len(row["stderr"] or "") + 200
        if count >= INSERT_CHUNK or size >= SQLITE_PAYLOAD_CHARS:
            yield sqlite_insert(count), values
            values, count, size = [], 0, 0
    if count:
        yield sqlite_insert(count), values


def session_spans(batch: Sequence[ExecutionRecord]) -> list[dict[str, Any]]:
    """One sessions row per session the batch's executions belong to, spanning their times: the
    row created for a session not stored yet, whose last_active an existing one moves up to."""
    spans: dict[str, dict[str, Any]] = {}
    for item in batch:
        span = spans.get(item.session_id)
        if span is None:
            spans[item.session_id] = {
                "id": item.session_id,
                "created_at": item.executed_at,
                "last_active": item.executed_at,
                "ended_at": None,
                "shell": "",
                "pid": None,
                "tty": "",
                "user": rows._text(item.user),
                "host": rows._text(item.host),
                "data": "{}",
            }
        elif item.executed_at > span["last_active"]:
            span["last_active"] = item.executed_at
        elif item.executed_at < span["created_at"]:
            span["created_at"] = item.executed_at
    return list(spans.values())
