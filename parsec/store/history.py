"""History, sessions and stats queries for the CLI, on the store's tables.

`parsec history` and `parsec sessions` must answer in well under 150 ms end to end, and importing
SQLAlchemy and pydantic alone costs more than that. So for the default SQLite store these two
read the tables with the standard library's `sqlite3` (same SQL meaning as `queries.py` and
`fts.py`: newest first, cwd subtree as an index range, trigram full-text search) and return plain
dicts. Any other backend, or a database this code does not recognise, goes through the store
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
from urllib.parse import unquote

from .micros import from_micros, to_micros

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from typing import Any

# Schema revisions whose tables this module's raw SQL was written against (see migrate.py).
FAST_PATH_REVISIONS = {"0002"}
TRIGRAM_MIN = 3

EXECUTION_FIELDS = (
    "id",
    "session_id",
    "command",
    "executed_at",
    "duration_ms",
    "exit_status",
    "pipeline_statuses",
    "cwd",
    "cwd_after",
    "host",
    "user",
    "source",
)


# The filters of `parsec history`; the same meaning as store.base.ExecutionQuery. A namedtuple,
# not a dataclass: dataclasses imports inspect, ast and dis, a good part of the 150 ms budget.
# failed: True = non-zero exit; False = exit 0; a NULL exit is neither.
HistoryQuery = namedtuple(
    "HistoryQuery",
    ["session_id", "cwd", "cwd_subtree", "exit_status", "failed", "host", "since", "until", "search", "limit"],
    defaults=(None, None, False, None, None, None, None, None, None, 50),
)


class FastPathUnavailable(Exception):
    """This database cannot be read with raw sqlite3; use the store instead."""


# --- times ---------------------------------------------------------------------------------------

# --- the SQLite fast path ------------------------------------------------------------------------


def sqlite_file(url: str) -> Path | None:
    """The database file of a `sqlite:///path` URL; None for memory or other backends."""
    for prefix in ("sqlite:///", "sqlite+pysqlite:///"):
        if url.startswith(prefix):
            path = unquote(url[len(prefix) :].split("?", 1)[0])
            return Path(path) if path and path != ":memory:" else None
    return None


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


def _like(term: str) -> str:
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _where(query: HistoryQuery, seq_range: tuple[int, int] | None = None) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if query.session_id is not None:
        clauses.append("session_id = ?")
        params.append(query.session_id)
    if query.cwd is not None:
        base = query.cwd.rstrip("/") if query.cwd_subtree else query.cwd
        if not query.cwd_subtree:
            clauses.append("cwd = ?")
            params.append(query.cwd)
        elif base == "":
            clauses.append("cwd >= '/' AND cwd < '0'")
        else:  # the directory, and everything below it as an index range ("0" follows "/")
            clauses.append("(cwd = ? OR (cwd >= ? AND cwd < ?))")
            params += [base, base + "/", base + "0"]
    if query.exit_status is not None:
        clauses.append("exit_status = ?")
        params.append(query.exit_status)
    if query.failed is True:
        clauses.append("exit_status != 0")
    elif query.failed is False:
        clauses.append("exit_status = 0")
    if query.host is not None:
        clauses.append("host = ?")
        params.append(query.host)
    if query.since is not None:
        clauses.append("executed_at >= ?")
        params.append(to_micros(query.since))
    if query.until is not None:
        clauses.append("executed_at < ?")
        params.append(to_micros(query.until))
    terms = (query.search or "").split()
    long_terms = [t for t in terms if len(t) >= TRIGRAM_MIN]
    if long_terms:
        match = " AND ".join('"' + t.replace('"', '""') + '"' for t in long_terms)
        if seq_range is None:
            clauses.append("seq IN (SELECT rowid FROM executions_fts WHERE executions_fts MATCH ?)")
            params.append(match)
        else:  # FTS5 seeks straight to a rowid range
            clauses.append(
                "seq IN (SELECT rowid FROM executions_fts WHERE executions_fts MATCH ? AND rowid > ? AND rowid <= ?)"
            )
            params += [match, *seq_range]
    for term in terms:
        if len(term) < TRIGRAM_MIN:
            clauses.append("command LIKE ? ESCAPE '\\'")
            params.append(_like(term))
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


# Full-text search newest first without sorting every match: the same slices as the store's
# windowed.py (its docstring explains why the answer stays exact).
FIRST_SLICE = 20_000


def history_sqlite(connection: sqlite3.Connection, query: HistoryQuery) -> list[dict[str, Any]]:
    if query.limit and query.limit > 0 and any(len(t) >= TRIGRAM_MIN for t in (query.search or "").split()):
        return [_execution_dict(row[:-1]) for row in _windowed(connection, query)]
    where, params = _where(query)
    source = "executions INDEXED BY ix_executions_time" if _large_subtree(connection, query) else "executions"
    sql = f"SELECT {', '.join(EXECUTION_FIELDS)} FROM {source}{where} ORDER BY executed_at DESC, seq DESC"
    if query.limit and query.limit > 0:
        sql += " LIMIT ?"
        params.append(query.limit)
    return [_execution_dict(row) for row in connection.execute(sql, params).fetchall()]


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


def _windowed(connection: sqlite3.Connection, query: HistoryQuery) -> list[tuple]:
    """Search slices of recent rows (by seq), newest first, each four times larger than the last,
    until no older slice can hold a row newer than the oldest of the `limit` found."""
    top = connection.execute("SELECT max(seq) FROM executions").fetchone()[0]
    if top is None:
        return []
    columns = ", ".join(EXECUTION_FIELDS)
    at, seq = EXECUTION_FIELDS.index("executed_at"), len(EXECUTION_FIELDS)
    found: list[tuple] = []
    high, size = top, FIRST_SLICE
    while True:
        low = max(0, high - size)
        where, params = _where(query, seq_range=(low, high))
        rows = connection.execute(
            f"SELECT {columns}, seq FROM executions{where} ORDER BY executed_at DESC, seq DESC LIMIT ?",
            [*params, query.limit],
        ).fetchall()
        found = sorted(found + rows, key=lambda row: (row[at], row[seq]), reverse=True)[: query.limit]
        if low == 0:
            return found
        if len(found) >= query.limit:
            newest_below = connection.execute(
                "SELECT executed_at FROM executions INDEXED BY ix_executions_time WHERE seq <= ? "
                "ORDER BY executed_at DESC LIMIT 1",
                (low,),
            ).fetchone()
            if newest_below is None or newest_below[0] <= found[-1][at]:
                return found
        high, size = low, size * 4


SUBTREE_FACTOR = 20  # "many": more than this many times the limit


def _large_subtree(connection: sqlite3.Connection, query: HistoryQuery) -> bool:
    """Same idea for `--cwd D --subtree`: the (cwd, time) index serves one directory in time order,
    but a subtree is many directories, so SQLite sorts all of its rows (29 ms for 100,000 of
    1,000,000). When a capped count finds many rows there, reading the time index newest first
    stops after `limit` of them."""
    if not query.cwd_subtree or query.cwd is None or query.search or not query.limit:
        return False
    if query.session_id or query.exit_status is not None:
        return False
    base = query.cwd.rstrip("/")
    cap = query.limit * SUBTREE_FACTOR
    found = connection.execute(
        "SELECT count(*) FROM (SELECT 1 FROM executions WHERE cwd >= ? AND cwd < ? LIMIT ?)",
        (base + "/", base + "0", cap + 1),
    ).fetchone()[0]
    return found > cap


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


def history_via_store(store: Any, query: HistoryQuery, with_output: bool = False) -> list[dict[str, Any]]:
    from .base import ExecutionQuery

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


def sessions_via_store(store: Any, limit: int = 50) -> list[dict[str, Any]]:
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


def resolve_session_id(store: Any, prefix: str) -> str:
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
