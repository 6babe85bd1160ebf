"""What lets `parsec ask` send its planning request before SQLAlchemy and tiktoken are loaded.

Importing SQLAlchemy and opening the store costs ~200 ms of CPU, loading the token encoding
another ~200 ms; the budget from Enter to the first model request is 200 ms in all. So:

- `DeferredStore` answers the reads the planning context needs (the session and its history,
  executions to learn preferences from, recent achievements) straight from a SQLite store with
  the standard library's `sqlite3` (read-only, the same schema revision as `store.history`'s fast
  path, the store's own SQL: `store.execution_sql`, `store.newest_first`), and holds the writes made before the request (a new session, the planning conversation)
  as copies. `claim_opening()`, called as the planning request goes out, hands a background
  thread the job of opening the real store and writing them; every later call waits for the real
  store, so the conversation is saved after every change from then on, before any command runs.
  Any other backend, a missing or differently versioned database, and any call it does not know
  open the store at once, as before.
- `context.tokens.LazyCounter` loads tiktoken when first asked (or in that thread while the
  request is in flight); the context engine fits the planning prompt without it when it can
  (`ContextEngine.planning_messages`). The runner starts that thread with the provider's
  `on_next_request`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import Any

from ..errors import NotFound
from ..store.execution_sql import Positional, under_directory
from ..store.history import HistoryQuery
from ..store.newest_first import newest_execution_rows

REQUEST_SETTLE_S = 0.02  # after the request hook: the request is written and the wait for the model begun


def run_later(delay: float, jobs: list[Any]) -> None:
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

    def __init__(self, open_store: Any, url: str, busy_timeout_ms: int = 5000) -> None:
        from ..store.sqlite_url import sqlite_file

        self._open_store = open_store  # () -> the real store
        self._path = sqlite_file(url)
        self._busy_timeout_ms = busy_timeout_ms
        self._lock = threading.Lock()
        self._store: Any = None
        self._claimed = False
        self._pending: list[tuple[str, Any]] = []
        if self._path is None:  # PostgreSQL, or an in-memory SQLite: open it now, as before
            run_later(0.0, [self.claim_opening()])

    # --- opening ---------------------------------------------------------------------------
    @property
    def opened(self) -> bool:
        return self._store is not None

    def claim_opening(self) -> Any:
        """From now on every call goes to the real store (the request is on its way); returns the
        job that opens it and writes what is held, for a background thread. Whichever thread comes
        first opens it; the other waits."""
        self._claimed = True
        return self.result

    def result(self) -> Any:
        """The real store, open, with every held write written (in order)."""
        with self._lock:
            if self._store is None:
                self._store = self._open_store()
            while self._pending:
                name, value = self._pending[0]
                getattr(self._store, name)(value)
                self._pending.pop(0)
            return self._store

    def _deferred(self) -> bool:
        """True while reads may go to sqlite3 and writes may be held: nothing has started opening."""
        return self._store is None and not self._claimed and self._path is not None

    def __getattr__(self, name: str) -> Any:  # everything else is the real store's
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.result(), name)

    # --- writes held until the store opens ---------------------------------------------------
    def save_session(self, session: Any) -> None:
        if self._deferred():
            self._pending.append(("save_session", session.model_copy(deep=True)))
        else:
            self.result().save_session(session)

    def save_conversation(self, conversation: Any) -> None:
        if self._deferred():
            self._pending.append(("save_conversation", conversation.model_copy(deep=True)))
        else:
            self.result().save_conversation(conversation)

    # --- reads the planning context needs -------------------------------------------------------
    def _raw(self, read: Any) -> Any:
        """read(connection) on a read-only sqlite3 connection; None when it cannot be used."""
        from ..store.history import FastPathUnavailable, fast_connection

        path = self._path
        if path is None or not self._deferred():
            return None
        try:
            with fast_connection(path, self._busy_timeout_ms) as connection:
                return read(connection)
        except (FastPathUnavailable, sqlite3.Error):
            self._path = None  # not a database this code can read: the real store from now on
            return None

    def load_session(self, session_id: str, history_limit: int = 1000) -> Any:
        def read(connection: sqlite3.Connection) -> Any:
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

    def query_executions(self, query: Any) -> list[Any]:
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


def _from_micros(value: int | None) -> Any:
    from ..store.micros import from_micros

    return None if value is None else from_micros(value)


def _newest(connection: sqlite3.Connection, query: Any) -> list[Any]:
    from ..store.rows import execution_from_row

    rows = newest_execution_rows(lambda sql, params: connection.execute(sql, params).fetchall(), query)
    return [execution_from_row(row) for row in rows]


def _session_from_row(row: sqlite3.Row, history: list[Any]) -> Any:
    from ..store.rows import session_from_row

    times = {name: _from_micros(row[name]) for name in ("created_at", "last_active", "ended_at")}
    return session_from_row({**dict(row), **times}, history)
