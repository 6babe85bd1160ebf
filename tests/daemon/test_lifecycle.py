"""start / stop / restart / status / run, with real processes."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
from installed import installed_parsec

from .harness import REPO, finished


def test_start_status_restart_stop(sandbox):
    started = sandbox.cli("daemon", "start")
    assert started.returncode == 0, started.stderr
    pid = sandbox.pid()
    assert f"pid {pid}" in started.stdout and _alive(pid)

    socket_mode = (sandbox.runtime / "daemon.sock").stat().st_mode & 0o777
    assert socket_mode == 0o600
    assert sandbox.runtime.stat().st_mode & 0o777 == 0o700
    assert (sandbox.runtime / "hooks.fifo").stat().st_mode & 0o777 == 0o600
    assert not (sandbox.runtime / "tcp").exists()

    again = sandbox.cli("daemon", "start")
    assert again.returncode == 0 and "already running" in again.stdout and sandbox.pid() == pid

    status = sandbox.cli("daemon", "status")
    assert status.returncode == 0, status.stderr
    for label in (
        "pid",
        "version",
        "uptime",
        "memory (RSS)",
        "cpu",
        "sessions open",
        "requests",
        "queue depth",
        "store",
        "last error",
    ):
        assert label in status.stdout
    assert str(pid) in status.stdout

    restarted = sandbox.cli("daemon", "restart")
    assert restarted.returncode == 0, restarted.stderr
    new_pid = sandbox.pid()
    assert new_pid != pid and not _alive(pid)

    stopped = sandbox.cli("daemon", "stop")
    assert stopped.returncode == 0 and f"pid {new_pid}" in stopped.stdout
    assert not _alive(new_pid)
    assert not (sandbox.runtime / "daemon.sock").exists()
    assert sandbox.cli("daemon", "stop").stdout.splitlines()[0] == "daemon was not running"


def test_starts_from_a_directory_holding_a_parsec_folder(sandbox, tmp_path):
    """`python -m` puts the working directory first on sys.path: a clone of this repository in ~
    (or anything named parsec/) must not be what the daemon imports (issue 12, defect 8)."""
    (tmp_path / "parsec").mkdir()
    (tmp_path / "parsec" / "__init__.py").write_text("raise ImportError('the wrong parsec')\n")
    parsec = installed_parsec()  # the installed command, as a user runs it
    started = subprocess.run(
        [str(parsec), "daemon", "start"], env=sandbox.env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert started.returncode == 0, started.stderr
    with sandbox.client() as client:
        assert client.call("ping")["ok"]
    assert "wrong parsec" not in (sandbox.root / "state" / "parsec" / "daemon.out").read_text()


def test_a_failed_start_names_the_file_holding_the_error(sandbox):
    (sandbox.root / "state" / "parsec" / "daemon.log").mkdir(parents=True)  # logging cannot start
    result = sandbox.cli("daemon", "start")
    assert result.returncode != 0
    named = re.search(r"\(its output: (\S+)\)", result.stderr)
    assert named, result.stderr
    assert "IsADirectoryError" in result.stderr  # the cause, in the message itself
    assert "IsADirectoryError" in Path(named.group(1)).read_text()


def test_status_without_daemon_is_one_line_error(sandbox):
    result = sandbox.cli("daemon", "status")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "parsec daemon start" in result.stderr
    assert "Traceback" not in result.stderr


def test_two_starts_race_and_one_daemon_results(sandbox):
    command = [sys.executable, "-m", "parsec.cli.entry", "daemon", "start"]
    racers = [subprocess.Popen(command, env=sandbox.env, cwd=REPO, stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [racer.communicate(timeout=30)[0] for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0, 0], outputs
    pid = sandbox.pid()
    assert all(f"pid {pid}" in out for out in outputs), outputs
    # A losing racer's daemon may still be starting up: it must find the lock taken and exit.
    deadline = time.monotonic() + 15
    while True:
        daemons = [p.pid for p in psutil.process_iter(["cmdline", "environ"]) if _is_daemon_of(p, sandbox)]
        if daemons == [pid] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert daemons == [pid]


def _is_daemon_of(process: psutil.Process, sandbox) -> bool:
    try:
        cmdline = process.info["cmdline"] or []
        environ = process.info["environ"] or {}
    except (psutil.Error, KeyError):
        return False
    return (
        cmdline[1:4] == ["-P", "-m", "parsec.daemon"]
        and environ.get("XDG_RUNTIME_DIR") == sandbox.env["XDG_RUNTIME_DIR"]
    )


def test_stale_socket_and_pidfile_after_kill_9_are_replaced(sandbox):
    assert sandbox.cli("daemon", "start").returncode == 0
    pid = sandbox.pid()
    os.kill(pid, signal.SIGKILL)
    _wait_gone(pid)
    assert (sandbox.runtime / "daemon.sock").exists() and (sandbox.runtime / "daemon.pid").exists()

    result = sandbox.cli("daemon", "start")
    assert result.returncode == 0, result.stderr
    assert sandbox.pid() != pid
    with sandbox.client() as client:
        assert client.call("ping")["ok"]


def test_run_in_foreground_and_sigterm_exits_zero(sandbox):
    process = sandbox.run()
    with sandbox.client() as client:
        client.call("command_finished", **finished("7-1.0", 1))
    code = sandbox.terminate()
    errors = process.stderr.read()
    assert (code, errors) == (0, b""), (sandbox.root / "state" / "parsec" / "daemon.log").read_text()[-3000:]
    assert sandbox.execution_count() == 1
    assert not (sandbox.runtime / "daemon.pid").exists()


def test_second_run_refuses_while_one_runs(sandbox):
    sandbox.run()
    second = subprocess.run(
        [sys.executable, "-m", "parsec.daemon"], env=sandbox.env, cwd=REPO, capture_output=True, text=True, timeout=30
    )
    assert second.returncode == 3 and "already running" in second.stderr


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it counts as gone)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)


def test_cli_run_is_the_daemon_in_the_foreground(sandbox):
    process = subprocess.Popen(
        [sys.executable, "-m", "parsec.cli.entry", "daemon", "run"],
        env=sandbox.env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    sandbox.process = process
    sandbox.wait_ready()
    assert sandbox.pid() == process.pid  # the CLI process became the daemon (systemd tracks it)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
