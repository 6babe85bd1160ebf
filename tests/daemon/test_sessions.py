"""Session recording: ids, GlobalContext, last_active, and closing sessions whose shell is gone."""

from __future__ import annotations

import json
import subprocess
import time

from .harness import finished


def test_session_context_and_dead_shell_closed(make_sandbox, tmp_path):
    box = make_sandbox(daemon_session_check_interval_s=0.2)
    box.run()
    project = tmp_path / "crate" / "src"
    project.mkdir(parents=True)
    (tmp_path / "crate" / "Cargo.toml").write_text("[package]\n")
    shell = subprocess.Popen(["sleep", "60"])
    key = f"{shell.pid}-{time.time():.6f}"
    with box.client() as client:
        started = client.call(
            "session_start",
            session=key,
            shell="bash",
            pid=shell.pid,
            tty="/dev/pts/3",
            user="me",
            host="box",
            cwd=str(project),
            env={"TERM": "xterm-256color", "PATH": "/usr/bin:/bin", "DB_PASSWORD": "pw"},
        )
        assert (
            client.call("session_start", session=key, shell="bash", pid=shell.pid)["session_id"]
            == started["session_id"]
        )
        assert client.call("current_session", pid=shell.pid)["session_id"] == started["session_id"]
        client.call(
            "command_started",
            session=key,
            seq=1,
            command="cargo build --release",
            started_at=time.time(),
            cwd=str(project),
        )
        client.call(
            "command_finished",
            session=key,
            seq=1,
            exit_status=101,
            pipeline_statuses=[101],
            finished_at=time.time() + 1.5,
            cwd_after=str(project),
        )
        client.call("flush")
    shell.kill()
    shell.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with box.client() as client:
            client.call("flush")
        if box.sql("select ended_at from sessions")[0][0] is not None:
            break
        time.sleep(0.1)
    ((session_id, pid, shell_name, tty, ended, data),) = box.sql(
        "select id, pid, shell, tty, ended_at, data from sessions"
    )
    assert session_id == started["session_id"] and pid == shell.pid and shell_name == "bash" and tty == "/dev/pts/3"
    assert ended is not None, "the session of a dead shell was not closed"
    context = json.loads(data)["global_context"]
    assert context["working_directory"] == str(project)
    assert context["detected_project_type"] == "rust"
    assert context["environment_snapshot"] == {"TERM": "xterm-256color"}
    assert "cargo" in context["active_tools"]  # used in the session, whether on PATH or not
    ((command, status, pipeline, duration, cwd),) = box.sql(
        "select command, exit_status, pipeline_statuses, duration_ms, cwd from executions"
    )
    assert (command, status, json.loads(pipeline), cwd) == ("cargo build --release", 101, [101], str(project))
    assert 1400 <= duration <= 1700
    with box.client() as client:
        assert client.call("current_session", pid=shell.pid)["session_id"] is None


def test_session_end_closes_and_output_is_kept_truncated(sandbox):
    sandbox.run()
    with sandbox.client() as client:
        client.call("session_start", session="500-2.0", shell="zsh", pid=None, cwd="/tmp")
        client.call("command_output", session="500-2.0", seq=1, output="line\n" * 5000, output_bytes=25000)
        client.call("command_finished", **finished("500-2.0", 1, command="yes line | head -5000"))
        client.call("session_end", session="500-2.0")
        client.call("flush")
    ((ended,),) = sandbox.sql("select ended_at from sessions")
    assert ended is not None
    ((stdout,),) = sandbox.sql("select stdout from executions")
    text = json.loads(stdout)
    assert text["original_bytes"] == 25000 and text["omitted_bytes"] > 0  # [context_pruning] limit
    assert text["head"].startswith("line\n") and len(text["head"]) + len(text["tail"]) <= 1100


def test_classify_answers(sandbox):
    sandbox.run()
    with sandbox.client() as client:
        reply = client.request("classify", session="1-1", text="git status", first_word="file", parses=True, cwd="/tmp")
    assert reply["ok"] is True and reply["decision"] == "command"
    assert 0.0 <= reply["confidence"] <= 1.0 and reply["reason"]


def test_a_command_still_running_when_the_shell_dies_is_kept(make_sandbox):
    box = make_sandbox(daemon_session_check_interval_s=0.2)
    box.run()
    shell = subprocess.Popen(["sleep", "60"])
    key = f"{shell.pid}-{time.time():.6f}"
    with box.client() as client:
        client.call("session_start", session=key, shell="zsh", pid=shell.pid, cwd="/tmp")
        client.call(
            "command_started",
            session=key,
            seq=1,
            command="tail -f /var/log/syslog",
            started_at=time.time(),
            cwd="/var/log",
        )
    shell.kill()  # the terminal closed mid-command
    shell.wait()
    deadline = time.monotonic() + 10
    rows = []
    while not rows and time.monotonic() < deadline:
        with box.client() as client:
            client.call("flush")
        rows = box.sql("select command, exit_status, cwd from executions")
        time.sleep(0.1)
    assert rows == [("tail -f /var/log/syslog", None, "/var/log")]


def test_pending_output_of_all_sessions_is_bounded_and_drops_are_reported(make_sandbox):
    """64 pending outputs per session × 4096 sessions × max_message_bytes could reach hundreds of
    GB; the total held is bounded, the oldest goes first, and status and the log say so."""
    box = make_sandbox(daemon_max_pending_output_bytes=200_000, daemon_max_message_bytes=200_000)
    box.run()
    chunk = "o" * 40_000
    with box.client(timeout=60) as client:
        for session in range(6):
            for seq in range(1, 4):
                assert client.call("command_output", session=f"{800 + session}-1.0", seq=seq, output=chunk)["ok"]
        status = client.call("status")
        assert status["pending_output_bytes"] <= 200_000
        assert status["outputs_dropped"] == 18 - 5 and status["output_bytes_dropped"] == 13 * 40_000
        for session in range(6):
            for seq in range(1, 4):
                assert client.call("command_finished", **finished(f"{800 + session}-1.0", seq))["recorded"]
        assert client.call("flush")["in_store"] is True
        assert client.call("status")["pending_output_bytes"] == 0
    with_output = box.sql("select count(*) from executions where stdout is not null")[0][0]
    assert box.execution_count() == 18 and with_output == 5  # every command kept; the newest 5 outputs
    assert "pending command output over 200000 bytes" in (box.root / "state" / "parsec" / "daemon.log").read_text()
