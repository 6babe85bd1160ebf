"""Retention, per tier, in short batches.

Each batch is its own transaction of at most `policy.batch_size` rows, sized to hold the write
lock about BATCH_SECONDS, and the lock is then left free for YIELD_SECONDS so that the daemon's
writer gets in: it never waits much more than one batch (well under 100 ms). Conversations leave their achievements
behind (cross-conversation learning). On SQLite the freed pages go back to the file system with
`PRAGMA incremental_vacuum` (the store is created with auto_vacuum=INCREMENTAL).

The tiers (see docs/history.md):
- history — commands (text, time, exit, cwd, duration) and their sessions. Kept forever unless
  the user sets `history_retention_days` (sessions not active for that long go with their
  commands, and older commands of any session) or `max_sessions`;
- output — the captured stdout/stderr of commands older than `session_retention_days` is
  dropped; the command itself stays in the history;
- context — sessions not active for `session_retention_days` lose their context snapshot
  (environment, detected tools, project type); the session row stays;
- conversations — not updated for `conversation_retention_days`, and all but the newest
  `max_conversation_history`. A session's conversations have their own retention and stay.
A limit of 0 means "no limit".
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from sqlalchemy import Column, ColumnElement, Connection, Table, delete, func, select, text, true, update

from ..models.parsec_model import utcnow
from ..models.retention import RetentionPolicy
from ..models.workflow import Conversation
from .database import Database
from .protocols import PruneReport
from .rows import achievement_row
from .schema import achievements, conversations, executions, sessions
from .sql_engine import WRITE

KEYS_PER_STATEMENT = 500  # ids bound into one IN (...) list
# A writer that finds the store locked sleeps in SQLite's busy handler and retries after 1, 3, 8,
# 18, 33, 53, 78, 103 ms (steps of at most 25 ms). So a prune holds the write lock for at most
# BATCH_SECONDS per transaction and then leaves it free for YIELD_SECONDS, longer than the
# handler's step at that point: a waiting writer's next retry lands in the gap and its wait stays
# near BATCH_SECONDS plus one step. Taking the lock back at once (no gap) starved writers for
# over a second: they only got in when a retry happened to hit the microseconds between batches.
BATCH_SECONDS = 0.03  # the longest a batch should hold the write lock (a writer retrying at 33 ms gets in)
YIELD_SECONDS = 0.025  # the lock stays free this long after each batch
FIRST_BATCH = 500  # rows in the first batch, before the time per row is known
MIN_BATCH = 50
VACUUM_PAGES = 1000  # pages returned by the first incremental_vacuum step; later ones are timed
MAX_VACUUM_PAGES = 20_000


def prune(db: Database, policy: RetentionPolicy, *, dry_run: bool = False) -> PruneReport:
    now = utcnow()
    history_cutoff = _cutoff(now, policy.history_retention_days)
    aged_cutoff = _cutoff(now, policy.session_retention_days)
    conversation_cutoff = _cutoff(now, policy.conversation_retention_days)
    doomed_sessions = _doomed(db, sessions, sessions.c.last_active, history_cutoff, policy.max_sessions)
    doomed_conversations = _doomed(
        db, conversations, conversations.c.updated_at, conversation_cutoff, policy.max_conversation_history
    )
    old_executions = executions.c.executed_at < history_cutoff if history_cutoff is not None else None

    if dry_run:
        return PruneReport(
            sessions=len(doomed_sessions),
            executions=_count_executions(db, doomed_sessions, old_executions),
            outputs=_count_outputs(db, aged_cutoff, history_cutoff),
            contexts=len(_stale_contexts(db, aged_cutoff, doomed_sessions)),
            conversations=len(doomed_conversations),
            dry_run=True,
        )

    kept = 0
    for chunk in _chunks(doomed_conversations, min(KEYS_PER_STATEMENT, policy.batch_size)):
        kept += _drop_conversations(db, chunk, policy.keep_achievements)

    removed_executions = outputs = 0
    pacer = _Pacer(db, policy.batch_size)
    with pacer.connection() as connection:
        if history_cutoff is not None:  # first: it holds the commands of most doomed sessions too
            removed_executions += _delete_older(connection, history_cutoff, pacer)
        for chunk in _chunks(doomed_sessions, KEYS_PER_STATEMENT):
            removed_executions += _delete_where(connection, executions.c.session_id.in_(chunk), pacer)
            with connection.begin():
                connection.execute(delete(sessions).where(sessions.c.id.in_(chunk)))
        if aged_cutoff is not None:
            outputs = _drop_outputs(connection, aged_cutoff, pacer)
    contexts = _drop_contexts(db, _stale_contexts(db, aged_cutoff, []))

    freed = give_space_back(db) if db.dialect == "sqlite" else 0
    return PruneReport(
        sessions=len(doomed_sessions),
        executions=removed_executions,
        outputs=outputs,
        contexts=contexts,
        conversations=len(doomed_conversations),
        achievements_kept=kept,
        bytes_freed=freed,
    )


def _cutoff(now, days: int):
    return now - timedelta(days=days) if days else None


def _doomed(db: Database, table: Table, when: Column, cutoff, keep: int) -> list[str]:
    """Ids older than `cutoff` or beyond the newest `keep` rows."""
    with db.read() as connection:
        found: set[str] = set()
        if cutoff is not None:
            found.update(connection.execute(select(table.c.id).where(when < cutoff)).scalars())
        if keep:
            beyond = select(table.c.id).order_by(when.desc(), table.c.id.desc()).offset(keep)
            found.update(connection.execute(beyond).scalars())
    return sorted(found)


def _count_executions(db: Database, doomed_sessions: list[str], old: ColumnElement[bool] | None) -> int:
    total = 0
    with db.read() as connection:
        for chunk in _chunks(doomed_sessions, KEYS_PER_STATEMENT):
            total += connection.execute(
                select(func.count()).select_from(executions).where(executions.c.session_id.in_(chunk))
            ).scalar_one()
        if old is not None:
            survivors = select(sessions.c.id).where(sessions.c.id.in_(doomed_sessions)) if doomed_sessions else None
            condition = old if survivors is None else old & executions.c.session_id.not_in(survivors)
            total += connection.execute(select(func.count()).select_from(executions).where(condition)).scalar_one()
    return total


_HAS_OUTPUT = executions.c.stdout.is_not(None) | executions.c.stderr.is_not(None)


def _count_outputs(db: Database, cutoff, history_cutoff) -> int:
    """Commands older than `cutoff` that still carry output (and that the history tier keeps)."""
    if cutoff is None:
        return 0
    condition = (executions.c.executed_at < cutoff) & _HAS_OUTPUT
    if history_cutoff is not None:
        condition &= executions.c.executed_at >= history_cutoff
    with db.read() as connection:
        return connection.execute(select(func.count()).select_from(executions).where(condition)).scalar_one()


def _drop_outputs(connection: Connection, cutoff, pacer: _Pacer) -> int:
    """Set stdout/stderr to NULL on commands older than `cutoff`, oldest first, in paced batches.

    Each batch is a range of the executed_at index: an index-only probe finds where the next
    `size` rows end, and one UPDATE clears the range (rows already without output are skipped by
    its condition). One statement per batch, no key lists: about ten times the rate of selecting
    keys and updating by them. The full-text index, on `command` only, is not touched."""
    when = executions.c.executed_at
    cleared, after = 0, None
    while True:
        size = pacer.size
        lower = (when > after) if after is not None else true()
        started = time.monotonic()
        with connection.begin():
            edge = connection.execute(
                select(when).where(lower & (when < cutoff)).order_by(when).offset(size - 1).limit(1)
            ).scalar()
            upper = (when <= edge) if edge is not None else (when < cutoff)
            cleared += connection.execute(
                update(executions).where(lower & upper & _HAS_OUTPUT).values(stdout=None, stderr=None)
            ).rowcount
        pacer.took(size if edge is not None else 0, time.monotonic() - started)
        if edge is None:
            return cleared
        after = edge


def _stale_contexts(db: Database, cutoff, doomed: list[str]) -> list[tuple[str, dict]]:
    """Sessions not active since `cutoff` whose context snapshot is not empty yet, with their data."""
    if cutoff is None:
        return []
    going = set(doomed)
    stale = []
    with db.read() as connection:
        found = connection.execute(select(sessions.c.id, sessions.c.data).where(sessions.c.last_active < cutoff))
        for session_id, raw in found:
            data = json.loads(raw or "{}")
            context = data.get("global_context") or {}
            if session_id not in going and (
                context.get("environment_snapshot")
                or context.get("active_tools")
                or context.get("detected_project_type")
            ):
                stale.append((session_id, data))
    return stale


def _drop_contexts(db: Database, stale: list[tuple[str, dict]]) -> int:
    """Empty the environment snapshot, tools and project type; the working directory stays."""
    for chunk in _chunks(stale, KEYS_PER_STATEMENT):
        with db.write() as connection:
            for session_id, data in chunk:
                context = data.setdefault("global_context", {})
                context.update(environment_snapshot={}, active_tools=[], detected_project_type=None)
                connection.execute(update(sessions).where(sessions.c.id == session_id).values(data=json.dumps(data)))
    return len(stale)


class _Pacer:
    """The connection that deletes, and the pace of its batches.

    Batches are sized from the time the last one took, so each holds the write lock about
    BATCH_SECONDS (a slow disk, a big full-text index, a cold cache), and the lock is left free
    for YIELD_SECONDS after each one so that a concurrent writer gets in (see above).

    On SQLite the connection's own commits do not checkpoint the WAL (wal_autocheckpoint 0, put
    back afterwards): a checkpoint inside the commit lengthened every third batch or so by tens
    of milliseconds. The pacer checkpoints (PASSIVE: it never waits for, nor blocks, a writer)
    between batches instead, in the time it leaves the lock free anyway, after every batch: a
    writer's own commit checkpoints whatever the WAL holds unchecked (its wal_autocheckpoint), so
    checkpointing only once a second saved the prune ~14 % of its CPU but made the writer copy
    the prune's pages: its median wait went from 10 to 23 ms, p99 from 116 to 178 ms."""

    def __init__(self, db: Database, batch_size: int) -> None:
        self.db = db
        self.sqlite = db.dialect == "sqlite"
        self.limit = batch_size
        self.size = max(1, min(batch_size, FIRST_BATCH))

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        with self.db.errors(), self.db.engine.connect() as connection:
            connection.execution_options(**WRITE)
            raw = connection.connection.driver_connection if self.sqlite else None
            previous: Any = raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] if raw is not None else None
            if raw is not None:
                raw.execute("PRAGMA wal_autocheckpoint = 0")
            self.raw: Any = raw
            try:
                yield connection
            finally:
                if raw is not None:
                    raw.execute(f"PRAGMA wal_autocheckpoint = {int(previous)}")
                    raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def took(self, rows: int, elapsed: float) -> None:
        if self.sqlite:
            started = time.monotonic()
            self.raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            rest = YIELD_SECONDS - (time.monotonic() - started)
            if rest > 0:
                time.sleep(rest)
        if rows < self.size:
            return  # a short batch says nothing about the time per row
        # Aim at BATCH_SECONDS from the rate just measured; at most double or halve per step.
        target = self.size * BATCH_SECONDS / max(elapsed, 1e-4)
        self.size = int(min(self.limit, max(MIN_BATCH, self.size / 2, min(target, self.size * 2))))


def _delete_older(connection: Connection, cutoff, pacer: _Pacer) -> int:
    """Delete commands older than `cutoff`, oldest first, in batches paced by `pacer`.

    Each batch is a range of the executed_at index, as in _drop_outputs: an index-only probe
    finds where the next `size` rows end and one DELETE removes the range, with no list of keys
    to build and look up row by row."""
    when = executions.c.executed_at
    removed = 0
    while True:
        size = pacer.size
        started = time.monotonic()
        with connection.begin():
            edge = connection.execute(
                select(when).where(when < cutoff).order_by(when).offset(size - 1).limit(1)
            ).scalar()
            upper = (when <= edge) if edge is not None else true()
            # The edge first: with two bound upper limits SQLite 3.40 ranges the index by the first
            # one written; cutoff first read every row below the cutoff (1,000-row batch of a 1M
            # store: 103 ms instead of 0.05 ms).
            count = connection.execute(delete(executions).where(upper & (when < cutoff))).rowcount
        removed += count
        pacer.took(size if edge is not None else 0, time.monotonic() - started)
        if edge is None:
            return removed


def _delete_where(connection: Connection, condition: ColumnElement[bool], pacer: _Pacer) -> int:
    """Delete matching executions in batches paced by `pacer`, each its own transaction.

    Each batch is one DELETE statement: FTS5 (SQLite 3.40) writes its pending index changes out
    at every statement, so one statement per batch keeps the full-text work per row low."""
    removed = 0
    while True:
        size = pacer.size
        batch = select(executions.c.seq).where(condition).limit(size).scalar_subquery()
        started = time.monotonic()
        with connection.begin():
            count = connection.execute(delete(executions).where(executions.c.seq.in_(batch))).rowcount
        removed += count
        pacer.took(count, time.monotonic() - started)
        if count < size:
            return removed


def delete_in_batches(
    db: Database, table: Table, key: Column, keys: list, *, batch_size: int, secure: bool = False
) -> int:
    """Delete rows whose `key` is in `keys`, a short transaction per batch. `secure` (SQLite)
    overwrites the deleted content with zeros instead of leaving it in free pages."""
    removed = 0
    for chunk in _chunks(keys, min(batch_size, KEYS_PER_STATEMENT)):
        with db.write() as connection:
            if secure and db.dialect == "sqlite":
                connection.exec_driver_sql("PRAGMA secure_delete = ON")
            removed += connection.execute(delete(table).where(key.in_(chunk))).rowcount
    return removed


def _drop_conversations(db: Database, ids: list[str], keep_achievements: bool) -> int:
    kept = 0
    with db.write() as connection:
        if keep_achievements:
            saved = set(
                connection.execute(
                    select(achievements.c.conversation_id).where(achievements.c.conversation_id.in_(ids))
                ).scalars()
            )
            found = connection.execute(
                select(conversations.c.id, conversations.c.data).where(conversations.c.id.in_(ids))
            ).all()
            for conversation_id, data in found:
                if conversation_id not in saved and _remember(db, connection, data):
                    kept += 1
        connection.execute(delete(conversations).where(conversations.c.id.in_(ids)))
    return kept


def _remember(db: Database, connection, data: str) -> bool:
    """Save a conversation's achievements before it goes; False when it achieved nothing."""
    conversation = Conversation.model_validate_json(data)
    summary = conversation.context_summary
    artifacts = [artifact.path for artifact in summary.generated_artifacts]
    if not summary.key_achievements and not artifacts:
        return False
    row = achievement_row(
        conversation.id,
        conversation.name,
        conversation.working_directory,
        summary.key_achievements,
        artifacts,
        conversation.finished_at or conversation.updated_at,
    )
    connection.execute(db.upsert(achievements, row, key="conversation_id"))
    return True


def give_space_back(db: Database, *, truncate_wal: bool = False) -> int:
    """Return free pages to the file system in short steps; the bytes the database shrank by.

    The full-text index is not merged here: deleted rows leave tombstones in its segments that
    FTS5's automerge folds away as new rows arrive. An explicit FTS5 'merge' running while the
    daemon writes from another connection corrupted the index once in the 1M-row benchmark
    (SQLite 3.40), so retention never issues one.

    Runs on a raw connection in autocommit mode: each step is its own short write transaction.
    The WAL is checkpointed PASSIVE (never waits for, nor blocks, the daemon's writer) unless
    `truncate_wal`, which forget_executions uses so forgotten text leaves the WAL file too."""
    with db.errors():
        raw: Any = db.engine.raw_connection()
        try:
            cursor = raw.cursor()
            page_size = cursor.execute("PRAGMA page_size").fetchone()[0]
            pages_before = cursor.execute("PRAGMA page_count").fetchone()[0]
            autocheckpoint = cursor.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
            cursor.execute("PRAGMA wal_autocheckpoint = 0")  # checkpoints go between steps (_Pacer)
            try:
                pages = VACUUM_PAGES
                while cursor.execute("PRAGMA freelist_count").fetchone()[0]:
                    started = time.monotonic()
                    # executescript steps the pragma to the end; execute() frees a single page.
                    raw.driver_connection.executescript(f"PRAGMA incremental_vacuum({pages})")
                    elapsed = time.monotonic() - started
                    cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    rest = YIELD_SECONDS - (time.monotonic() - started - elapsed)
                    if rest > 0:
                        time.sleep(rest)  # a waiting writer gets in between steps
                    target = pages * BATCH_SECONDS / max(elapsed, 1e-4)
                    pages = int(min(MAX_VACUUM_PAGES, max(MIN_BATCH, pages / 2, min(target, pages * 2))))
            finally:
                cursor.execute(f"PRAGMA wal_autocheckpoint = {int(autocheckpoint)}")
            pages_after = cursor.execute("PRAGMA page_count").fetchone()[0]
            mode = "TRUNCATE" if truncate_wal else "PASSIVE"
            cursor.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
        finally:
            raw.close()
    return max(0, pages_before - pages_after) * page_size


def scrub_sqlite(db: Database) -> None:
    """After forgetting rows: merge the full-text index so deleted text leaves its segments,
    zero the freed pages, return them, and truncate the WAL that still held the old text."""
    with db.write() as connection:
        connection.exec_driver_sql("PRAGMA secure_delete = ON")
        connection.execute(text("INSERT INTO executions_fts(executions_fts) VALUES ('optimize')"))
    give_space_back(db, truncate_wal=True)


def _chunks(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start : start + size]


__all__ = ["prune", "delete_in_batches", "give_space_back", "scrub_sqlite"]
