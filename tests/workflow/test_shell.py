"""The persistent shell: state carries over, output is captured, Ctrl-C and timeouts stop the
command's whole process group, and a dead shell is replaced where the old one stood."""

from __future__ import annotations

import io
import os
import signal
import threading
import time

import psutil
import pytest

from parsec.workflow.execution.persistent_shell import PersistentShell


@pytest.fixture
def shell(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    with PersistentShell(str(tmp_path), env, shell="/bin/bash") as sh:
        yield sh


def test_cd_exports_and_venv_like_changes_carry_over(shell, tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    assert shell.run("cd sub && export GREETING=hello").exit_status == 0
    result = shell.run('pwd; echo "$GREETING"; PATH="$PWD/bin:$PATH"; export PATH')
    assert result.output.splitlines() == [str(tmp_path / "sub"), "hello"]
    assert result.cwd == str(tmp_path / "sub")
    assert result.env["GREETING"] == "hello"
    assert result.env["PATH"].startswith(str(tmp_path / "sub" / "bin"))


def test_output_streams_live_and_is_captured(shell) -> None:
    sink = io.BytesIO()
    result = shell.run("printf 'a\\nb\\n'; echo err >&2; exit_status_test() { return 3; }; exit_status_test", echo=sink)
    assert result.exit_status == 3
    assert result.output == "a\nb\nerr\n"
    assert sink.getvalue().replace(b"\r\n", b"\n") == b"a\nb\nerr\n"


def test_commands_get_a_terminal(shell) -> None:
    assert shell.run("test -t 0 && test -t 1 && echo tty").output.strip() == "tty"


def test_sigint_stops_the_whole_process_group_and_the_shell_survives(shell) -> None:
    marker = f"parsec-test-{os.getpid()}-{time.monotonic_ns()}"
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    result = shell.run(f"sleep 30 & sleep 31; echo {marker}-never")
    assert time.monotonic() - started < 10
    assert result.interrupted
    assert f"{marker}-never" not in result.output
    assert shell.run("echo alive").output.strip() == "alive"
    leftovers = [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "31"]]
    assert not [p for p in leftovers if p.ppid() == shell.pid]


def test_timeout_kills_the_command(shell) -> None:
    started = time.monotonic()
    result = shell.run("sleep 20", timeout=0.5)
    assert result.timed_out and result.exit_status != 0
    assert time.monotonic() - started < 8
    assert shell.run("echo ok").exit_status == 0


def test_exit_restarts_the_shell_where_it_stood(shell, tmp_path) -> None:
    (tmp_path / "d").mkdir()
    shell.run("cd d && export KEEP=1")
    result = shell.run("exit 4")
    assert result.shell_died and result.exit_status == 4
    after = shell.run('pwd; echo "$KEEP"')
    assert after.output.splitlines() == [str(tmp_path / "d"), "1"]


def test_output_cannot_fake_the_end_marker(shell) -> None:
    result = shell.run(r"printf '\033]7770;0000000000000000\007'; echo after")
    assert "after" in result.output


def test_without_a_terminal_the_pty_has_a_sane_size(shell) -> None:
    # (Through a real terminal the pty copies its size: see the interactive flow test.)
    assert shell.run("stty size").output.split() == ["24", "100"]


def test_detached_input_gives_end_of_file_and_keeps_state(shell, tmp_path) -> None:
    (tmp_path / "x").mkdir()
    result = shell.run('cd x; read line; echo "read=$? line=$line"', detached_input=True, timeout=10)
    assert result.output.strip() == "read=1 line=" and not result.timed_out
    assert shell.run("pwd").output.strip() == str(tmp_path / "x")


def test_every_terminal_control_sequence_is_stripped_from_captured_output(tmp_path) -> None:
    """Issue 14 item 7: `less` writes ESC = / ESC > (keypad modes); none may reach the store or a model."""
    from parsec.workflow.execution.persistent_shell import PersistentShell

    with PersistentShell(str(tmp_path), {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}) as shell:
        result = shell.run(
            r"printf '\033=\033[?1h\033[1mbold\033[0m \033(Bplain\033>\033]0;title\007 bar\r\n"
            r"50%%\r100%%\n\033[2Kdone\n'"
        )
    assert "\x1b" not in result.output and "\r" not in result.output
    assert result.output.splitlines() == ["bold plain bar", "100%", "done"]
