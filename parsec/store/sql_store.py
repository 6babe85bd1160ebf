"""SqlStore: the ContextStore on SQLAlchemy 2 (SQLite or PostgreSQL).

Every public method runs in its own short transaction; writes on SQLite take the write lock up
front (BEGIN IMMEDIATE) so concurrent writers wait on the busy timeout instead of failing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, case, func, select

from ..errors import NotFound
from ..models.retention import RetentionPolicy
from ..models.session import DirectCommandExecution, Session
from . import rows
from .achievements import Achievements
from .conversations import Conversations
from .database import Database
from .execution_insert import (
    EXECUTION_COLUMNS,
    INSERT_CHUNK,
    QUOTED_COLUMNS,
    session_spans,
    sqlite_inserts,
)
from .forgetting import Forgetting
from .llm_usage import LlmUsage
from .newest_first import newest_execution_rows
from .preferences import Preferences
from .protocols import ExecutionQuery, ExecutionRecord, PruneReport, SessionSummary
from .queries import NEWEST_FIRST, execution_conditions
from .schema import (
    conversations,
    executions,
    from_micros,
    sessions,
    to_micros,
)


class SqlStore(Conversations, Preferences, LlmUsage, Achievements, Forgetting):
    """Sessions and their commands (here), and by concept: conversations.py, preferences.py,
    llm_usage.py, achievements.py, forgetting.py (each a part of this class, sharing its `db`)."""

    def __init__(self, engine: Engine, url: str) -> None:
        self.db = Database(engine, url)

    # The database's, read here by the store's users (open.py, the daemon, the benchmarks).
    @property
    def engine(self) -> Engine:
        return self.db.engine

    @property
    def url(self) -> str:
        return self.db.url

    @property
    def dialect(self) -> str:
        return self.db.dialect

    def close(self) -> None:
        self.engine.dispose()

    # --- sessions ----------------------------------------------------------------------------

    def save_session(self, session: Session) -> None:
        statement = self.db.upsert(sessions, rows.session_row(session), key="id")
        with self.db.write() as connection:
            connection.execute(statement)
            if session.command_history:
                self._insert_executions(connection, session.command_history)

    def load_session(self, session_id: str, history_limit: int = 1000) -> Session:
        """The session with its newest `history_limit` executions, oldest first."""
        with self.db.read() as connection:
            row = connection.execute(select(sessions).where(sessions.c.id == session_id)).mappings().first()
            if row is None:
                raise NotFound(f"no session {session_id}; `parsec sessions` lists them")
            history = (
                connection.execute(
                    select(executions)
                    .where(executions.c.session_id == session_id)
                    .order_by(*NEWEST_FIRST)
                    .limit(history_limit)
                )
                .mappings()
                .all()
            )
        return rows.session_from_row(row, [rows.execution_from_row(r) for r in reversed(history)])

    def list_sessions(self, limit: int = 50, open_only: bool = False) -> list[SessionSummary]:
        statement = select(sessions).order_by(sessions.c.last_active.desc(), sessions.c.id.desc())
        if open_only:
            statement = statement.where(sessions.c.ended_at.is_(None))
        with self.db.read() as connection:
            found = connection.execute(statement.limit(limit)).mappings().all()
            ids = [row["id"] for row in found]
            counts = self._session_counts(connection, ids)
        summaries = []
        for row in found:
            commands, failed, convs = counts.get(row["id"], (0, 0, 0))
            summaries.append(SessionSummary(rows.session_from_row(row, []), commands, failed, convs))
        return summaries

    def _session_counts(self, connection: Connection, ids: list[str]) -> dict[str, tuple[int, int, int]]:
        if not ids:
            return {}
        failed = func.sum(case((executions.c.exit_status != 0, 1), else_=0))
        per_session = connection.execute(
            select(executions.c.session_id, func.count(), failed)
            .where(executions.c.session_id.in_(ids))
            .group_by(executions.c.session_id)
        ).all()
        convs: dict[str, int] = dict(
            connection.execute(
                select(conversations.c.session_id, func.count())
                .where(conversations.c.session_id.in_(ids))
                .group_by(conversations.c.session_id)
            ).all()
        )
        result = {sid: (0, 0, convs.get(sid, 0)) for sid in ids}
        for sid, count, failures in per_session:
            result[sid] = (count, int(failures or 0), convs.get(sid, 0))
        return result

    # --- executions --------------------------------------------------------------------------

    def append_executions(self, executions: Iterable[ExecutionRecord]) -> int:
        """Record executions in one transaction; an id already stored is skipped (retries are safe).

        Returns how many rows were new. A session that is not stored yet is created from its
        executions, and every session's last_active moves forward to its newest execution."""
        batch = list(executions)
        if not batch:
            return 0
        with self.db.write() as connection:
            return self._insert_executions(connection, batch)

    def _insert_executions(self, connection: Connection, batch: Sequence[ExecutionRecord]) -> int:
        self._touch_sessions(connection, batch)
        if self.dialect == "sqlite":
            return sum(
                int(connection.exec_driver_sql(statement, tuple(values)).rowcount)
                for statement, values in sqlite_inserts(batch)
            )
        # PostgreSQL: psycopg's own executemany (pipelined) sums rowcount; SQLAlchemy's batched
        # VALUES form reports -1, and RETURNING to count rows costs 4x the insert.
        inserted = 0
        for start in range(0, len(batch), INSERT_CHUNK):
            chunk = [rows.execution_row(item) for item in batch[start : start + INSERT_CHUNK]]
            values = [tuple(row[name] for name in EXECUTION_COLUMNS) for row in chunk]
            inserted += connection.exec_driver_sql(_PG_INSERT, values).rowcount
        return inserted

    def _touch_sessions(self, connection: Connection, batch: Sequence[ExecutionRecord]) -> None:
        spans = session_spans(batch)
        statement = self.db.insert(sessions)
        newest = func.greatest if self.dialect == "postgresql" else func.max
        statement = statement.on_conflict_do_update(
            index_elements=["id"],
            set_={"last_active": newest(sessions.c.last_active, statement.excluded.last_active)},
        )
        connection.execute(statement, spans)

    def query_executions(self, query: ExecutionQuery) -> list[DirectCommandExecution]:
        found: Sequence[Mapping[Any, Any]]
        with self.db.read() as connection:
            if self.dialect == "sqlite":  # the plans `parsec history` runs with sqlite3 (newest_first.py)
                found = newest_execution_rows(
                    lambda sql, params: connection.exec_driver_sql(sql, tuple(params)).fetchall(),
                    query,
                    query.before_id,
                )
            else:
                conditions = execution_conditions(connection, query)
                if conditions is None:
                    return []
                statement = select(executions).where(*conditions).order_by(*NEWEST_FIRST)
                if query.limit and query.limit > 0:
                    statement = statement.limit(query.limit)
                found = connection.execute(statement).mappings().all()
        return [rows.execution_from_row(row) for row in found]

    def count_executions(self, query: ExecutionQuery | None = None) -> int:
        with self.db.read() as connection:
            conditions = execution_conditions(connection, query or ExecutionQuery())
            if conditions is None:
                return 0
            return connection.execute(select(func.count()).select_from(executions).where(*conditions)).scalar_one()

    def recorded_times(self, commands: list[str], since: datetime, until: datetime) -> list[tuple[str, str, datetime]]:
        """(id, command, executed_at) of commands recorded by a shell hook (not imported) whose text
        is one of `commands`, in [since, until): what an import matches its entries against."""
        condition = (
            (executions.c.executed_at >= since)
            & (executions.c.executed_at < until)
            & (executions.c.source != "import")
            & executions.c.command.in_(commands)
        )
        with self.db.read() as connection:
            found = connection.execute(
                select(executions.c.id, executions.c.command, executions.c.executed_at).where(condition)
            )
            return [tuple(row) for row in found]

    def recorded_counts(self, shell: str, host: str) -> tuple[dict[str, int], datetime | None]:
        """How often each command was recorded by `shell`'s hooks on `host` (not imported), and
        the oldest such record's time: what an import of an undated history file from that host
        matches its lines against (another machine's live records in a shared store are not its
        lines). A session whose shell is not known yet counts as `shell`'s."""
        condition = ((executions.c.source != "import") & (executions.c.host == host)) & executions.c.session_id.in_(
            select(sessions.c.id).where(sessions.c.shell.in_([shell, ""]))
        )
        with self.db.read() as connection:
            counts = connection.execute(
                select(executions.c.command, func.count()).where(condition).group_by(executions.c.command)
            ).all()
            oldest = connection.execute(select(func.min(executions.c.executed_at)).where(condition)).scalar()
        return {command: count for command, count in counts}, oldest

    # --- retention ---------------------------------------------------------------------------

    def prune_old_context(self, policy: RetentionPolicy, dry_run: bool = False) -> PruneReport:
        from .prune import prune

        with self.db.errors():
            return prune(self.db, policy, dry_run=dry_run)


_PG_INSERT = (
    f"INSERT INTO executions ({QUOTED_COLUMNS}) VALUES ({', '.join(['%s'] * len(EXECUTION_COLUMNS))}) "
    "ON CONFLICT (id) DO NOTHING"
)


__all__ = ["SqlStore", "from_micros", "to_micros"]
