"""Commands a workflow ran are history rows of source "workflow" with their conversation's id
(revision 0003); `--source ai|user` filters them, on SQLite and PostgreSQL, through the store and
through `parsec history`'s raw-sqlite3 fast path alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from parsec.models.parsec_model import new_id
from parsec.models.session import DirectCommandExecution, Session
from parsec.store.history import HistoryQuery, fast_connection, history_sqlite, history_via_store
from parsec.store.protocols import ExecutionQuery
from parsec.store.sqlite_url import sqlite_file

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def execution(session: Session, i: int, command: str, **fields) -> DirectCommandExecution:
    return DirectCommandExecution(
        session_id=session.id, command=command, executed_at=T0 + timedelta(seconds=i), exit_status=0, **fields
    )


def test_workflow_commands_carry_their_conversation_and_filter_by_source(store, store_url):
    session = Session(shell="bash")
    store.save_session(session)
    conversation_id = new_id()
    mine = execution(session, 0, "make test")
    ran = execution(session, 1, "pytest -q", source="workflow", conversation_id=conversation_id)
    imported = execution(session, 2, "ls", source="import")
    store.append_executions([mine, ran, imported])

    ai = store.query_executions(ExecutionQuery(source="ai"))
    assert [(e.command, e.conversation_id) for e in ai] == [("pytest -q", conversation_id)]
    assert {e.command for e in store.query_executions(ExecutionQuery(source="user"))} == {"make test", "ls"}
    assert store.query_executions(ExecutionQuery(search="make"))[0].conversation_id is None

    via_store = history_via_store(store, HistoryQuery(source="ai"))
    assert [(r["command"], r["conversation_id"]) for r in via_store] == [("pytest -q", conversation_id)]
    path = sqlite_file(store_url)
    if path is not None:  # the fast path reads the same rows
        with fast_connection(path) as connection:
            fast = history_sqlite(connection, HistoryQuery(source="ai"))
        assert [(r["command"], r["conversation_id"], r["source"]) for r in fast] == [
            ("pytest -q", conversation_id, "workflow")
        ]
