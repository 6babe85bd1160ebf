"""Retention: what prune_old_context removes, what it keeps, and the space it gives back."""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import timedelta

from parsec.models.context import ArtifactInfo, ContextSummary
from parsec.models.parsec_model import utcnow
from parsec.models.retention import RetentionPolicy
from parsec.models.session import DirectCommandExecution, GlobalContext, Session
from parsec.models.text import TruncatedText
from parsec.models.workflow import Conversation
from parsec.store import open_store
from parsec.store.protocols import ExecutionQuery

NOW = utcnow()


def days_ago(days: float):
    return NOW - timedelta(days=days)


def add_session(store, age_days: float, commands: int = 3) -> Session:
    session = Session(created_at=days_ago(age_days), last_active=days_ago(age_days))
    store.save_session(session)
    store.append_executions(
        DirectCommandExecution(session_id=session.id, command=f"cmd {i}", executed_at=days_ago(age_days))
        for i in range(commands)
    )
    return session


def add_conversation(store, age_days: float, achievements: list[str] | None = None) -> Conversation:
    conversation = Conversation(
        session_id=add_session(store, 1, 0).id,
        name=f"c{age_days}",
        original_prompt="do it",
        created_at=days_ago(age_days),
        updated_at=days_ago(age_days),
        working_directory="/srv",
        context_summary=ContextSummary(
            key_achievements=achievements or [],
            generated_artifacts=[ArtifactInfo(path="out.txt")] if achievements else [],
        ),
    )
    store.save_conversation(conversation)
    return conversation


def test_old_sessions_and_their_executions_go(store):
    old, new = add_session(store, 40), add_session(store, 2)
    policy = RetentionPolicy(history_retention_days=30, conversation_retention_days=0, max_conversation_history=0)
    report = store.prune_old_context(policy)
    assert (report.sessions, report.executions) == (1, 3)
    assert [s.session.id for s in store.list_sessions()] == [new.id]
    assert store.count_executions(ExecutionQuery(session_id=old.id)) == 0
    assert store.count_executions(ExecutionQuery(search="cmd")) == 3  # the index forgot them too


def test_history_is_kept_forever_by_default_while_output_and_context_age_out(store):
    """Five-year-old history (imported, or simply old) survives the default policy; only the bulky
    tiers go: captured output and the session's context snapshot."""
    ancient = Session(
        created_at=days_ago(5 * 365),
        last_active=days_ago(5 * 365),
        global_context=GlobalContext(
            working_directory="/srv", environment_snapshot={"LANG": "C"}, active_tools=["git"]
        ),
    )
    store.save_session(ancient)
    store.append_executions(
        DirectCommandExecution(
            session_id=ancient.id,
            command=f"make {i}",
            executed_at=days_ago(5 * 365 - i),
            exit_status=1,
            working_directory="/srv",
            duration_ms=12,
            stdout=TruncatedText.from_output("built\n"),
            stderr=TruncatedText.from_output("warn\n"),
        )
        for i in range(40)
    )
    recent = add_session(store, 1, commands=2)
    store.append_executions(
        [DirectCommandExecution(session_id=recent.id, command="fresh", stdout=TruncatedText.from_output("x"))]
    )
    dry = store.prune_old_context(RetentionPolicy(), dry_run=True)
    assert (dry.sessions, dry.executions, dry.outputs, dry.contexts) == (0, 0, 40, 1)
    report = store.prune_old_context(RetentionPolicy(batch_size=7))
    assert (report.sessions, report.executions, report.outputs, report.contexts) == (0, 0, 40, 1)
    kept = store.load_session(ancient.id)
    assert [e.command for e in kept.command_history] == [f"make {i}" for i in range(40)]
    assert all(
        e.exit_status == 1 and e.working_directory == "/srv" and e.duration_ms == 12 for e in kept.command_history
    )
    assert all(e.stdout is None and e.stderr is None for e in kept.command_history)
    assert kept.global_context == GlobalContext(working_directory="/srv")
    [fresh] = store.query_executions(ExecutionQuery(search="fresh"))
    assert fresh.stdout is not None  # recent output stays
    assert store.prune_old_context(RetentionPolicy()).outputs == 0  # nothing left to drop


def test_old_executions_of_a_live_session_go(store):
    session = add_session(store, 1)
    store.append_executions(
        [DirectCommandExecution(session_id=session.id, command="ancient", executed_at=days_ago(60))]
    )
    report = store.prune_old_context(RetentionPolicy(history_retention_days=30))
    assert report.executions == 1 and report.sessions == 0
    assert store.count_executions() == 3


def test_full_text_search_after_a_prune_finds_the_survivors_only(store):
    """Old commands of a live session go in several batches (batch_size 7); the full-text index
    forgets exactly those and still finds every command that stays."""
    session = add_session(store, 1, commands=0)
    store.append_executions(
        DirectCommandExecution(session_id=session.id, command=f"deploy pruned-needle {i}", executed_at=days_ago(45))
        for i in range(40)
    )
    store.append_executions(
        DirectCommandExecution(
            session_id=session.id, command=f"deploy kept-needle {i}", executed_at=days_ago(29 - i / 10)
        )
        for i in range(30)
    )
    report = store.prune_old_context(RetentionPolicy(history_retention_days=30, batch_size=7))
    assert report.executions == 40
    assert store.count_executions(ExecutionQuery(search="pruned-needle")) == 0
    found = store.query_executions(ExecutionQuery(search="needle", limit=100))
    assert sorted(e.command for e in found) == sorted(f"deploy kept-needle {i}" for i in range(30))
    assert len(store.query_executions(ExecutionQuery(search="kept-needle 17"))) == 1


def test_max_sessions_keeps_the_newest(store):
    sessions = [add_session(store, age) for age in (5, 4, 3, 2, 1)]
    report = store.prune_old_context(RetentionPolicy(session_retention_days=0, max_sessions=2))
    assert report.sessions == 3
    assert {s.session.id for s in store.list_sessions()} == {sessions[3].id, sessions[4].id}


def test_conversations_by_age_and_count_keep_their_achievements(store):
    stale = add_conversation(store, 100, ["Deployed the API"])
    plain = add_conversation(store, 95)
    recent = [add_conversation(store, age) for age in (3, 2, 1)]
    policy = RetentionPolicy(session_retention_days=0, conversation_retention_days=90, max_conversation_history=2)
    dry = store.prune_old_context(policy, dry_run=True)
    assert (dry.conversations, dry.dry_run) == (3, True) and len(store.list_conversations()) == 5
    report = store.prune_old_context(policy)
    assert (report.conversations, report.achievements_kept) == (3, 1)
    assert [c.id for c in store.list_conversations()] == [recent[2].id, recent[1].id]
    [kept] = store.recent_achievements()
    assert (kept["conversation_id"], kept["achievements"], kept["artifacts"]) == (
        stale.id,
        ["Deployed the API"],
        ["out.txt"],
    )
    assert plain.id not in {a["conversation_id"] for a in store.recent_achievements()}


def test_dry_run_changes_nothing(store):
    add_session(store, 40)
    report = store.prune_old_context(RetentionPolicy(history_retention_days=30), dry_run=True)
    assert (report.sessions, report.executions, report.dry_run) == (1, 3, True)
    assert store.count_executions() == 3


def test_zero_limits_keep_everything(store):
    add_session(store, 4000)
    add_conversation(store, 4000)
    report = store.prune_old_context(
        RetentionPolicy(session_retention_days=0, conversation_retention_days=0, max_conversation_history=0)
    )
    assert (report.sessions, report.executions, report.conversations, report.outputs) == (0, 0, 0, 0)


def test_sqlite_prune_gives_space_back_in_short_batches(sqlite_url):
    from parsec.store.sqlite_url import sqlite_file

    store = open_store(sqlite_url)
    old = Session(last_active=days_ago(40))
    store.save_session(old)
    store.append_executions(
        DirectCommandExecution(session_id=old.id, command=f"echo {'payload ' * 30} {i}", executed_at=days_ago(40))
        for i in range(20_000)
    )
    live = Session()
    store.save_session(live)
    path = sqlite_file(sqlite_url)
    size_before = path.stat().st_size

    # A writer keeps recording during the prune; none of its writes may wait long.
    stalls: list[float] = []
    done = threading.Event()

    def writer() -> None:
        while not done.is_set():
            started = time.monotonic()
            store.append_executions([DirectCommandExecution(session_id=live.id, command="live")])
            stalls.append(time.monotonic() - started)

    thread = threading.Thread(target=writer)
    thread.start()
    report = store.prune_old_context(RetentionPolicy(history_retention_days=30, batch_size=1000))
    done.set()
    thread.join()
    assert report.executions == 20_000 and report.bytes_freed > size_before / 2
    assert store.count_executions() == len(stalls)  # every live write landed
    store.close()  # the last connection checkpoints the WAL into the file
    # Full-text tombstones go later, by automerge; the live writer's rows (more on a busy machine) stay.
    assert path.stat().st_size < size_before * 0.75
    with sqlite3.connect(path) as check:  # FTS5's own consistency check of the index
        check.execute("INSERT INTO executions_fts(executions_fts, rank) VALUES ('integrity-check', 1)")
    # How long a writer waits behind a prune batch is measured by bench/store.py, not here.


def test_prune_batches_follow_the_time_budget(store):
    from parsec.store.prune import BATCH_SECONDS, MIN_BATCH, _Pacer

    pacer = _Pacer(store.db, batch_size=5000)
    pacer.sqlite = False  # no pause, no checkpoint: only the sizing
    first = pacer.size
    pacer.took(first, BATCH_SECONDS / 10)  # fast: grows, at most twice
    assert pacer.size == 2 * first
    pacer.took(pacer.size, BATCH_SECONDS * 10)  # slow: shrinks, at most by half
    assert pacer.size == first
    pacer.took(3, BATCH_SECONDS * 100)  # a short last batch says nothing
    assert pacer.size == first
    for _ in range(20):
        pacer.took(pacer.size, BATCH_SECONDS * 100)
    assert pacer.size == MIN_BATCH
    for _ in range(20):
        pacer.took(pacer.size, BATCH_SECONDS / 100)
    assert pacer.size == 5000  # never above the policy's batch_size


def test_sqlite_prune_puts_the_wal_autocheckpoint_back(sqlite_url):
    store = open_store(sqlite_url)
    old = add_session(store, 40, commands=50)
    report = store.prune_old_context(RetentionPolicy(history_retention_days=30, batch_size=7))
    assert report.executions == 50 and store.count_executions(ExecutionQuery(session_id=old.id)) == 0
    for _ in range(6):  # every pooled connection checkpoints on commit again
        with store.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 1000
    store.close()


def test_sqlite_prune_checkpoints_the_wal_after_every_batch(sqlite_url):
    """A writer's commit checkpoints what the WAL holds unchecked (wal_autocheckpoint): when the
    pacer checkpointed only once a second, the daemon's writer copied the prune's pages in its own
    commits (its median wait during a 1M-row prune doubled). So every batch is checkpointed."""
    from parsec.store.prune import _Pacer

    class Recorder:
        statements: list[str] = []

        def execute(self, statement: str):
            self.statements.append(statement)
            return self

        def fetchall(self):
            return []

    store = open_store(sqlite_url)
    pacer = _Pacer(store.db, batch_size=5000)
    assert pacer.sqlite
    pacer.raw = Recorder()
    for _ in range(3):
        pacer.took(pacer.size, 0.001)
    assert [s for s in pacer.raw.statements if "wal_checkpoint" in s] == ["PRAGMA wal_checkpoint(PASSIVE)"] * 3
    store.close()
