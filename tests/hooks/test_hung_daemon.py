"""A hung (SIGSTOPped) or killed daemon never blocks or kills the shell, and loses no record:
what the FIFO cannot take goes to the private spool (docs/hooks.md, "Transport")."""

from __future__ import annotations

import os
import signal
import time

import pytest

from .conftest import need
from .fake_daemon import read_spool
from .harness import Daemon, Shell, executions

COMMANDS = 300  # zsh used to freeze after about 135 with the daemon stopped (its socket filled)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_stopped_daemon_never_blocks_the_shell(sandbox, daemon, shell):
    need(shell)
    sh = Shell(shell, sandbox)
    sh.run("echo before")
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        for i in range(COMMANDS):
            assert f"n{i}" in sh.run(f"echo n{i}")  # each waits at most the harness timeout (8 s): a hang guard
        # A line that would be classified runs as typed: bash and zsh ask and wait out
        # PARSEC_HOOK_TIMEOUT once; fish's helper does not ask (the FIFO is not empty).
        not_found = "Unknown command" if shell == "fish" else "not found"
        assert not_found in sh.run("summarise the disk usage here")
        out = sh.run("echo still-alive")
        assert "still-alive" in out
        spooled = {m.get("command") for m in read_spool(sandbox.runtime) if m.get("type") == "command_finished"}
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    sh.exit()
    # Not waited for: once the stopped daemon's FIFO is seen full, every record goes to the spool
    # (what each line costs then: bench/hooks.py, "parsec (daemon stopped)").
    assert {f"echo n{i}" for i in range(10, COMMANDS)} <= spooled
    found = {e.command for e in executions(sandbox, daemon, sandbox.work, want=COMMANDS + 2, timeout=60)}
    missing = [i for i in range(COMMANDS) if f"echo n{i}" not in found]
    assert not missing and {"echo before", "echo still-alive"} <= found


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_a_killed_daemon_loses_nothing_and_kills_nothing(sandbox, shell):
    """The shell's write end never meets a missing reader (no SIGPIPE); the line left in the
    dead daemon's FIFO is taken over by the next daemon, the rest comes from the spool."""
    need(shell)
    daemon = Daemon(sandbox).start()
    sh = Shell(shell, sandbox)
    sh.run("echo one")
    executions(sandbox, daemon, sandbox.work, want=1)  # a record in flight at -9 is not acknowledged
    daemon.proc.kill()
    daemon.proc.wait()
    for i in range(20):
        assert f"gone {i}" in sh.run(f"echo gone {i}")
    daemon = Daemon(sandbox).start()
    try:
        sh.run("echo back")
        sh.exit()
        found = {e.command for e in executions(sandbox, daemon, sandbox.work, want=22, timeout=30)}
        assert {"echo one", "echo back", *(f"echo gone {i}" for i in range(20))} <= found
    finally:
        daemon.stop()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_big_paste_is_recorded_whole(sandbox, daemon, shell):
    """Defect 11: a line too long for one FIFO write is not escaped by the hook (seconds for a
    megabyte) but written raw beside the spool; the daemon stores it whole."""
    need(shell)
    # about 210 kB; fish itself needs seconds for 20 kB (bare, its editor is quadratic): 8 kB
    text = "true " + "pasted words, " * (600 if shell == "fish" else 15_000)
    sh = Shell(shell, sandbox)
    sh.child.timeout = 60
    sh.child.send("\x1b[200~" + text + "\x1b[201~\r")
    sh.expect_prompt()
    sh.run("echo after")
    sh.exit()
    commands = [e.command for e in executions(sandbox, daemon, sandbox.work, want=2, timeout=30)]
    assert text in commands and "echo after" in commands
    assert not list((sandbox.runtime / "spool").glob("*.txt"))  # taken with its record


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_late_answer_is_never_taken_for_the_next_question(sandbox, fake_daemon, shell):
    """The stand-in answers "slowly" after the hook stopped waiting; the next question must get
    its own answer (the hooks read an answer's first byte with a timeout and the rest without)."""
    need(shell)
    sh = Shell(shell, sandbox, env={"PARSEC_HOOK_TIMEOUT": "0.15"})
    assert "ran slowly" in sh.run("echo ran slowly")  # timed out: runs as typed
    deadline = time.monotonic() + 30  # until the late answer ("command") waits in the reply FIFO
    while not fake_daemon.late_answers and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fake_daemon.late_answers >= 1
    for n in range(3):
        assert f"ASKED<please list {n}>" in sh.run(f"please list {n}")
        assert f"said {n}" in sh.run(f"echo said {n}")
    sh.exit()


def test_fish_stops_waiting_for_a_hung_daemon_until_it_answers(sandbox, daemon):
    """fish asks through a helper process that keeps no state: the hook remembers that the last
    question got no answer, and then the helper only looks at the FIFO instead of waiting for the
    daemon to empty it (it used to wait 50 ms on every line that needed a question)."""
    need("fish")
    sh = Shell("fish", sandbox)
    sh.run("echo before")  # a question, answered
    assert "unanswered=0" in sh.run("echo unanswered=$__parsec_unanswered")  # `$`: plainly a command
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        assert "asked unanswered" in sh.run("echo asked unanswered")  # runs as typed after the timeout
        assert "unanswered=1" in sh.run("echo unanswered=$__parsec_unanswered")
        assert "still runs" in sh.run("echo still runs")
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    deadline = time.monotonic() + 20
    while "unanswered=0" not in sh.run("echo unanswered=$__parsec_unanswered"):
        assert time.monotonic() < deadline, "fish never asked the daemon again"
        sh.run("echo ask again")
    sh.exit()
