"""Cross-conversation learning from a real SQLite store: achievements of recent conversations in
the same directory, preferences learned with their evidence, explicit ones, and privacy mode."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from parsec.context.engine import ContextEngine
from parsec.context.learning import learn_preferences
from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store

from .ctx_helpers import conversation, fixed_clock, settings


def _runs(session_id: str, command: str, times: int) -> list[DirectCommandExecution]:
    return [DirectCommandExecution(session_id=session_id, command=command, exit_status=0) for _ in range(times)]


@pytest.fixture(params=["sqlite_url", "pg_url"])
def store(request, workdir):
    """The same history in a SQLite file and in a real PostgreSQL schema."""
    store = open_store(request.getfixturevalue(request.param))
    session = Session(shell="bash")
    store.save_session(session)
    store.append_executions(
        _runs(session.id, "rg -n TODO src", 9)
        + _runs(session.id, "grep -r foo .", 2)
        + _runs(session.id, "pnpm install", 5)
        + _runs(session.id, "npm test", 1)
        + _runs(session.id, "ll", 4)
        + _runs(session.id, "FOO=1 sudo docker ps | grep web", 3)
    )
    done = datetime(2026, 3, 1, tzinfo=UTC)
    store.save_achievements(
        "01J00000000000000000000001",
        "Python API setup",
        str(workdir),
        ["Created FastAPI project", "Set up Docker"],
        ["app/main.py", "Dockerfile"],
        done,
    )
    store.save_achievements(
        "01J00000000000000000000002",
        "Elsewhere",
        "/somewhere/else",
        ["Unrelated achievement"],
        [],
        done + timedelta(days=1),
    )
    yield store, session
    store.close()


def _planning_json(messages) -> dict:
    return json.loads(messages[1].content.split("Planning context (JSON):\n", 1)[1])


def test_planning_sees_recent_achievements_and_learned_preferences(store, workdir):
    store_, session = store
    conv = conversation(["x"], cwd=str(workdir), prompt="add a docker compose file for the API")
    conv.session_id = session.id
    engine = ContextEngine(settings(preferences={"preferred_license": "MIT"}), store_, clock=fixed_clock)
    planning = _planning_json(engine.planning_messages(conv, session))

    recent = planning["session_context"]["recent_conversations"]
    assert [r["name"] for r in recent] == ["Python API setup"], "only conversations from this directory"
    assert recent[0]["key_achievements"] == ["Created FastAPI project", "Set up Docker"]
    assert recent[0]["artifacts"] == ["app/main.py", "Dockerfile"]
    prefs = planning["preferences"]
    assert prefs["preferred_license"] == "MIT"
    assert prefs["search_tool"].startswith("rg (used 9x") and "grep 5x" in prefs["search_tool"]
    assert prefs["node_package_manager"].startswith("pnpm (used 5x")
    assert "list_style" not in prefs  # `ll` is an alias: workflow commands run without rc files
    assert planning["user_prompt"] == "add a docker compose file for the API"
    assert planning["session_context"]["project_type"] == "rust"
    assert messages_have_datetime(engine, conv, session)


def messages_have_datetime(engine, conv, session) -> bool:
    return engine.planning_messages(conv, session)[1].content.startswith("Current date and time: 2026-03-14")


@pytest.mark.parametrize(
    "sections",
    [
        {"context_management": {"privacy_mode": True}},
        {"context_management": {"enable_cross_conversation_learning": False}},
    ],
)
def test_no_learning_in_privacy_mode_or_when_switched_off(store, workdir, sections):
    store_, session = store
    conv = conversation(["x"], cwd=str(workdir))
    conv.session_id = session.id
    planning = _planning_json(
        ContextEngine(settings(**sections), store_, clock=fixed_clock).planning_messages(conv, session)
    )
    assert "recent_conversations" not in planning["session_context"]
    assert planning["preferences"] == {}


def test_explicit_preferences_beat_learned_ones():
    executions = _runs("01J00000000000000000000003", "grep -r x .", 6)
    [learned] = learn_preferences(executions)
    assert (learned.name, learned.value, learned.evidence) == ("search_tool", "grep", 6)
    engine = ContextEngine(settings(preferences={"search_tool": "rg"}), None)
    from parsec.context import collect

    prefs = collect.preferences(engine.settings.preferences, [learned])
    assert [c.full for c in prefs] == [{"search_tool": "rg"}]


def test_no_preference_without_a_clear_habit():
    executions = _runs("01J00000000000000000000003", "grep x", 3) + _runs("01J00000000000000000000003", "rg x", 3)
    assert [p.name for p in learn_preferences(executions)] == []


def test_a_private_session_gets_no_cross_conversation_context_in_its_steps(store, workdir):
    store_, session = store
    private = Session(shell="bash")
    private.settings.privacy_mode = True
    store_.save_session(private)
    conv = conversation(["add a docker compose file"], cwd=str(workdir))
    for owner, expect_learning in ((session, True), (private, False)):
        conv.session_id = owner.id
        engine = ContextEngine(settings(), store_, clock=fixed_clock)
        messages, step_context, _ = engine.step_messages(conv, 0, {"working_directory": str(workdir)})
        assert ("recent_conversations" in step_context.session_context) is expect_learning
        assert ("search_tool" in step_context.preferences) is expect_learning
