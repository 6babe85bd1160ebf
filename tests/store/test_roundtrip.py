"""Every model goes into the store and comes back equal, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from parsec.errors import NotFound
from parsec.models.context import (
    ArtifactInfo,
    ContextSummary,
    EnvironmentChange,
    StepContext,
    StepExecutionRecord,
)
from parsec.models.session import DirectCommandExecution, GlobalContext, ProjectType, Session, SessionSettings
from parsec.models.text import TruncatedText
from parsec.models.workflow import Approval, CommandAttempt, Conversation, WorkflowPlan
from parsec.store.protocols import ContextStore, ExecutionQuery

T0 = datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


def make_session(**overrides) -> Session:
    values = dict(
        created_at=T0,
        last_active=T0 + timedelta(minutes=5),
        shell="zsh",
        pid=4242,
        tty="/dev/pts/3",
        user="ann",
        host="box",
        global_context=GlobalContext(
            working_directory="/srv/app",
            environment_snapshot={"VIRTUAL_ENV": "/srv/app/.venv"},
            detected_project_type=ProjectType.python,
            active_tools=["git", "docker"],
        ),
        settings=SessionSettings(privacy_mode=True, capture_output=True),
    )
    values.update(overrides)
    return Session(**values)


def make_execution(session: Session, i: int = 0, **overrides) -> DirectCommandExecution:
    values = dict(
        session_id=session.id,
        command=f"pytest -k case_{i}",
        executed_at=T0 + timedelta(seconds=i),
        duration_ms=1500 + i,
        exit_status=1,
        pipeline_statuses=[0, 1],
        stdout=TruncatedText.from_output("x" * 3000 + "\nFAILED test_a\n", limit=256),
        stderr=TruncatedText.from_output("warning: deprecated\n"),
        working_directory="/srv/app",
        cwd_after="/srv/app/tests",
        host="box",
        user="ann",
        source="shell",
    )
    values.update(overrides)
    return DirectCommandExecution(**values)


def make_conversation(session: Session) -> Conversation:
    conversation = Conversation(
        session_id=session.id,
        name="fastapi-setup",
        original_prompt="set up a FastAPI project with docker",
        working_directory="/srv/app",
        provider="openai",
        model="gpt-4o-mini",
        system_prompt="You are Parsec.",
    )
    conversation.set_plan(WorkflowPlan.from_descriptions(["create venv", "install fastapi", "write Dockerfile"]))
    conversation.transition("ready")
    conversation.transition("in_progress")
    step = conversation.steps[0]
    step.transition("command_suggested")
    step.command_attempts.append(
        CommandAttempt(
            suggested_command="python -m venv .venv",
            command="python3 -m venv .venv",
            explanation="isolated environment",
            risk_level="low",
            approval=Approval.edited,
            executed=True,
            exit_status=0,
            duration_ms=900,
            output=TruncatedText.from_output(b"created \xff venv\x00"),
            cwd="/srv/app",
            started_at=T0,
            finished_at=T0 + timedelta(seconds=1),
        )
    )
    step.transition("running")
    step.transition("complete")
    step.artifacts_produced.append(ArtifactInfo(path=".venv", size_bytes=10, step_index=0))
    step.environment_changes.append(EnvironmentChange(kind="env_var", name="VIRTUAL_ENV", new_value="/srv/app/.venv"))
    step.context_used = StepContext(
        conversation={"id": conversation.id},
        execution_history=[StepExecutionRecord(step_index=0, success=True, commands_executed=["ls"])],
        preferences={"package_manager": "uv"},
        token_count=321,
    )
    conversation.context_summary = ContextSummary(
        key_achievements=["Created virtualenv"],
        generated_artifacts=[ArtifactInfo(path=".venv")],
        learned_preferences={"package_manager": "uv"},
    )
    return conversation


def test_store_satisfies_the_protocol(store):
    # isinstance() on a runtime-checkable Protocol only looks at names: compare the signatures too
    # (mypy checks the types where open_store's result is used as a ContextStore).
    import inspect

    assert isinstance(store, ContextStore)
    for name, declared in inspect.getmembers(ContextStore, inspect.isfunction):
        if name.startswith("_"):
            continue
        wanted = [(p.name, p.kind, p.default) for p in inspect.signature(declared).parameters.values()]
        actual = [
            (p.name, p.kind, p.default) for p in inspect.signature(getattr(type(store), name)).parameters.values()
        ]
        assert actual == wanted, name


def test_session_round_trip_with_history(store):
    session = make_session(conversations=["01JD0000000000000000000009"])
    session.command_history = [make_execution(session, i) for i in range(3)]
    store.save_session(session)
    loaded = store.load_session(session.id)
    assert loaded == session  # history comes back oldest first, every field equal
    assert store.load_session(session.id, history_limit=2).command_history == session.command_history[1:]


def test_save_session_updates_in_place(store):
    session = make_session()
    store.save_session(session)
    session.close()
    session.global_context.working_directory = "/tmp"
    store.save_session(session)
    loaded = store.load_session(session.id)
    assert loaded.ended_at == session.ended_at and loaded.global_context.working_directory == "/tmp"
    assert len(store.list_sessions()) == 1


def test_unknown_session_and_conversation_are_not_found(store):
    with pytest.raises(NotFound):
        store.load_session("01JD0000000000000000000000")
    with pytest.raises(NotFound):
        store.load_conversation("01JD0000000000000000000000")


def test_execution_round_trip(store):
    session = make_session()
    store.save_session(session)
    execution = make_execution(session, exit_status=None, pipeline_statuses=[], stderr=None, cwd_after=None)
    assert store.append_executions([execution]) == 1
    assert store.query_executions(ExecutionQuery()) == [execution]


def test_append_is_idempotent_and_creates_missing_sessions(store):
    session = make_session()  # never saved: the daemon may record before it saves the session
    batch = [make_execution(session, i) for i in range(5)]
    assert store.append_executions(batch) == 5
    assert store.append_executions(batch + [make_execution(session, 9)]) == 1  # a retried batch
    assert store.count_executions() == 6
    stub = store.load_session(session.id, history_limit=0)
    assert stub.host == "box" and stub.last_active == batch[0].executed_at + timedelta(seconds=9)


def test_bulk_append_splits_big_batches_and_keeps_text_and_order(store, monkeypatch):
    """Large batches go in several insert statements (by rows and by size); every row comes
    back with its text intact, in order, and searchable."""
    from parsec.store import execution_insert, sql_store

    monkeypatch.setattr(execution_insert, "INSERT_CHUNK", 7)
    monkeypatch.setattr(sql_store, "INSERT_CHUNK", 7)
    monkeypatch.setattr(execution_insert, "SQLITE_PAYLOAD_CHARS", 5000)
    session = make_session()
    texts = ['echo "héllo wörld" 😀', "123", "printf 'a\\tb' | tr -d x", "x\x01y", "cat <<EOF\nline\nEOF"]
    batch = [
        make_execution(
            session,
            i,
            command=f"{texts[i % len(texts)]} #{i}",
            exit_status=i % 3,
            stdout=TruncatedText.from_output("ü" * 4000 if i % 4 == 0 else "ok\n", limit=8192),
        )
        for i in range(40)
    ]
    assert store.append_executions(batch) == 40
    assert store.append_executions(batch) == 0
    stored = store.query_executions(ExecutionQuery(limit=100))
    assert stored == list(reversed(batch))  # newest first, nothing altered
    found = store.query_executions(ExecutionQuery(search="wörld", limit=100))
    assert [e.command for e in found] == [e.command for e in reversed(batch) if "wörld" in e.command]


def test_conversation_round_trip_and_update(store):
    session = make_session()
    store.save_session(session)
    conversation = make_conversation(session)
    store.save_conversation(conversation)
    assert store.load_conversation(conversation.id) == conversation
    conversation.transition("finished")
    store.save_conversation(conversation)
    loaded = store.load_conversation(conversation.id)
    assert loaded == conversation and loaded.status.value == "finished"
    [summary] = store.list_conversations()
    assert (summary.id, summary.step_count, summary.status.value) == (conversation.id, 3, "finished")


def test_list_sessions_counts_and_order(store):
    old = make_session(last_active=T0)
    new = make_session(last_active=T0 + timedelta(days=1), ended_at=T0 + timedelta(days=1))
    store.save_session(old)
    store.save_session(new)
    store.append_executions([make_execution(old, i, exit_status=i % 2) for i in range(4)])
    store.save_conversation(make_conversation(old))
    summaries = store.list_sessions()
    assert [s.session.id for s in summaries] == [new.id, old.id]
    assert (summaries[1].command_count, summaries[1].failed_count, summaries[1].conversation_count) == (4, 2, 1)
    assert [s.session.id for s in store.list_sessions(open_only=True)] == [old.id]


def test_list_conversations_filters(store):
    a, b = make_session(), make_session()
    for s in (a, b):
        store.save_session(s)
    ca, cb = make_conversation(a), make_conversation(b)
    cb.working_directory = "/elsewhere"
    store.save_conversation(ca)
    store.save_conversation(cb)
    assert [c.id for c in store.list_conversations(session_id=a.id)] == [ca.id]
    assert [c.id for c in store.list_conversations(cwd="/elsewhere")] == [cb.id]
    assert len(store.list_conversations(limit=1)) == 1


def test_preferences(store):
    store.set_preference("classifier", "ls -la", {"choice": "command", "count": 1})
    store.set_preference("classifier", "ls -la", {"choice": "command", "count": 2})
    store.set_preference("classifier", "fix the tests", {"choice": "prompt"})
    store.set_preference("context", "package_manager", {"value": "uv"})
    assert store.get_preferences("classifier") == {
        "ls -la": {"choice": "command", "count": 2},
        "fix the tests": {"choice": "prompt"},
    }
    assert store.delete_preferences("classifier", "ls -la") == 1
    assert store.delete_preferences("classifier") == 1
    assert store.get_preferences("classifier") == {}
    assert store.get_preferences("context") == {"package_manager": {"value": "uv"}}


def test_llm_usage_summary(store):
    store.record_llm_usage("openai", "gpt-4o", "plan", 100, 20, at=T0)
    store.record_llm_usage(
        "openai", "gpt-4o", "step", 50, 10, conversation_id="01JD0000000000000000000009", at=T0 + timedelta(hours=2)
    )
    store.record_llm_usage("anthropic", "claude", "step", 7, 3, at=T0 + timedelta(hours=3))
    assert store.llm_usage_summary() == [
        {"provider": "anthropic", "model": "claude", "calls": 1, "input_tokens": 7, "output_tokens": 3},
        {"provider": "openai", "model": "gpt-4o", "calls": 2, "input_tokens": 150, "output_tokens": 30},
    ]
    assert store.llm_usage_summary(since=T0 + timedelta(hours=1))[1]["calls"] == 1


def test_achievements(store):
    store.save_achievements("01JD0000000000000000000001", "old", "/srv/app", ["made venv"], [".venv"], T0)
    store.save_achievements("01JD0000000000000000000002", "new", "/srv/app/api", ["wrote api"], [], T0 + timedelta(1))
    store.save_achievements("01JD0000000000000000000003", "other", "/srv/application", ["x"], [], T0)
    recent = store.recent_achievements(cwd="/srv/app")
    assert [a["name"] for a in recent] == ["new", "old"]  # subtree, newest first, not /srv/application
    assert recent[1]["achievements"] == ["made venv"] and recent[1]["artifacts"] == [".venv"]
    assert recent[1]["completed_at"] == T0
    assert len(store.recent_achievements(limit=2)) == 2
