"""`parsec shell`: the pty proxy, driven through a real pseudo-terminal, recording into the real daemon."""

from __future__ import annotations

import shutil
import time

import pexpect
import pytest

from .harness import Daemon, Shell, executions


def running(cmdline: list[str]) -> bool:
    import psutil

    return any(p.info["cmdline"] == cmdline for p in psutil.process_iter(["cmdline"]))


def wait_until(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for a condition"
        time.sleep(0.02)


LIMIT_ENV = {"PARSEC_CONTEXT_PRUNING_MAX_COMMAND_OUTPUT_LENGTH": "256"}


@pytest.fixture
def limited_daemon(sandbox):
    sandbox.env.update(LIMIT_ENV)
    running = Daemon(sandbox).start()
    yield running
    running.stop()


def parsec_shell(sandbox, kind: str = "bash", **kwargs) -> Shell:
    return Shell(kind, sandbox, argv=[shutil.which("parsec"), "shell"], **kwargs)


def test_output_captured_cut_and_full_screen_skipped(sandbox, limited_daemon):
    sh = parsec_shell(sandbox)
    out = sh.run("echo out; echo err >&2; printf '\\033[31mred\\033[0m\\n'")
    assert "\x1b[31mred\x1b[0m" in out  # the terminal got every byte untouched
    sh.run("seq 1 5000")
    sh.run("printf '\\033[?1049h'; echo on-the-alternate-screen; printf '\\033[?1049l'")
    sh.run(" echo private output")
    sh.exit()
    found = executions(sandbox, limited_daemon, sandbox.work, want=3)
    by = {e.command.split(";")[0].split(" ")[0]: e for e in found}
    assert by["echo"].stdout.render() == "out\nerr\nred\n"  # stdout and stderr share the pty; ANSI stripped
    cut = by["seq"].stdout
    assert cut.truncated and cut.head.startswith("1\n2\n3\n") and cut.tail.endswith("4999\n5000\n")
    assert len((cut.head + cut.tail).encode()) <= 256
    assert by["printf"].stdout is None and by["printf"].exit_status == 0
    assert len(found) == 3


def test_secrets_in_output_are_masked(sandbox, daemon):
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789AB"
    sh = parsec_shell(sandbox)
    assert token in sh.run(f"printf 'using %s\\n' {token}")  # the terminal shows it
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=1)
    assert token not in found[0].stdout.render() and "[REDACTED" in found[0].stdout.render()
    assert token not in found[0].command


def test_zsh_output_and_ctrl_c(sandbox, daemon):
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed")
    sh = parsec_shell(sandbox, "zsh")
    sh.run("echo from zsh")
    sh.child.sendline("sleep 20.25")
    sh.child.expect_exact("\x1b]133;C\x07")  # the command is starting (OSC 133 C from preexec)
    wait_until(lambda: running(["sleep", "20.25"]))  # exec'd: the Ctrl-C is the program's
    sh.child.sendcontrol("c")  # Ctrl-C reaches the program in the inner terminal
    sh.expect_prompt()
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=2)
    assert [(e.command, e.exit_status) for e in found] == [("echo from zsh", 0), ("sleep 20.25", 130)]
    assert found[0].stdout.render() == "from zsh\n"


def test_resize_reaches_the_inner_shell_and_terminal_is_restored(sandbox):
    outer = pexpect.spawn(
        "bash", ["--norc", "--noprofile", "-i"], env=sandbox.env, encoding="utf-8", timeout=10, dimensions=(40, 120)
    )
    outer.sendline("PS1='O''> '")
    outer.expect_exact("O> ")
    outer.sendline(f"{shutil.which('parsec')} shell bash --norc --noprofile -i")
    outer.sendline("PS1='I''> '")  # typed so that its echo does not look like the prompt
    outer.expect_exact("I> ")
    outer.sendline("stty size")
    outer.expect_exact("40 120")
    outer.setwinsize(30, 100)
    # The proxy passes the new size on when its SIGWINCH handler runs: ask until it has.
    wait_until(lambda: outer.sendline("stty size") and outer.expect_exact(["30 100", "40 120"]) == 0)
    outer.sendline("exit")
    outer.expect_exact("O> ")
    outer.sendline("stty -a | tr ' ' '\\n' | grep -x -e '-*icanon' -e '-*echo'")
    outer.expect_exact("O> ")
    modes = outer.before.split()
    assert "icanon" in modes and "echo" in modes  # raw mode undone
    outer.sendline("exit")
    outer.expect(pexpect.EOF)


def test_refuses_to_nest(sandbox):
    sh = parsec_shell(sandbox)
    out = sh.run(f"{shutil.which('parsec')} shell; echo status=$?")
    assert "already inside `parsec shell`" in out and "status=2" in out
    sh.exit()


def test_fish_output_goes_through_the_proxy(sandbox, daemon):
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")
    sh = parsec_shell(sandbox, "fish")
    sh.run("echo from fish; echo to stderr >&2")
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=2)  # fish also records `exit`
    echo = [e for e in found if e.command == "echo from fish; echo to stderr >&2"]
    assert len(echo) == 1 and echo[0].stdout.render() == "from fish\nto stderr\n"
