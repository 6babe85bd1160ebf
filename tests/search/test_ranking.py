"""Ranking on a real store: directory, repository, failures and their fix, the previous command."""

from __future__ import annotations

import sqlite3

from parsec.cli.history.search.query import parse
from parsec.cli.history.search.scope import Here
from parsec.cli.history.search.source import Source

from .conftest import db_path


def ranked(
    env,
    cwd: str,
    typed: str = "",
    previous: str | None = None,
    filter_mode: str = "everywhere",
    session_id: str | None = None,
) -> list[str]:
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd=cwd, session_id=session_id, host="laptop"), previous=previous)
        search = source.search(parse(typed), filter_mode)
        while not search.done:
            search.step()
        return [c.command for c in search.ranked()]


def test_ranking_changes_with_the_directory(recorder, env, tmp_path) -> None:
    api, web = str(tmp_path / "api"), str(tmp_path / "web")
    recorder.add("make test-api", api, minutes_ago=60)
    recorder.add("make test-web", web, minutes_ago=61)
    assert ranked(env, api, "make")[0] == "make test-api"
    assert ranked(env, web, "make")[0] == "make test-web"  # older, but run here


def test_this_repository_counts_below_this_directory(recorder, env, tmp_path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "docs").mkdir()
    recorder.add("npm run build", str(tmp_path / "elsewhere"), minutes_ago=30)
    recorder.add("npm run lint", str(repo / "src"), minutes_ago=90)
    assert ranked(env, str(repo / "docs"), "npm")[0] == "npm run lint"
    assert ranked(env, str(tmp_path), "npm")[0] == "npm run build"


def test_a_fix_ranks_before_the_failure_it_fixed(recorder, env) -> None:
    # the typo ran three times (more often, and once more recently than the fix's only run), then the fix
    for minutes in (50, 40, 30):
        recorder.add("git psuh origin", "/w", minutes_ago=minutes, status=1)
    recorder.add("git push origin", "/w", minutes_ago=31)
    order = ranked(env, "/w", "git")
    assert order.index("git push origin") < order.index("git psuh origin")


def test_failed_only_filter_and_frequency(recorder, env) -> None:
    recorder.add("pytest -x", "/w", minutes_ago=10, status=2)
    recorder.add("ls", "/w", minutes_ago=5)
    assert ranked(env, "/w", filter_mode="failed") == ["pytest -x"]


def test_the_command_that_usually_follows_ranks_first(recorder, env) -> None:
    other = recorder.new_session()
    for minutes in (300, 200, 100):  # in another session, `git add -A` was always followed by a commit
        recorder.add("git add -A", "/w", minutes_ago=minutes, session=other)
        recorder.add("git commit -m wip", "/w", minutes_ago=minutes - 1, session=other)
    for minutes in (30, 20, 10):
        recorder.add("git status", "/w", minutes_ago=minutes)
    assert ranked(env, "/w", "git")[0] == "git status"
    assert ranked(env, "/w", "git", previous="git add -A")[0] == "git commit -m wip"


def test_session_filter_and_conversations_are_marked(recorder, env) -> None:
    from parsec.models.workflow import CommandAttempt, Conversation, WorkflowPlan, WorkflowStepState

    other = recorder.new_session()
    recorder.add("deploy staging", "/w", minutes_ago=5, session=other)
    recorder.add("deploy prod", "/w", minutes_ago=6)
    plan = WorkflowPlan.from_descriptions(["build"])
    step = WorkflowStepState(
        step=plan.steps[0],
        command_attempts=[
            CommandAttempt(
                suggested_command="cargo deploy --release",
                command="cargo deploy --release",
                executed=True,
                exit_status=0,
            )
        ],
    )
    recorder.store.save_conversation(
        Conversation(
            session_id=recorder.session.id,
            name="ship",
            original_prompt="deploy the release build",
            workflow=plan,
            steps=[step],
            working_directory="/w",
        )
    )
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd="/w", session_id=recorder.session.id, host="laptop"))
        search = source.search(parse("deploy"), "everywhere")
        while not search.done:
            search.step()
        kinds = {c.command: c.kind for c in search.ranked()}
        session = source.search(parse("deploy"), "session")
        while not session.done:
            session.step()
        in_session = [c.command for c in session.ranked()]
    assert kinds == {
        "deploy staging": "command",
        "deploy prod": "command",
        "deploy the release build": "prompt",
        "cargo deploy --release": "workflow-run",
    }
    assert in_session == ["deploy prod"]
