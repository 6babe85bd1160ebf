"""The start of `parsec ask` reads the planning context with sqlite3 (workflow/run/quickstart.py's
DeferredStore) before SQLAlchemy is loaded. It must answer exactly what the store answers on the
same SQLite file: the same filters (store/execution_sql.py), the same order, the same rows."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from history.test_queries import _reference as filtered_by_python

from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store
from parsec.store.protocols import ExecutionQuery
from parsec.workflow.run.quickstart import DeferredStore

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
DIRS = ["/home/me/app", "/home/me/app/src", "/home/me/apple", "/home/me", "/tmp", "/"]


@pytest.fixture
def filled(sqlite_url):
    store = open_store(sqlite_url)
    rng = random.Random(4)
    sessions = [Session(shell="zsh", host="laptop", user="me", created_at=T0, last_active=T0) for _ in range(2)]
    for session in sessions:
        store.save_session(session)
    items = [
        DirectCommandExecution(
            session_id=rng.choice(sessions).id,
            command=f"{rng.choice(['make test', 'git status', 'ls -la', 'echo 50%_off'])} {i}",
            executed_at=T0 + timedelta(seconds=i * 11 + rng.randint(0, 3)),
            exit_status=rng.choice([0, 0, 1, 127, None]),
            duration_ms=rng.randint(0, 900),
            working_directory=rng.choice(DIRS),
            host=rng.choice(["laptop", "server"]),
            user="me",
        )
        for i in range(300)
    ]
    store.append_executions(items)
    for n, directory in enumerate([*DIRS, "/home/me/app/"]):
        store.save_achievements(
            f"conv{n}", f"task {n}", directory, [f"did {n}"], [f"{directory}/f{n}"], T0 + timedelta(minutes=n)
        )
    yield store, sessions, items
    store.close()


def _deferred(store, url: str) -> DeferredStore:
    return DeferredStore(lambda: store, url)


def _queries(sessions: list[Session]) -> list[ExecutionQuery]:
    return [
        ExecutionQuery(limit=200),
        ExecutionQuery(limit=0),
        ExecutionQuery(session_id=sessions[0].id, limit=40),
        ExecutionQuery(cwd="/home/me/app", limit=0),
        ExecutionQuery(cwd="/home/me/app", cwd_subtree=True, limit=25),
        ExecutionQuery(cwd="/home/me/app/", cwd_subtree=True, failed=True, limit=0),
        ExecutionQuery(cwd="/", cwd_subtree=True, exit_status=127, limit=10),
        ExecutionQuery(failed=False, host="server", limit=30),
        ExecutionQuery(since=T0 + timedelta(minutes=5), until=T0 + timedelta(minutes=20), limit=0),
    ]


def test_executions_read_by_sqlite3_are_the_stores(filled, sqlite_url) -> None:
    store, sessions, items = filled
    for query in _queries(sessions):
        deferred = _deferred(store, sqlite_url)
        fast = deferred.query_executions(query)
        assert not deferred.opened, "the read went to the store, not sqlite3"
        assert fast == store.query_executions(query), query
        # The store runs the same SQL (store/execution_sql.py, newest_first.py): the outside
        # truth is a plain Python filter over what was recorded.
        assert [e.id for e in fast] == filtered_by_python(items, query), query
        assert fast, f"no rows: a query that tests nothing ({query})"


def test_achievements_read_by_sqlite3_are_the_stores(filled, sqlite_url) -> None:
    store, *_ = filled
    for cwd in (None, "/home/me/app", "/home/me/app/", "/home/me", "/", "/nowhere"):
        deferred = _deferred(store, sqlite_url)
        fast = deferred.recent_achievements(cwd, limit=5)
        assert not deferred.opened
        assert fast == store.recent_achievements(cwd, limit=5), cwd
    assert {a["working_directory"] for a in store.recent_achievements("/home/me/app", limit=20)} == {
        "/home/me/app",
        "/home/me/app/src",
        "/home/me/app/",
    }


def test_session_read_by_sqlite3_is_the_stores(filled, sqlite_url) -> None:
    store, sessions, _ = filled
    deferred = _deferred(store, sqlite_url)
    fast = deferred.load_session(sessions[1].id, history_limit=30)
    assert not deferred.opened
    assert fast == store.load_session(sessions[1].id, history_limit=30)
    assert len(fast.command_history) == 30


def test_searches_read_by_sqlite3_are_the_stores(filled, sqlite_url) -> None:
    store, *_ = filled
    for query in (
        ExecutionQuery(search="50%_ 1", limit=0),
        ExecutionQuery(search="make test", limit=7),  # the windowed plan
        ExecutionQuery(search="git", cwd="/home/me", cwd_subtree=True, failed=True, limit=5),
    ):
        deferred = _deferred(store, sqlite_url)
        fast = deferred.query_executions(query)
        assert not deferred.opened
        assert fast == store.query_executions(query) and fast, query


def test_a_page_goes_to_the_store(filled, sqlite_url) -> None:
    store, *_ = filled
    first = store.query_executions(ExecutionQuery(limit=5))
    deferred = _deferred(store, sqlite_url)
    query = ExecutionQuery(limit=5, before_id=first[-1].id)
    assert deferred.query_executions(query) == store.query_executions(query)
    assert deferred.opened


def test_writes_through_sqlite3_are_what_the_store_reads_back(filled, sqlite_url) -> None:
    """After the planning request the workflow's writes go to the file through sqlite3, without
    SQLAlchemy: the store reads back exactly what was written (issue 26, item 5)."""
    from parsec.models.workflow import Conversation, WorkflowPlan

    store, sessions, _ = filled
    deferred = _deferred(store, sqlite_url)
    session = Session(shell="bash", user="me", created_at=T0, last_active=T0)
    deferred.save_session(session)  # before the request: held
    conversation = Conversation(session_id=session.id, name="x", original_prompt="do x", created_at=T0)
    deferred.save_conversation(conversation)
    deferred.claim_opening()()  # the request went out: what was held is written
    conversation.set_plan(WorkflowPlan.from_descriptions(["one", "two"]))
    deferred.save_conversation(conversation)  # written at once, an upsert on the id
    deferred.record_llm_usage("openai", "m", "plan", 10, 3, conversation_id=conversation.id)
    deferred.save_achievements(conversation.id, "x", "/home/me", ["did x"], ["/home/me/x"], T0 + timedelta(days=1))
    assert not deferred.opened, "the writes went through sqlite3, not the store"
    assert store.load_session(session.id) == session
    written = _row(sqlite_url, "conversations", conversation.id)
    store.save_conversation(conversation)  # the store's own write of the same conversation
    assert written == _row(sqlite_url, "conversations", conversation.id) and written is not None
    assert [row["calls"] for row in store.llm_usage_summary()] == [1]
    assert store.recent_achievements("/home/me", limit=1)[0]["achievements"] == ["did x"]
    deferred.close()
    assert not deferred.opened


def _row(sqlite_url: str, table: str, key: str) -> tuple | None:
    import sqlite3

    from parsec.store.sqlite_url import sqlite_file

    with sqlite3.connect(str(sqlite_file(sqlite_url))) as connection:
        return connection.execute(f"SELECT * FROM {table} WHERE id = ?", (key,)).fetchone()


def test_history_rows_are_written_through_sqlite3_as_the_store_writes_them(filled, sqlite_url) -> None:
    """The commands a workflow ran join the history without the store being opened (SQLAlchemy
    at exit cost ~200 ms of CPU; issue 26, item 5): the store reads back exactly those rows, with
    their sessions touched (an unknown one created), and a retried row is not written twice."""
    from parsec.models.text import TruncatedText
    from parsec.store.sqlite_url import sqlite_file
    from parsec.store.sqlite_writer import SqliteWriter

    store, sessions, _ = filled
    opened = []

    def open_store_later():
        opened.append(True)
        return store

    deferred = DeferredStore(open_store_later, sqlite_url)
    deferred.claim_opening()()
    later = T0 + timedelta(days=3)
    ran = DirectCommandExecution(
        session_id=sessions[0].id,
        command="echo from a workflow 'héllo' 😀",
        executed_at=later,
        exit_status=0,
        duration_ms=12,
        working_directory="/home/me/app",
        cwd_after="/home/me/app/src",
        stdout=TruncatedText.from_output("héllo\n", limit=100),
        source="ai",
        conversation_id="C" * 26,
    )
    stranger = DirectCommandExecution(session_id="S" * 26, command="true", executed_at=later, host="box", user="me")
    assert deferred.append_executions([ran, stranger]) == 2
    deferred.close()
    assert opened == [], "the history rows went through the store"
    assert store.query_executions(ExecutionQuery(search="from a workflow")) == [ran]
    assert store.load_session(sessions[0].id, history_limit=0).last_active == later
    assert store.load_session("S" * 26, history_limit=1).command_history == [stranger]
    writer = SqliteWriter(sqlite_file(sqlite_url))
    assert writer.append_executions([ran, stranger]) == 0  # a retried batch adds nothing
    session = Session(shell="bash", user="me", created_at=later, last_active=later)
    session.command_history = [DirectCommandExecution(session_id=session.id, command="ls", executed_at=later)]
    writer.save_session(session)
    writer.close()
    assert store.load_session(session.id) == session
