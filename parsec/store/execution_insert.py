"""How executions are inserted: SQLite's bulk INSERT and its JSON payloads, and the sessions an
insert touches. Standard library only: the store (SQLAlchemy) and the sqlite3 writer
(sqlite_writer.py, used by `parsec ask` without SQLAlchemy) both insert through it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from . import rows
from .newest_first import EXECUTION_COLUMNS  # every column but seq, in the table's order

QUOTED_COLUMNS = ", ".join('"' + name + '"' for name in EXECUTION_COLUMNS)  # "user" is reserved
INSERT_CHUNK = 5000  # rows per insert statement: bounded memory, still one transaction per call

# SQLite: one INSERT ... SELECT over json_each() per chunk instead of executemany. FTS5 (SQLite
# 3.40) flushes its pending index changes as a new segment at the end of every statement, and
# executemany is one statement per row, so each row made a one-row segment for automerge to
# fold: 100,000 imported commands took 1.65 s to insert that way and 0.26 s this way.
SQLITE_BULK_INSERT = (
    f"INSERT INTO executions ({QUOTED_COLUMNS}) SELECT "
    + ", ".join(f"json_extract(value, '$[{i}]')" for i in range(len(EXECUTION_COLUMNS)))
    + " FROM json_each(?) WHERE true ON CONFLICT (id) DO NOTHING"  # WHERE: see SQLite's upsert parsing
)
SQLITE_PAYLOAD_CHARS = 8_000_000  # a chunk's JSON stays a few MB even when rows carry outputs


def sqlite_payloads(batch: list[Any]) -> Iterator[str]:
    """The batch as JSON arrays of row tuples, at most INSERT_CHUNK rows or about
    SQLITE_PAYLOAD_CHARS characters each. Non-ASCII stays raw UTF-8 (ensure_ascii=False): no
    \\u escapes, so no surrogate pairs for SQLite's JSON reader to recombine."""
    chunk: list[list[Any]] = []
    size = 0
    for item in batch:
        row = rows.execution_row(item)
        values = [row[name] for name in EXECUTION_COLUMNS]
        chunk.append(values)
        size += len(row["command"]) + len(row["stdout"] or "") + len(row["stderr"] or "") + 200
        if len(chunk) >= INSERT_CHUNK or size >= SQLITE_PAYLOAD_CHARS:
            yield json.dumps(chunk, ensure_ascii=False)
            chunk, size = [], 0
    if chunk:
        yield json.dumps(chunk, ensure_ascii=False)


def session_spans(batch: list[Any]) -> list[dict[str, Any]]:
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
