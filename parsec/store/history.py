"""History, sessions and stats queries for the CLI, on the store's tables.

`parsec history` and `parsec sessions` must answer in well under 150 ms end to end, and importing
SQLAlchemy and pydantic alone costs more than that. So for the default SQLite store these two
read the tables with the standard library's `sqlite3` and return plain dicts: the same SQL and
plans as the store's (execution_sql.py for the filters, newest_first.py for the order). Any other backend, or a database this code does not recognise, goes through the store
(`open_store`) and gets the same dicts. Stats are not on the hot path and use SQLAlchemy.

Nothing heavy is imported at module level.
"""

from __future__ import annotations

import json
import sqlite3
from collections import namedtuple
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path

from .micros import from_micros
from .newest_first import EXECUTION_COLUMNS, newest_executions

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from typing import Any

    from .protocols import HistoryStore
    from .sql_store import SqlStore

# Schema revisions whose tables this module's raw SQL was written against (see migrate.py).
FAST_PATH_REVISIONS = {"0003"}

# The columns `parsec history` shows: all but the captured output (read only when asked: it can be large).
EXECUTION_FIELDS = tuple(name for name in EXECUTION_COLUMNS if name not in ("stdout", "stderr"))


# The filters of `parsec history`; the same meaning as store.base.ExecutionQuery. A namedtuple,
# not a dataclass: dataclasses imports inspect, ast and dis, a good part of the 150 ms budget.
# failed: True = non-zero exit; False = exit 0; a NULL exit is neither.
HistoryQuery = namedtuple(
    "HistoryQuery",
    [
        "session_id",
        "cwd",
        "cwd_subtree",
        "exit_status",
        "failed",
        "host",
        "since",
        "until",
        "search",
        "limit",
        "source",
    ],
    defaults=(None, None, False, None, None, None, None, None, None, 50, None),
)


class FastPathUnavailable(Exception):
    """This database cannot be read with raw sqlite3; use the store instead."""


# --- times ---------------------------------------------------------------------------------------

# --- the SQLite fast path ------------------------------------------------------------------------


@contextmanager
def fast_connection(path: Path, busy_timeout_ms: int = 5000) -> Iterator[sqlite3.Connection]:
    """A read-only sqlite3 connection to a Parsec store, or FastPathUnavailable."""
    if not path.is_file():
        raise FastPathUnavailable(f"{path} does not exist yet")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=busy_timeout_ms / 1000)
    except sqlite3.Error as err:
        raise FastPathUnavailable(str(err)) from None
    with closing(connection):
        try:
            revision = connection.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.Error as err:
            raise FastPathUnavailable(str(err)) from None
        if revision is None or revision[0] not in FAST_PATH_REVISIONS:
            raise FastPathUnavailable(f"schema revision {revision}")
        yield connection


def history_sqlite(connection: sqlite3.Connection, query: HistoryQuery) -> list[dict[str, Any]]:
    rows = newest_executions(lambda sql, params: connection.execute(sql, params).fetchall(), query, EXECUTION_FIELDS)
    return [_execution_dict(row[:-1]) for row in rows]  # the plan adds seq last


def outputs_sqlite(connection: sqlite3.Connection, ids: list[str]) -> dict[str, tuple[Any, Any]]:
    """The captured (stdout, stderr) of these executions, each a TruncatedText dict or None; read
    only when asked for (`--output`, `--json`): they can be large."""
    found: dict[str, tuple[Any, Any]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for eid, stdout, stderr in connection.execute(
            f"SELECT id, stdout, stderr FROM executions WHERE id IN ({marks})", chunk
        ):
            found[eid] = (json.loads(stdout) if stdout else None, json.loads(stderr) if stderr else None)
    return found


def _execution_dict(row: tuple) -> dict[str, Any]:
    item = dict(zip(EXECUTION_FIELDS, row))
    item["executed_at"] = from_micros(item["executed_at"])
    item["pipeline_statuses"] = json.loads(item["pipeline_statuses"]) if item["pipeline_statuses"] else []
    return item


def sessions_sqlite(connection: sqlite3.Connection, limit: int = 50) -> list[dict[str, Any]]:
    found = connection.execute(
        "SELECT id, created_at, last_active, ended_at, shell, pid, tty, user, host, data FROM sessions "
        "ORDER BY last_active DESC, id DESC LIMIT ?",
        (limit,),
    ).fetchall()
    ids = [row[0] for row in found]
    counts: dict[str, tuple[int, int]] = {}
    conversation_counts: dict[str, int] = {}
    if ids:
        marks = ",".join("?" * len(ids))
        for sid, count, failed in connection.execute(
            f"SELECT session_id, count(*), sum(exit_status != 0) FROM executions "
            f"WHERE session_id IN ({marks}) GROUP BY session_id",
            ids,
        ):
            counts[sid] = (count, int(failed or 0))
        conversation_counts = dict(
            connection.execute(
                f"SELECT session_id, count(*) FROM conversations WHERE session_id IN ({marks}) GROUP BY session_id", ids
            ).fetchall()
        )
    result = []
    for sid, created, last, ended, shell, pid, tty, user, host, data in found:
        commands, failed = counts.get(sid, (0, 0))
        result.append(
            session_dict(
                sid,
                from_micros(created),
                from_micros(last),
                from_micros(ended) if ended is not None else None,
                shell,
                pid,
                tty,
                user,
                host,
                _cwd_of(data),
                commands,
                failed,
                conversation_counts.get(sid, 0),
            )
        )
    return result


def _cwd_of(data: str | None) -> str:
    try:
        return str(json.loads(data or "{}").get("global_context", {}).get("working_directory", ""))
    except (ValueError, AttributeError):
        return ""


def session_dict(
    sid: str,
    created: datetime,
    last: datetime,
    ended: datetime | None,
    shell: str,
    pid: int | None,
    tty: str,
    user: str,
    host: str,
    cwd: str,
    commands: int,
    failed: int,
    conversations: int,
) -> dict[str, Any]:
    return {
        "id": sid,
        "created_at": created,
        "last_active": last,
        "ended_at": ended,
        "duration_s": max(0.0, ((ended or last) - created).total_seconds()),
        "shell": shell,
        "pid": pid,
        "tty": tty,
        "user": user,
        "host": host,
        "cwd": cwd,
        "commands": commands,
        "failed": failed,
        "conversations": conversations,
    }


# --- the same answers through the store (PostgreSQL, or a database that needs migrating) ----------


def history_via_store(store: HistoryStore, query: HistoryQuery, with_output: bool = False) -> list[dict[str, Any]]:
    from .protocols import ExecutionQuery

    found = store.query_executions(
        ExecutionQuery(
            session_id=query.session_id,
            cwd=query.cwd,
            cwd_subtree=query.cwd_subtree,
            exit_status=query.exit_status,
            failed=query.failed,
            host=query.host,
            since=query.since,
            until=query.until,
            search=query.search,
            limit=query.limit,
            source=query.source,
        )
    )
    return [
        {
            "id": e.id,
            "session_id": e.session_id,
            "command": e.command,
            "executed_at": e.executed_at,
            "duration_ms": e.duration_ms,
            "exit_status": e.exit_status,
            "pipeline_statuses": e.pipeline_statuses,
            "cwd": e.working_directory,
            "cwd_after": e.cwd_after,
            "host": e.host,
            "user": e.user,
            "source": e.source,
            "conversation_id": e.conversation_id,
            **(
                {
                    "stdout": e.stdout.model_dump() if e.stdout else None,
                    "stderr": e.stderr.model_dump() if e.stderr else None,
                }
                if with_output
                else {}
            ),
        }
        for e in found
    ]


def sessions_via_store(store: HistoryStore, limit: int = 50) -> list[dict[str, Any]]:
    result = []
    for summary in store.list_sessions(limit=limit):
        s = summary.session
        result.append(
            session_dict(
                s.id,
                s.created_at,
                s.last_active,
                s.ended_at,
                s.shell,
                s.pid,
                s.tty,
                s.user,
                s.host,
                s.global_context.working_directory,
                summary.command_count,
                summary.failed_count,
                summary.conversation_count,
            )
        )
    return result


def resolve_session_id(store: SqlStore, prefix: str) -> str:
    """A full session id from an id or a unique prefix of one (ids are long to type)."""
    from sqlalchemy import select

    from ..errors import NotFound, UsageError
    from .schema import sessions

    wanted = prefix.strip().upper()
    with store.engine.connect() as connection:
        found = (
            connection.execute(
                select(sessions.c.id).where(sessions.c.id >= wanted, sessions.c.id < wanted + "~").limit(2)
            )
            .scalars()
            .all()
        )
    if not found:
        raise NotFound(f"no session {prefix!r}; `parsec sessions` lists them")
    if len(found) > 1:
        raise UsageError(f"{prefix!r} matches several sessions; give more of the id")
    return found[0]
