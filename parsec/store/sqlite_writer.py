"""SqliteWriter: the store's writes a short-lived command makes, on a SQLite store, with the
standard library's sqlite3 instead of SQLAlchemy.

Importing SQLAlchemy and opening the store costs ~200 ms of CPU; `parsec ask` writes a handful of
rows (its session, the conversation after every change, token usage, achievements, the history
rows of the commands it ran), and paying that between a model's reply and the next request, or
before exiting, made Parsec slower than the model (issue 26, item 5). The rows are the store's
own (`rows.py`, `execution_insert.py`), so they are masked and laid out exactly as `SqlStore`
writes them; each call is one transaction that takes the write lock up front (BEGIN IMMEDIATE),
as SqlStore's writes do. Only a store of a schema revision this code knows is written
(FastPathUnavailable otherwise: the caller opens the real store).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StoreError, StoreUnavailable
from .faults import not_writable
from .history import fast_connection
from .micros import to_micros

if TYPE_CHECKING:
    from ..models.session import Session
    from ..models.workflow import Conversation
    from .protocols import ExecutionRecord

# A session an execution belongs to: created when missing, its last_active moved forward (as
# SqlStore._touch_sessions does through SQLAlchemy).
_TOUCH_SESSION = (
    'INSERT INTO sessions (id, created_at, last_active, ended_at, shell, pid, tty, "user", host, data) '
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET last_active = max(sessions.last_active, excluded.last_active)"
)


class SqliteWriter:
    """Writes rows to the SQLite store at `path` (see the module docstring)."""

    def __init__(self, path: Path, busy_timeout_ms: int = 5000) -> None:
        with fast_connection(path, busy_timeout_ms):  # a Parsec store of a revision this code knows
            pass
        self._path = path
        self._connection = sqlite3.connect(
            str(path), timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
        )
        # The engine's settings (sql_engine.py): WAL is the database's, these are the connection's.
        for pragma in (f"busy_timeout = {int(busy_timeout_ms)}", "synchronous = NORMAL", "foreign_keys = ON"):
            self._connection.execute(f"PRAGMA {pragma}")

    def close(self) -> None:
        self._connection.close()

    def _transaction(self, statements: Iterable[tuple[str, Any]]) -> int:
        """Run (sql, parameters) pairs in one write transaction; the rows they changed."""
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")
            changed = 0
            try:
                for sql, parameters in statements:
                    changed += connection.execute(sql, parameters).rowcount
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        except sqlite3.Error as err:  # one line, as the store words it (database.py)
            raise self._translated(err) from err
        return changed

    def _translated(self, err: sqlite3.Error) -> StoreError:
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        if "locked" in message or "busy" in message:
            return StoreUnavailable(f"the store is busy ({message}); retry, or raise store.busy_timeout_ms")
        fault = not_writable(message, f"sqlite:///{self._path}")
        return fault if fault is not None else StoreError(f"the store refused the operation: {message}")

    def _put(self, table: str, row: dict[str, Any], key: str | None = None) -> None:
        self._transaction([_upsert(table, row, key)])

    # --- the ContextStore's writes ---------------------------------------------------------------
    def save_session(self, session: Session) -> None:
        """The session row; its command_history (if any) through append_executions first."""
        from .rows import session_row

        self._transaction([_upsert("sessions", session_row(session), "id"), *_inserts(session.command_history)])

    def save_conversation(self, conversation: Conversation) -> None:
        from .rows import conversation_row

        self._put("conversations", conversation_row(conversation), "id")

    def append_executions(self, executions: Iterable[ExecutionRecord]) -> int:
        """History rows, in one transaction; an id already stored is skipped. The rows new."""
        statements = _inserts(list(executions))
        touches = sum(1 for sql, _ in statements if sql == _TOUCH_SESSION)
        return self._transaction(statements) - touches if statements else 0

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
        from .rows import llm_usage_row

        self._put(
            "llm_usage", llm_usage_row(provider, model, purpose, input_tokens, output_tokens, conversation_id, at)
        )

    def save_achievements(
        self,
        conversation_id: str,
        name: str,
        working_directory: str,
        achievements: list[str],
        artifacts: list[str],
        completed_at: datetime,
    ) -> None:
        from .rows import achievement_row

        row = achievement_row(conversation_id, name, working_directory, achievements, artifacts, completed_at)
        self._put("achievements", row, "conversation_id")


def _micros(row: dict[str, Any]) -> dict[str, Any]:
    return {name: to_micros(v) if isinstance(v, datetime) else v for name, v in row.items()}


def _upsert(table: str, row: dict[str, Any], key: str | None = None) -> tuple[str, tuple]:
    """INSERT one row, or upsert on `key` (as Database.upsert)."""
    values = _micros(row)
    names = ", ".join(f'"{name}"' for name in values)
    sql = f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(values))})"
    if key is not None:
        sql += f" ON CONFLICT({key}) DO UPDATE SET " + ", ".join(f'"{n}" = excluded."{n}"' for n in values if n != key)
    return sql, tuple(values.values())


def _inserts(batch: list[Any]) -> list[tuple[str, Any]]:
    """The statements that record executions: their sessions touched, then the rows in bulk."""
    if not batch:
        return []
    from .execution_insert import session_spans, sqlite_inserts

    touches = [(_TOUCH_SESSION, tuple(_micros(span).values())) for span in session_spans(batch)]
    return [*touches, *((statement, tuple(values)) for statement, values in sqlite_inserts(batch))]
