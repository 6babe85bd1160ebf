"""What lets `parsec ask` run without SQLAlchemy and tiktoken on a SQLite store.

Importing SQLAlchemy and opening the store costs ~200 ms of CPU, loading the token encoding
another ~150 ms: paid before the first request they would delay it, paid after it they would sit
between the model's reply and the next request, with a fast model longer than the model itself
(issue 26, item 5). So:

- `DeferredStore` answers the reads the workflow needs (the session and its history, executions
  to learn preferences from, recent achievements) straight from a SQLite store with the standard
  library's `sqlite3` (read-only, the same schema revision as `store.history`'s fast path, the
  store's own SQL: `store.execution_sql`, `store.newest_first`). The writes made before the
  planning request (a new session, the planning conversation) are held as copies;
  `claim_opening()`, called as the request goes out, hands a background thread the job of
  writing them. From then on every write (conversation saves, the history rows of the commands
  run, token usage, achievements) goes straight to the file through the store's own sqlite3
  writer (`store.sqlite_writer`), one transaction each, so the conversation is saved after every
  change, before any command runs, and SQLAlchemy is never loaded. Any other backend,
  a missing or differently versioned database, and any call it does not know open the real
  store, as before.
- `context.tokens.LazyCounter` loads tiktoken only when a count must be exact: the context
  engine fits with an upper bound first (`ContextEngine._bounded_first`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import NotFound
from ...models.parsec_model import utcnow
from ...store.execution_sql import Positional, under_directory
from ...store.history import FastPathUnavailable, HistoryQuery, fast_connection
from ...store.newest_first import newest_execution_rows
from ...store.sqlite_writer import SqliteWriter

if TYPE_CHECKING:
    from ...models.session import DirectCommandExecution, Session
    from ...models.workflow import Conversation
    from ...store.execution_sql import ExecutionFilter
    from ...store.protocols import ContextStore, ExecutionQuery, ExecutionRecord

T = TypeVar("T")

# After the request hook (called as a request goes out): by then the request is written, a few KB to
# a local socket, and the wait for the model begun. 20 ms left work to the next window when a fast
# model answered first; 5 ms did not slow the request (bench/workflow.py, the same in both trees).
REQUEST_SETTLE_S = 0.005


def run_later(delay: float, jobs: list[Callable[[], object]]) -> None:
    """Run `jobs` one after the other in one daemon thread, `delay` seconds from now. A job that
    fails is left for the main thread to meet (and report) when it needs the same thing."""

    def work() -> None:
        for job in jobs:
            try:
                job()
            except Exception:
                pass

    timer = threading.Timer(delay, work)
    timer.name, timer.daemon = "parsec-warmup", True
    timer.start()


# --- the store -----------------------------------------------------------------------------------


class DeferredStore:
    """The ContextStore for the start of `parsec ask` (see the module docstring)."""

    def __init__(self, open_store: Callable[[], ContextStore], url: str, busy_timeout_ms: int = 5000) -> None:
        from ...store.sqlite_url import sqlite_file

        self._open_store = open_store  # () -> the real store
        self._path = sqlite_file(url)
        self._busy_timeout_ms = busy_timeout_ms
        self._lock = threading.Lock()
        self._store: ContextStore | None = None
        self._claimed = False
        self._pending: list[tuple[str, tuple, dict]] = []  # (method, args, kwargs) held for now
        self._fast_writer: SqliteWriter | None = None
        if self._path is None:  # PostgreSQL, or an in-memory SQLite: open it now, as before
            run_later(0.0, [self.claim_opening()])

    # --- opening ---------------------------------------------------------------------------
    @property
    def opened(self) -> bool:
        return self._store is not None

    def claim_opening(self) -> Callable[[], None]:
        """From now on every call goes to the real store (the request is on its way); returns the
        job that opens it and writes what is held, for a background thread. Whichever thread comes
        first opens it; the other waits."""
        self._claimed = True
        return self._written_fast

    def result(self) -> ContextStore:
        """The real store, open, with every held write written (in order)."""
        with self._lock:
            if self._store is None:
                self._store = self._open_store()
            self._write_held(self._store)
            return self._store

    def _write_held(self, target: ContextStore | SqliteWriter) -> None:
        """Write what is held, in order, through `target` (the real store, or the sqlite3 writer)."""
        while self._pending:
            name, args, kwargs = self._pending[0]
            getattr(target, name)(*args, **kwargs)
            self._pending.pop(0)

    def _written_fast(self) -> None:
        """The job handed out by `claim_opening`: write what is held through sqlite3 (SQLAlchemy is
        not needed for it); a store it cannot write that way is opened instead."""
        writer = self._writer()
        if writer is None:
            self.result()
            return
        with self._lock:
            self._write_held(writer)

    def _writer(self) -> SqliteWriter | None:
        if self._store is not None or self._path is None:
            return None
        if self._fast_writer is None:
            try:
                self._fast_writer = SqliteWriter(self._path, self._busy_timeout_ms)
            except (FastPathUnavailable, sqlite3.Error):
                self._path = None  # not a store this code can write: the real store from now on
                return None
        return self._fast_writer

    def _deferred(self) -> bool:
        """True while writes may be held: nothing has started writing them."""
        return self._store is None and not self._claimed and self._path is not None

    def __getattr__(self, name: str) -> Any:  # noqa: ANN401 - everything else is the real store's
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.result(), name)

    def close(self) -> None:
        with self._lock:
            if self._fast_writer is not None:
                self._write_held(self._fast_writer)
                self._fast_writer.close()
                self._fast_writer = None
        if self._store is not None or self._pending:
            self.result().close()

    # --- writes: held until the request is out, then through sqlite3 ----------------------------
    def _write(self, name: str, *args: object, **kwargs: object) -> None:
        if self._deferred():
            self._pending.append((name, args, kwargs))
            return
        writer = self._writer()
        if writer is None:
            getattr(self.result(), name)(*args, **kwargs)
            return
        with self._lock:
            self._write_held(writer)
            getattr(writer, name)(*args, **kwargs)

    def save_session(self, session: Session) -> None:
        self._write("save_session", session.model_copy(deep=True) if self._deferred() else session)

    def save_conversation(self, conversation: Conversation) -> None:
        self._write("save_conversation", conversation.model_copy(deep=True) if self._deferred() else conversation)

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
        self._write(
            "record_llm_usage",
            provider,
            model,
            purpose,
            input_tokens,
            output_tokens,
            conversation_id=conversation_id,
            at=at or utcnow(),
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
        self._write(
            "save_achievements", conversation_id, name, working_directory, achievements, artifacts, completed_at
        )

    def append_executions(self, executions: Iterable[ExecutionRecord]) -> int:
        """History rows (the commands a workflow ran): written as they come, like every other
        write; how many were given (the writer skips an id already stored)."""
        batch = list(executions)
        self._write("append_executions", batch)
        return len(batch)

    # --- reads the planning context needs -------------------------------------------------------
    def _raw(self, read: Callable[[sqlite3.Connection], T]) -> T | None:
        """read(connection) on a read-only sqlite3 connection; None when it cannot be used."""
        path = self._path
        if path is None:
            return None
        try:
            with fast_connection(path, self._busy_timeout_ms) as connection:
                return read(connection)
        except (FastPathUnavailable, sqlite3.Error):
            self._path = None  # not a database this code can read: the real store from now on
            return None

    def load_session(self, session_id: str, history_limit: int = 1000) -> Session:
        def read(connection: sqlite3.Connection) -> Session | NotFound:
            connection.row_factory = sqlite3.Row
            row = connection.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                return NotFound(f"no session {session_id}; `parsec sessions` lists them")
            history = _newest(connection, HistoryQuery(session_id=session_id, limit=history_limit))
            return _session_from_row(row, history[::-1])

        found = self._raw(read)
        if found is None:
            return self.result().load_session(session_id, history_limit=history_limit)
        if isinstance(found, NotFound):
            raise found
        return found

    def query_executions(self, query: ExecutionQuery) -> list[DirectCommandExecution]:
        # The store's own plans (newest_first.py); a page goes to the store.
        found = self._raw(lambda connection: _newest(connection, query)) if query.before_id is None else None
        return self.result().query_executions(query) if found is None else found

    def recent_achievements(self, cwd: str | None = None, limit: int = 10) -> list[dict]:
        def read(connection: sqlite3.Connection) -> list[dict]:
            connection.row_factory = sqlite3.Row
            bind = Positional()
            inside = f" WHERE {under_directory('working_directory', cwd, bind)}" if cwd is not None else ""
            found = connection.execute(
                f"SELECT * FROM achievements{inside} ORDER BY completed_at DESC LIMIT {bind(limit)}", bind.values
            ).fetchall()
            return [
                {
                    **dict(row),
                    "completed_at": _from_micros(row["completed_at"]),
                    "achievements": json.loads(row["achievements"]),
                    "artifacts": json.loads(row["artifacts"]),
                }
                for row in found
            ]

        found = self._raw(read)
        return self.result().recent_achievements(cwd, limit=limit) if found is None else found


# --- rows read with sqlite3: times arrive as microseconds, store.rows converts the rest --------


def _from_micros(value: int | None) -> datetime | None:
    from ...store.micros import from_micros

    return None if value is None else from_micros(value)


def _newest(connection: sqlite3.Connection, query: ExecutionFilter) -> list[DirectCommandExecution]:
    from ...store.rows import execution_from_row

    rows = newest_execution_rows(lambda sql, params: connection.execute(sql, params).fetchall(), query)
    return [execution_from_row(row) for row in rows]


def _session_from_row(row: sqlite3.Row, history: list[DirectCommandExecution]) -> Session:
    from ...store.rows import session_from_row

    times = {name: _from_micros(row[name]) for name in ("created_at", "last_active", "ended_at")}
    return session_from_row({**dict(row), **times}, history)
