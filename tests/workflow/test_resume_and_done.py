"""Crashes, provider failures and steps done without a command (issue 14, items 1-3): real
processes, a real pty, the stub server."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pexpect

from .conftest import (
    conversation_json,
    finished_step,
    load_conversation,
    plan,
    queue,
    run_unattended,
    spawn,
    step,
    user_messages,
)


def test_a_command_cut_by_kill_9_is_told_to_the_model_as_interrupted(stub, env, work: Path) -> None:
    queue(stub, plan("Wait", "Say last"), step("sleep 33.5"))
    child = spawn(["ask", "wait then speak"], env, work)
    child.expect("accept")
    child.sendline("")
    child.expect(r"\$ sleep 33.5")
    child.sendline("")
    deadline = time.monotonic() + 20
    while load_conversation(env).steps[0].status.value != "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    os.kill(child.pid, signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    crashed = load_conversation(env)
    shown = run_unattended(["conversations", "show", crashed.id], env, work)
    assert "interrupted, may have partly run" in shown.stdout and "not run" not in shown.stdout

    requests_before = len(stub.model_requests())
    queue(stub, step("echo checked"), finished_step(), step("echo last"), finished_step())
    result = run_unattended(["resume", "--yes", "--json=full", crashed.id], env, work)
    assert result.returncode == 0, result.stderr
    resumed_request = user_messages(stub)[requests_before]
    assert "sleep 33.5" in resumed_request and "may have partly run" in resumed_request
    attempt = conversation_json(result)["steps"][0]["command_attempts"][0]
    assert attempt["interrupted"] is True and attempt["exit_status"] is None
    shown = run_unattended(["conversations", "show", crashed.id], env, work)
    assert "interrupted, may have partly run" in shown.stdout


def test_a_failure_after_the_command_finished_keeps_its_result(stub, env, work: Path) -> None:
    queue(stub, plan("Make the marker", "Say bye"), step("touch marker-file"), {"status": 400, "error": "flaky"})
    paused = run_unattended(["ask", "--yes", "--json", "make a marker"], env, work)
    assert paused.returncode == 4, paused.stderr
    conversation = load_conversation(env)
    shown = run_unattended(["conversations", "show", conversation.id], env, work)
    assert "command finished, not yet confirmed by the model" in shown.stdout

    requests_before = len(stub.model_requests())
    queue(stub, finished_step("made the marker"), step("echo bye"), finished_step("said bye"))
    result = run_unattended(["resume", "--yes", "--json=full"], env, work)
    assert result.returncode == 0, result.stderr
    data = conversation_json(result)
    first = data["steps"][0]
    assert first["status"] == "complete"
    assert [a["command"] for a in first["command_attempts"]] == ["touch marker-file"]  # not run again
    assert "Step 1: made the marker (touch marker-file)" in data["context_summary"]["key_achievements"]
    assert "may have partly run" not in user_messages(stub)[requests_before]


def test_a_step_done_without_a_command_after_earlier_results_is_recorded_with_its_reason_under_yes(
    stub, env, work: Path
) -> None:
    """A command of an earlier step ran: its output may show the step needs nothing. Under --yes
    nobody can disagree, so the claim is sent back once; said again, the model's word is taken (and
    recorded with its reason)."""
    claim = {"json": {"done": True, "candidates": [], "summary": "the configuration already exists"}}
    queue(
        stub,
        plan("Write the configuration", "Check the configuration", "Say bye"),
        step("echo written > config"),
        finished_step("wrote it"),
        claim,
        claim,
        step("echo bye"),
        finished_step("said bye"),
    )
    result = run_unattended(["ask", "--yes", "--json", "check config"], env, work)
    assert result.returncode == 0, result.stderr
    assert "looks done already, without a command: the configuration already exists" in result.stderr
    import json

    data = json.loads(result.stdout)
    assert data["steps"][1]["summary"] == "done without a command: the configuration already exists"
    assert data["steps"][1]["outcome"] == "complete" and data["steps"][1]["commands"] == []
    assert "no command has run for this step): asking again" in result.stderr
    assert "no command has run for it" in user_messages(stub)[4]
    assert len(stub.model_requests()) == 7  # the claim asked again once


def test_a_step_done_with_nothing_run_is_asked_again_then_not_achieved_under_yes(stub, env, work: Path) -> None:
    """On a real model a step reply said `done` when no command had run and the whole task was
    reported finished (exit 0). It is sent back once with the reason; said again, the workflow
    stops as not achieved: its own status, exit 6, one line saying why (issue 26)."""
    claim = {"json": {"done": True, "candidates": [], "summary": "the configuration already exists"}}
    queue(stub, plan("Check the configuration", "Say bye"), claim, claim, step("echo bye"), finished_step())
    result = run_unattended(["ask", "--yes", "--json", "check config"], env, work)
    assert result.returncode == 6, result.stderr
    import json

    import jsonschema

    data = json.loads(result.stdout)
    jsonschema.validate(
        data, json.loads((Path(__file__).parents[2] / "docs" / "workflow-result.schema.json").read_text())
    )
    assert data["status"] == "not_achieved" and data["error"]["code"] == "not_achieved"
    assert "step 1: the model says it is done, but nothing ran" in data["error"]["message"]
    assert data["steps"][0]["outcome"] != "complete" and data["steps"][1]["outcome"] == "pending"
    asked = user_messages(stub)
    assert len(asked) == 3  # the plan, the step, the step asked again; nothing after
    assert "no command has run in this conversation" in asked[2]
    assert "no command has run in this conversation to show it): asking again" in result.stderr
    said = [line for line in result.stderr.splitlines() if "not achieved" in line.lower()]
    assert said == [f"Not achieved: {data['error']['message'][len('not achieved: ') :]}"], result.stderr
    assert load_conversation(env).status.value == "aborted"


def test_a_step_done_with_nothing_run_gets_its_command_when_asked_again(stub, env, work: Path) -> None:
    claim = {"json": {"done": True, "candidates": [], "summary": "the configuration already exists"}}
    queue(stub, plan("Check the configuration"), claim, step("test -e . && echo present"), finished_step("checked"))
    result = run_unattended(["ask", "--yes", "--json=full", "check config"], env, work)
    assert result.returncode == 0, result.stderr
    first = conversation_json(result)["steps"][0]
    assert first["status"] == "complete"
    assert [a["command"] for a in first["command_attempts"]] == ["test -e . && echo present"]


def test_the_user_can_disagree_with_a_step_judged_done(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Create the notes file"),
        {"json": {"done": True, "candidates": [], "summary": "notes exist"}},
        {"json": {"done": True, "candidates": [], "summary": "notes exist"}},  # asked again: the same
        step("echo making-notes"),
        finished_step("made notes"),
    )
    child = spawn(["ask", "make notes"], env, work)
    child.expect("no command has run in this conversation to show it\\): asking again")
    child.expect("looks done already, without a command: notes exist")
    child.expect(r"\[r\]un it anyway")
    child.sendline("r")
    child.expect(r"\$ echo making-notes")
    child.sendline("")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "disagrees that this step is already done" in user_messages(stub)[3]
    stored = load_conversation(env)
    assert stored.steps[0].status.value == "complete" and stored.steps[0].command_attempts[0].executed
