"""Whole `parsec ask` flows against the stub LLM server: real processes, a real pty, a real
SQLite store, a real persistent shell."""

from __future__ import annotations

import json
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


def sleepers(seconds: str) -> list:
    import psutil

    return [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", seconds]]


def sleep_started(seconds: str, timeout: float = 10) -> bool:
    """Wait until `sleep <seconds>` runs (the workflow's command has been exec'd), not a fixed time."""
    deadline = time.monotonic() + timeout
    while not sleepers(seconds):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def finish(child, status: int = 0) -> None:
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == status, child.before


def test_three_steps_carry_cd_between_steps(stub, env, work: Path, tmp_path: Path) -> None:
    queue(
        stub,
        plan("Create a directory named proj", "Enter it", "Show the current directory"),
        step("mkdir proj"),
        finished_step("made proj"),
        step("cd proj"),
        finished_step("went in"),
        step("pwd"),
        finished_step("showed it"),
    )
    child = spawn(["ask", "set up a proj directory and go there"], env, work)
    child.expect("accept")
    child.sendline("")
    child.expect(r"\$ mkdir proj")
    child.expect(r"\[y\] run")
    child.sendline("")  # medium risk: an empty answer is not enough
    child.expect("type y to run it")
    child.sendline("y")
    child.expect(r"\$ cd proj")
    child.expect(r"\[Enter/y\] run")
    child.sendline("")
    child.expect(r"\$ pwd")
    child.sendline("")
    child.expect("Finished")
    finish(child)

    conversation = load_conversation(env)
    assert conversation.status.value == "finished"
    assert [s.status.value for s in conversation.steps] == ["complete"] * 3
    last = conversation.steps[2].command_attempts[0]
    assert last.output.render().strip() == str(work / "proj")
    assert [a.approval.value for s in conversation.steps for a in s.command_attempts] == ["approved"] * 3
    assert any(c.kind == "cwd" and c.new_value == str(work / "proj") for c in conversation.steps[1].environment_changes)
    assert [(a.path, a.change) for a in conversation.steps[0].artifacts_produced] == [(str(work / "proj"), "created")]
    assert Path(env["PARSEC_CD_FILE"]).read_text().strip() == str(work / "proj")
    assert Path(env["HISTFILE"]).read_text().splitlines() == ["mkdir proj", "cd proj", "pwd"]
    # The status line names the conversation, the step and the provider.
    assert len(conversation.context_summary.key_achievements) == 3


def test_failure_is_fed_back_and_the_correction_succeeds(stub, env, work: Path) -> None:
    queue(stub, plan("List the notes"), step("ls missing-notes-dir"), step("ls -a"), finished_step())
    result = run_unattended(["ask", "--yes", "--json=full", "list my notes"], env, work)
    assert result.returncode == 0, result.stderr
    data = conversation_json(result)
    assert data["status"] == "finished"
    attempts = data["steps"][0]["command_attempts"]
    assert [a["command"] for a in attempts] == ["ls missing-notes-dir", "ls -a"]
    assert attempts[0]["exit_status"] != 0 and attempts[1]["exit_status"] == 0
    assert data["steps"][0]["retries"] == 1
    retry_request = user_messages(stub)[2]
    assert "missing-notes-dir" in retry_request
    assert "No such file or directory" in retry_request
    assert f"status {attempts[0]['exit_status']}" in retry_request


def test_retries_are_bounded_then_the_workflow_stops(stub, env, work: Path) -> None:
    queue(stub, plan("Break"), step("ls nope1"), step("ls nope2"), step("ls nope3"), step("ls never"))
    result = run_unattended(["ask", "--yes", "--json=full", "break things"], env, work)
    assert result.returncode == 1
    data = conversation_json(result)
    assert [a["command"] for a in data["steps"][0]["command_attempts"]] == ["ls nope1", "ls nope2", "ls nope3"]
    assert data["status"] == "aborted"
    assert len(stub.model_requests()) == 4  # plan + first try + max_retries (2) regenerations


def test_edit_alternative_skip_explain_and_abort(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Say one", "Say two", "Say three", "Say four"),
        step("echo one", "echo uno"),
        finished_step(),
        step("echo two"),
        step("echo three"),
        {"text": "echo prints its arguments; nothing is changed."},
    )
    child = spawn(["ask", "say some numbers"], env, work)
    child.expect("accept")
    child.sendline("")
    child.expect(r"\$ echo one")
    child.sendline("a")  # the alternative candidate
    child.expect(r"\$ echo uno")
    child.sendline("e")
    child.expect("edit> ")
    child.send("\x15echo edited-by-user\r")  # Ctrl-U clears the pre-filled command
    child.expect(r"\$ echo edited-by-user")  # shown again with its own verdict
    child.expect(r"risk: low")
    child.sendline("")
    child.expect(r"\$ echo two")
    child.sendline("s")
    child.expect(r"\$ echo three")
    child.sendline("x")
    child.expect("What it does: runs echo")
    child.expect("echo prints its arguments; nothing is changed.")  # the model's, streamed
    child.sendline("q")
    finish(child, status=1)

    conversation = load_conversation(env)
    assert conversation.status.value == "aborted"
    first, second, third, fourth = conversation.steps
    assert [(a.command, a.approval.value, a.executed) for a in first.command_attempts] == [
        ("echo one", "declined", False),
        ("echo edited-by-user", "edited", True),
    ]
    assert first.command_attempts[1].suggested_command == "echo uno"
    assert first.status.value == "complete"
    assert second.status.value == "skipped"
    assert third.status.value == "aborted" and not third.command_attempts[0].executed
    assert fourth.status.value == "pending"
    explain = stub.model_requests()[-1]
    assert explain.body.get("stream") is True and "`echo three` part by part" in explain.body["messages"][-1]["content"]


def test_plan_edit_and_replan(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Alpha", "Beta", "Gamma"),
        plan("Delta", "Epsilon"),
        step("echo d"),
        finished_step(),
        step("echo e"),
        finished_step(),
    )
    child = spawn(["ask", "greek letters"], env, work)
    child.expect("accept")
    child.sendline("r")
    child.expect("What should change")
    child.sendline("use later letters")
    child.expect("revision 2")
    child.expect("accept")
    child.sendline("e")
    child.expect("plan edit> ")
    child.sendline("m 2 1")
    child.expect("plan edit> ")
    child.sendline("r 1 Epsilon first")
    child.expect("plan edit> ")
    child.sendline("")
    child.expect("revision 3")
    child.expect("accept")
    child.sendline("")
    for command in ("echo d", "echo e"):
        child.expect(r"\$ " + command)
        child.sendline("")
    finish(child)
    conversation = load_conversation(env)
    assert [s.step.description for s in conversation.steps] == ["Epsilon first", "Delta"]
    assert "use later letters" in user_messages(stub)[1]


def test_high_risk_needs_the_word_yes(stub, env, work: Path) -> None:
    queue(stub, plan("Publish"), step("git push --force origin main"), step("git status"))
    child = spawn(["ask", "publish it"], env, work)
    child.expect(r"risk: high")
    child.expect(r"\[yes\] run")
    child.sendline("")
    child.expect("type yes to run it")
    child.sendline("y")
    child.expect("type the whole word yes")
    child.sendline("n")  # no: ask for something else, and say what was declined
    child.expect(r"\$ git status")
    child.sendline("s")
    finish(child)
    assert "declined these commands for this step" in user_messages(stub)[2]
    assert "git push --force origin main" in user_messages(stub)[2]
    conversation = load_conversation(env)
    attempt = conversation.steps[0].command_attempts[0]
    assert attempt.risk_level == "high" and attempt.approval.value == "declined" and not attempt.executed


def test_an_edit_into_a_high_risk_command_goes_back_through_the_gate(stub, env, work: Path) -> None:
    victim = work / "keep-me"
    victim.mkdir()
    queue(stub, plan("List"), step("ls"), finished_step("listed"))
    child = spawn(["ask", "list"], env, work)  # a one-step plan starts without asking
    child.expect(r"\$ ls")
    child.sendline("e")
    child.expect("edit> ")
    child.send(f"\x15rm -rf {victim}/..\r")
    child.expect(r"risk: high")
    child.sendline("")  # an empty answer never runs a high-risk command
    child.expect("type yes to run it")
    child.sendline("s")
    finish(child)
    assert victim.exists()
    attempt = load_conversation(env).steps[0].command_attempts[0]
    assert attempt.approval.value == "declined" and not attempt.executed


def test_high_risk_is_declined_under_yes(stub, env, work: Path) -> None:
    queue(stub, plan("Reset"), step("git reset --hard HEAD"))
    result = run_unattended(["ask", "--yes", "--json=full", "reset the repo"], env, work)
    assert result.returncode == 3  # declined
    data = conversation_json(result)
    assert data["status"] == "aborted"
    assert "declined" in data["error"]
    attempt = data["steps"][0]["command_attempts"][0]
    assert attempt["approval"] == "declined" and attempt["executed"] is False


def test_ctrl_c_stops_a_long_command_and_asks(stub, env, work: Path) -> None:
    queue(stub, plan("Wait a while", "Say done"), step("sleep 30.5"), step("echo done"), finished_step())
    child = spawn(["ask", "wait"], env, work)
    child.expect("accept")
    child.sendline("")
    child.expect(r"\$ sleep 30.5")
    child.sendline("")
    assert sleep_started("30.5"), "the command should be running"
    started = time.monotonic()
    child.sendcontrol("c")
    child.expect(r"\[r\]etry", timeout=10)
    assert time.monotonic() - started < 8
    child.sendline("s")
    child.expect(r"\$ echo done")
    child.sendline("")
    finish(child)
    conversation = load_conversation(env)
    waited = conversation.steps[0]
    assert waited.status.value == "skipped"
    assert waited.command_attempts[0].interrupted and waited.command_attempts[0].duration_ms < 10_000
    assert conversation.status.value == "finished"


def test_kill_9_then_resume_from_the_last_completed_step(stub, env, work: Path) -> None:
    queue(stub, plan("Say first", "Wait", "Say last"), step("echo first-step"), finished_step(), step("sleep 31.5"))
    child = spawn(["ask", "three things"], env, work)
    child.expect("accept")
    child.sendline("")
    child.expect(r"\$ echo first-step")
    child.sendline("")
    child.expect(r"\$ sleep 31.5")
    child.sendline("")
    assert sleep_started("31.5"), "the command should be running"
    os.kill(child.pid, signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    deadline = time.monotonic() + 5
    while sleepers("31.5") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not sleepers("31.5"), "the running command must not outlive a killed Parsec"
    crashed = load_conversation(env)
    assert crashed.status.value == "in_progress"
    assert crashed.steps[1].status.value == "running"

    queue(stub, step("echo waited"), finished_step(), step("echo last-step"), finished_step())
    result = run_unattended(["resume", "--yes", "--json=full", crashed.id[:10]], env, work)
    assert result.returncode == 0, result.stderr
    data = conversation_json(result)
    assert data["status"] == "finished"
    assert [a["command"] for a in data["steps"][0]["command_attempts"]] == ["echo first-step"]  # not re-run
    second = data["steps"][1]["command_attempts"]
    assert [a["command"] for a in second] == ["sleep 31.5", "echo waited"]
    assert second[0]["interrupted"] is True
    assert data["system_prompt"] == crashed.system_prompt  # captured once, reused on resume


def test_an_interactive_command_reads_from_the_terminal(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Ask for a password"),
        step("stty size; read -s -p 'Password: ' pw && echo \"length ${#pw}\""),
        finished_step(),
    )
    child = spawn(["ask", "ask me for a password"], env, work)
    child.expect(r"\[y\] run")
    child.sendline("y")
    child.expect("40 200")  # the command's terminal has the user's terminal size
    child.expect("Password: ")
    child.sendline("hunter22")
    child.expect("length 8")
    finish(child)
    attempt = load_conversation(env).steps[0].command_attempts[0]
    assert attempt.exit_status == 0
    assert "hunter22" not in attempt.output.render()


def test_invalid_json_is_repaired_once(stub, env, work: Path) -> None:
    queue(stub, {"text": "Sure! Here is a plan: make it so"}, plan("Say hi"), step("echo hi"), finished_step())
    result = run_unattended(["ask", "--yes", "--json=full", "say hi"], env, work)
    assert result.returncode == 0, result.stderr
    assert conversation_json(result)["status"] == "finished"
    assert len(stub.model_requests()) == 4
    assert "not valid" in user_messages(stub)[1]


def test_invalid_json_twice_is_a_clean_error(stub, env, work: Path) -> None:
    """No plan even after the repair request: the request becomes the one step (said in one line);
    no valid step reply either, nor a command as plain text: one line, and the conversation can be
    resumed."""
    replies = ("no json here", "still no json", "nor here", "nor now", "Sorry, I cannot help with that.")
    queue(stub, *({"text": text} for text in replies))
    result = run_unattended(["ask", "--yes", "say hi"], env, work)
    assert result.returncode != 0
    assert (
        "valid PlanReply even after a repair request: the reply is not a JSON object; the request is its one step"
        in (result.stderr)
    )
    lines = [line for line in result.stderr.splitlines() if line.startswith("parsec:")]
    assert len(lines) == 1 and "StepReply" in lines[0] and "parsec resume" in lines[0]
    assert "Traceback" not in result.stderr
    assert load_conversation(env).status.value == "in_progress"  # a step failed: resumable
    assert [s.step.description for s in load_conversation(env).steps] == ["say hi"]
    assert len(stub.model_requests()) == 5


def test_a_step_reply_never_valid_falls_back_to_the_command_as_plain_text(stub, env, work: Path) -> None:
    """A small model that cannot write the step's JSON even after the repair request is asked
    for the command alone, as `llm` and `sgpt` ask; an exit status of 0 completes the step."""
    queue(
        stub,
        plan("Write hi to hi.txt"),
        {"text": "{not json"},
        {"text": "still {not json"},
        {"text": "```bash\necho hi > hi.txt\n```"},
    )
    result = run_unattended(["ask", "--yes", "--json", "write hi to hi.txt"], env, work)
    assert result.returncode == 0, result.stderr
    assert (work / "hi.txt").read_text() == "hi\n"
    assert "asking for the command alone" in result.stderr
    plain_request = user_messages(stub)[-1]
    assert "Reply with only the one bash command line" in plain_request
    steps = json.loads(result.stdout)["steps"]
    assert steps[0]["outcome"] == "complete"
    assert [c["command"] for c in steps[0]["commands"]] == ["echo hi > hi.txt"]
    exchanges = load_conversation(env).steps[0].exchanges
    assert [e.reply for e in exchanges] == ["still {not json", "```bash\necho hi > hi.txt\n```"]


def test_a_plan_of_bare_words_twice_makes_the_request_its_one_step(stub, env, work: Path) -> None:
    bare = {"json": {"name": "x", "steps": ["ls"]}}
    queue(stub, bare, bare, step("echo hi"), finished_step("said hi"))
    result = run_unattended(["ask", "--yes", "--json=full", "say hi"], env, work)
    assert result.returncode == 0, result.stderr
    assert "bare words like 'ls'; the request is its one step" in result.stderr
    data = conversation_json(result)
    assert data["status"] == "finished"
    assert [s["step"]["description"] for s in data["steps"]] == ["say hi"]
    assert "say hi" in user_messages(stub)[2]  # the step's request names it


def test_a_replan_the_model_cannot_write_is_an_error_not_the_request_alone(stub, env, work: Path) -> None:
    bare = {"json": {"name": "x", "steps": ["ls"]}}
    queue(stub, plan("Say hi", "Say bye"), bare, bare)
    child = spawn(["ask", "say hi then bye"], env, work)
    child.expect_exact("e-plan with a remark")
    child.sendline("r")
    child.expect("What should change")
    child.sendline("only say hi")
    child.expect("valid PlanReply even after a repair request")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus != 0


def test_without_a_provider_one_line_says_how_to_configure_one(env, work: Path) -> None:
    for name in ("PARSEC_PROVIDER", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        env.pop(name)  # and no OLLAMA_HOST: only a probe of localhost:11434, where nothing answers
    result = run_unattended(["ask", "--yes", "list files"], env, work)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("parsec:")
    assert "Traceback" not in result.stderr


def test_api_keys_are_scrubbed_from_commands(stub, env, work: Path) -> None:
    queue(stub, plan("Show keys"), step("env"), finished_step())
    result = run_unattended(["ask", "--yes", "--json=full", "show env"], env, work)
    assert result.returncode == 0, result.stderr
    output = conversation_json(result)["steps"][0]["command_attempts"][0]["output"]
    text = output["head"] + output["tail"]
    assert "OPENAI_API_KEY" not in text and env["OPENAI_API_KEY"] not in text
    assert "HOME=" in text


def test_conversations_list_show_and_abort(stub, env, work: Path) -> None:
    queue(stub, plan("Wait", "Later"), step("sleep 32.5"))
    child = spawn(["ask", "wait for it"], env, work)
    child.expect("accept")
    child.sendline("")
    child.expect(r"\$ sleep 32.5")
    child.sendline("")
    assert sleep_started("32.5"), "the command should be running"
    os.kill(child.pid, signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    conversation = load_conversation(env)

    listed = run_unattended(["conversations"], env, work)
    assert conversation.id in listed.stdout and "in_progress" in listed.stdout
    shown = run_unattended(["conversations", "show", conversation.id], env, work)
    assert "$ sleep 32.5" in shown.stdout and "approved" in shown.stdout
    aborted = run_unattended(["abort", conversation.id], env, work)
    assert aborted.returncode == 0, aborted.stderr
    assert load_conversation(env).status.value == "aborted"
    again = run_unattended(["resume", "--yes", conversation.id], env, work)
    assert again.returncode != 0 and again.stderr.startswith("parsec:") and "aborted" in again.stderr


def test_a_provider_outage_mid_workflow_keeps_it_resumable(stub, env, work: Path) -> None:
    queue(stub, plan("Say one", "Say two"), step("echo one"), finished_step(), {"status": 400, "error": "bad request"})
    result = run_unattended(["ask", "--yes", "say two things"], env, work)
    assert result.returncode != 0
    last = result.stderr.splitlines()[-1]
    assert last.startswith("parsec:") and "parsec resume" in last and "Traceback" not in result.stderr
    paused = load_conversation(env)
    assert paused.status.value == "in_progress" and paused.steps[0].status.value == "complete"
    queue(stub, step("echo two"), finished_step())
    resumed = run_unattended(["resume", "--yes", "--json=full"], env, work)
    assert resumed.returncode == 0, resumed.stderr
    assert conversation_json(resumed)["status"] == "finished"


def test_without_a_terminal_ask_needs_yes(stub, env, work: Path) -> None:
    result = run_unattended(["ask", "list files"], env, work)
    assert result.returncode == 2
    assert result.stderr.startswith("parsec: no terminal") and result.stderr.count("\n") == 1
    assert not stub.model_requests()
    empty = run_unattended(["ask", "--yes", "  "], env, work)
    assert empty.returncode == 2 and empty.stderr.startswith("parsec: say what you want done")


def test_secrets_in_output_are_masked_before_the_store_and_the_model(stub, env, work: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    queue(
        stub, plan("Print the token", "Then list"), step(f"echo {token}"), finished_step(), step("ls"), finished_step()
    )
    result = run_unattended(["ask", "--yes", "--json=full", "show it"], env, work)
    assert result.returncode == 0, result.stderr
    assert token not in result.stdout
    assert "REDACTED" in result.stdout
    assert all(token not in text for text in user_messages(stub))


def test_a_secret_typed_in_the_prompt_is_masked_everywhere(stub, env, work: Path) -> None:
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    queue(stub, plan("Deploy"), step("echo deploying"), finished_step())
    result = run_unattended(["ask", "--yes", "--json=full", f"deploy using token {token}"], env, work)
    assert result.returncode == 0, result.stderr
    data = conversation_json(result)
    assert "[REDACTED:" in data["original_prompt"] and token not in result.stdout
    assert all(token not in text for text in user_messages(stub))
    export = run_unattended(["export"], env, work)
    assert export.returncode == 0 and token not in export.stdout
    stored = b"".join(p.read_bytes() for p in (Path(env["XDG_DATA_HOME"]) / "parsec").glob("parsec.db*"))
    assert token.encode() not in stored


def test_privacy_mode_stores_the_commands_but_not_their_output(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Show a value"),
        step("echo private-output-1234; export SECRET_LOOKING_VAR=abc"),
        finished_step("shown"),
    )
    env["PARSEC_CONTEXT_MANAGEMENT_PRIVACY_MODE"] = "true"
    result = run_unattended(["ask", "--yes", "--json=full", "show a value"], env, work)
    assert result.returncode == 0, result.stderr
    assert "private-output-1234" in user_messages(stub)[-1]  # the model still saw the result
    stored = load_conversation(env).steps[0]
    assert stored.command_attempts[0].command.startswith("echo private-output-1234")
    assert stored.command_attempts[0].exit_status == 0 and stored.command_attempts[0].output is None
    assert all(change.kind == "cwd" for change in stored.environment_changes) and stored.context_used is None
    database = b"".join(p.read_bytes() for p in (Path(env["XDG_DATA_HOME"]) / "parsec").glob("parsec.db*"))
    assert database.count(b"private-output-1234") == database.count(b"echo private-output-1234")


def test_the_conversation_joins_the_shells_session_known_to_the_daemon(stub, env, work: Path, tmp_path: Path) -> None:
    """With the daemon running, `parsec ask` belongs to the session of the shell that ran it."""
    import subprocess

    from parsec.protocol.client import DaemonClient

    from .conftest import PARSEC

    daemon = subprocess.Popen(
        [*PARSEC, "daemon", "run"], env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        runtime = Path(env["XDG_RUNTIME_DIR"]) / "parsec"
        deadline = time.monotonic() + 20
        client = None
        while client is None and time.monotonic() < deadline:
            try:
                client = DaemonClient.connect(runtime=runtime, timeout=1.0)
            except Exception:
                time.sleep(0.2)
        assert client is not None, "the daemon did not start"
        with client:
            # What the hook of the shell that runs `parsec ask` (this test process) would send.
            client.call("session_start", session="test-shell-1", shell="bash", pid=os.getpid(), cwd=str(work))
            session_id = client.call("current_session", pid=os.getpid())["session_id"]
        assert session_id
        queue(stub, plan("Say hi"), step("echo hi"), finished_step())
        result = run_unattended(["ask", "--yes", "--json=full", "say hi"], env, work)
        assert result.returncode == 0, result.stderr
        assert conversation_json(result)["session_id"] == session_id
    finally:
        daemon.terminate()
        daemon.wait(timeout=20)


def test_unattended_runs_never_wait_for_a_pager_or_input(stub, env, work: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "first"],
        cwd=work,
        check=True,
    )
    queue(stub, plan("Show the log"), step("git log --oneline -n 1"), finished_step())
    env["PARSEC_WORKFLOW_COMMAND_TIMEOUT_S"] = "20"
    result = run_unattended(["ask", "--yes", "--json=full", "show the log"], env, work, timeout=60)
    data = conversation_json(result)
    log = data["steps"][0]["command_attempts"][0]
    assert log["exit_status"] == 0 and "first" in log["output"]["head"] and log["duration_ms"] < 15_000
    assert data["status"] == "finished"


def test_an_unattended_command_that_never_ends_is_stopped(stub, env, work: Path) -> None:
    queue(stub, plan("Follow the log"), step("sleep 45"))
    env["PARSEC_WORKFLOW_UNATTENDED_TIMEOUT_S"] = "1.5"
    started = time.monotonic()
    result = run_unattended(["ask", "--yes", "--json=full", "follow the log"], env, work, timeout=40)
    assert time.monotonic() - started < 30
    attempt = conversation_json(result)["steps"][0]["command_attempts"][0]
    assert attempt["executed"] and attempt["interrupted"] and attempt["duration_ms"] < 20_000
    assert not sleepers("45")


def test_a_step_can_take_several_commands_until_the_model_says_done(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Look around"),
        step("pwd", done=False),
        step("ls -a", done=False),
        finished_step("looked at the directory"),
    )
    result = run_unattended(["ask", "--yes", "--json=full", "look around"], env, work)
    assert result.returncode == 0, result.stderr
    data = conversation_json(result)
    assert [a["command"] for a in data["steps"][0]["command_attempts"]] == ["pwd", "ls -a"]
    assert data["steps"][0]["status"] == "complete"
    assert data["context_summary"]["key_achievements"] == ["Step 1: looked at the directory (pwd; ls -a)"]
    # The model saw each result before deciding: the last request carries the ls output's command.
    assert "ls -a" in user_messages(stub)[3]


def test_a_done_flag_sent_with_a_command_waits_for_its_result(stub, env, work: Path) -> None:
    queue(stub, plan("Count"), step("echo counted-it", done=True), finished_step("counted"))
    result = run_unattended(["ask", "--yes", "--json=full", "count"], env, work)
    assert result.returncode == 0, result.stderr
    assert conversation_json(result)["status"] == "finished"
    assert len(stub.model_requests()) == 3  # plan, the command, then done having seen the output
    assert "counted-it" in user_messages(stub)[2]


def test_a_step_that_never_ends_is_stopped_after_max_commands(stub, env, work: Path) -> None:
    queue(stub, plan("Loop"), step("echo 1"), step("echo 2"), step("echo 3"))
    env["PARSEC_WORKFLOW_MAX_COMMANDS_PER_STEP"] = "2"
    result = run_unattended(["ask", "--yes", "--json=full", "loop"], env, work)
    assert result.returncode == 1
    data = conversation_json(result)
    assert [a["command"] for a in data["steps"][0]["command_attempts"]] == ["echo 1", "echo 2"]
    assert data["status"] == "aborted" and "ran 2 commands" in data["error"]


def test_yes_runs_medium_risk_setup_commands(stub, env, work: Path) -> None:
    """Issue 14 item 8: `mkdir`, `git init` are medium risk; `--yes` runs them, never a high one."""
    queue(
        stub,
        plan("Create the project directory", "Make it a repository"),
        step("mkdir -p proj"),
        finished_step("made proj"),
        step("git init -q proj"),
        finished_step("repo"),
    )
    result = run_unattended(["ask", "--yes", "--json=full", "set up a project"], env, work)
    assert result.returncode == 0, result.stderr
    assert (work / "proj" / ".git").is_dir()
    approvals = [a["approval"] for s in conversation_json(result)["steps"] for a in s["command_attempts"]]
    assert approvals == ["auto_approved", "auto_approved"]


def test_yes_low_keeps_the_strict_mode(stub, env, work: Path) -> None:
    queue(stub, plan("Create the project directory"), step("mkdir -p proj"))
    result = run_unattended(["ask", "--yes=low", "--json=full", "set up a project"], env, work)
    assert result.returncode != 0
    assert not (work / "proj").exists()
    assert "--yes=low" in conversation_json(result)["error"]


def test_yes_never_runs_a_recursive_chmod_of_the_root_glob(stub, env, work: Path) -> None:
    queue(stub, plan("Open up permissions"), step("chmod -R 777 /*"))
    result = run_unattended(["ask", "--yes", "--json=full", "open up permissions"], env, work)
    assert result.returncode != 0
    attempt = conversation_json(result)["steps"][0]["command_attempts"][0]
    assert attempt["risk_level"] == "high" and attempt["executed"] is False


def test_openai_base_url_alone_configures_a_local_server(stub, env, work: Path) -> None:
    """Issue 14 item 10: llama.cpp, vLLM and LM Studio need no key; their URL is enough."""
    for name in ("PARSEC_PROVIDER", "OPENAI_API_KEY"):
        env.pop(name)
    queue(stub, plan("Say hi"), step("echo hi"), finished_step())
    result = run_unattended(["ask", "--yes", "--json", "say hi"], env, work)
    assert result.returncode == 0, result.stderr
    request = stub.model_requests()[0]
    assert request.path.endswith("/chat/completions") and "authorization" not in request.headers


def test_ollama_host_alone_configures_ollama(stub, env, work: Path) -> None:
    for name in ("PARSEC_PROVIDER", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(name)
    env["OLLAMA_HOST"] = stub.url
    queue(stub, plan("Say hi"), step("echo hi"), finished_step())
    result = run_unattended(["ask", "--yes", "--json", "say hi"], env, work)
    assert result.returncode == 0, result.stderr
    assert [r.path for r in stub.model_requests()][0] == "/api/chat"


def test_doctor_says_whether_a_model_is_configured_and_reachable(stub, env, work: Path) -> None:
    env.pop("OPENAI_API_KEY")
    stub.reply("OK")  # the one-token request, then the tiny structured one
    stub.reply(json={"ready": True})
    answered = run_unattended(["doctor"], env, work)
    line = next(line for line in answered.stdout.splitlines() if "] model:" in line)
    assert line.startswith("[ok  ]") and "openai" in line and "answers" in line
    assert "structured output 'json_schema' accepted" in line
    env["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
    down = run_unattended(["doctor"], env, work)
    line = next(line for line in down.stdout.splitlines() if "] model:" in line)
    assert line.startswith("[FAIL]") and "127.0.0.1:9" in line and down.returncode == 1


def test_files_made_before_a_cd_in_the_same_command_are_artifacts(stub, env, work: Path) -> None:
    """Issue 14 item 6: the same directory is compared before and after, wherever the command ends."""
    queue(
        stub,
        plan("Make the project and enter it"),
        step("mkdir -p proj && touch proj/notes.txt && cd proj"),
        finished_step("made proj"),
    )
    result = run_unattended(["ask", "--yes", "--json=full", "make a project"], env, work)
    assert result.returncode == 0, result.stderr
    artifacts = {(a["path"], a["change"]) for a in conversation_json(result)["steps"][0]["artifacts_produced"]}
    assert {(str(work / "proj"), "created"), (str(work / "proj" / "notes.txt"), "created")} <= artifacts


def test_the_end_of_a_workflow_says_what_was_done_and_what_to_run(stub, env, work: Path) -> None:
    """Issue 14 item 5: achievements, final directory, exports, virtualenv, and the lines to run."""
    queue(
        stub,
        plan("Make and enter a directory", "Set the mode", "Fake a virtualenv"),
        step("mkdir -p app && cd app"),
        finished_step("entered app"),
        step("export BUILD_MODE=fast"),
        finished_step("set the mode"),
        step("export VIRTUAL_ENV=$PWD/.venv"),
        finished_step("activated it"),
    )
    env.pop("PARSEC_CD_FILE")  # no hooks: nothing is carried back
    result = run_unattended(["ask", "--yes", "--json", "set up"], env, work)
    assert result.returncode == 0, result.stderr
    tail = result.stderr[result.stderr.index("Finished") :]
    assert "Step 1: entered app" in tail and "Step 3: activated it" in tail
    assert f"Final directory: {work / 'app'} (not carried back: run `cd {work / 'app'}`)" in tail
    assert "run `export BUILD_MODE=fast`" in tail
    assert f"run `source {work / 'app' / '.venv' / 'bin' / 'activate'}`" in tail
