"""Ctrl-C pauses a workflow (issue 14, item 4): the conversation stays resumable, the message
names `parsec resume ID`, the exit status is 130. Ctrl-C during a streamed explanation stops
only the explanation. Real processes through a pty against the stub server."""

from __future__ import annotations

from pathlib import Path

import pexpect

from .conftest import conversation_json, finished_step, load_conversation, plan, queue, run_unattended, spawn, step


def paused(child) -> str:
    """Wait for the pause message and exit 130; returns the conversation id it names."""
    child.expect(r"parsec resume ([0-9A-Z]{26})", timeout=20)
    conversation_id = child.match.group(1)
    child.expect(pexpect.EOF, timeout=20)
    child.close()
    assert child.exitstatus == 130, child.before
    return conversation_id


def test_ctrl_c_at_the_plan_review_pauses_and_resume_goes_on(stub, env, work: Path) -> None:
    queue(stub, plan("Say one", "Say two"))
    child = spawn(["ask", "say two things"], env, work)
    child.expect("accept")
    child.sendcontrol("c")
    conversation_id = paused(child)
    stored = load_conversation(env, conversation_id)
    assert stored.status.value == "ready" and not stored.is_terminal

    queue(stub, step("echo one"), finished_step(), step("echo two"), finished_step())
    resumed = run_unattended(["resume", "--yes", "--json=full", conversation_id], env, work)
    assert resumed.returncode == 0, resumed.stderr
    assert conversation_json(resumed)["status"] == "finished"


def test_ctrl_c_at_the_command_gate_pauses_without_declining(stub, env, work: Path) -> None:
    queue(stub, plan("Say hello"), step("echo hello"))
    child = spawn(["ask", "say hello"], env, work)
    child.expect(r"\$ echo hello")
    child.expect(r"run")
    child.sendcontrol("c")
    conversation_id = paused(child)
    stored = load_conversation(env, conversation_id)
    assert stored.status.value == "in_progress"
    assert stored.steps[0].command_attempts == []  # shown, never answered: not a refusal

    queue(stub, step("echo hello"), finished_step("said hello"))
    resumed = run_unattended(["resume", "--yes", "--json=full", conversation_id], env, work)
    assert resumed.returncode == 0, resumed.stderr
    assert "declined" not in "\n".join(str(m) for m in stub.model_requests()[-2].body["messages"])


def test_ctrl_c_while_the_model_plans_pauses(stub, env, work: Path) -> None:
    queue(stub, {**plan("Say one"), "delay": 30})
    child = spawn(["ask", "say one thing"], env, work)
    child.expect("Planning")
    deadline_ok = False
    for _ in range(100):  # the request is on its way once the stub has it
        if stub.model_requests():
            deadline_ok = True
            break
        child.expect([pexpect.TIMEOUT], timeout=0.2)
    assert deadline_ok, "the planning request never arrived"
    child.sendcontrol("c")
    conversation_id = paused(child)
    assert load_conversation(env, conversation_id).status.value == "planning"


def test_ctrl_c_during_an_explanation_stops_only_the_explanation(stub, env, work: Path) -> None:
    words = " ".join(f"word{i}" for i in range(400))
    queue(stub, plan("Say three"), step("echo three"), {"text": words, "stream_delay": 0.05}, finished_step())
    child = spawn(["ask", "say three"], env, work)
    child.expect(r"\$ echo three")
    child.expect("run")
    child.sendline("x")
    child.expect("word1 ")  # the explanation is streaming
    child.sendcontrol("c")
    child.expect("explanation stopped", timeout=20)
    child.expect(r"\[Enter/y\] run")  # the same question again
    child.sendline("")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "word399" not in child.before
    stored = load_conversation(env)
    assert stored.status.value == "finished"
    assert stored.steps[0].command_attempts[0].exit_status == 0


def test_a_spinner_with_the_elapsed_time_while_the_model_plans(stub, env, work: Path) -> None:
    """Issue 14 item 14: on a terminal, a spinner and the seconds waited; nothing extra otherwise."""
    queue(stub, {**plan("Say hi"), "delay": 2.5}, step("echo hi"), finished_step())
    child = spawn(["ask", "say hi"], env, work)
    child.expect(r"Planning… [0-9]+\.[0-9]s")
    child.expect(r"\$ echo hi")
    child.sendline("")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == 0

    queue(stub, {**plan("Say hi"), "delay": 1.5}, step("echo hi"), finished_step())
    result = run_unattended(["ask", "--yes", "say hi"], env, work)
    assert result.returncode == 0 and "Planning…" not in result.stderr and "\r" not in result.stderr
