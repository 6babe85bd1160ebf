"""A real daemon process in an isolated set of XDG directories, and helpers to talk to it."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from parsec.protocol.client import DaemonClient

REPO = Path(__file__).resolve().parents[2]


class Sandbox:
    """XDG_RUNTIME/DATA/STATE/CONFIG dirs under a short temp path (Unix socket paths are short)."""

    def __init__(self, **config: object) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="pd"))
        self.env = dict(os.environ)
        for name in ("RUNTIME", "DATA", "STATE", "CONFIG", "CACHE"):
            path = self.root / name.lower()
            path.mkdir(mode=0o700)
            self.env[f"XDG_{name}_HOME" if name != "RUNTIME" else "XDG_RUNTIME_DIR"] = str(path)
        self.env.pop("PARSEC_CONFIG", None)
        for key, value in config.items():  # e.g. daemon_client_timeout_s=0.5
            self.env[f"PARSEC_{key.upper()}"] = str(value)
        self.runtime = self.root / "runtime" / "parsec"
        self.db = self.root / "data" / "parsec" / "parsec.db"
        self.journal = self.root / "state" / "parsec" / "journal"
        self.process: subprocess.Popen | None = None

    # --- processes -------------------------------------------------------------------------
    def cli(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "parsec.cli.entry", *args],
            env=self.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def run(self) -> subprocess.Popen:
        """`python -m parsec.daemon` in the foreground (as `parsec daemon run` does)."""
        self.process = subprocess.Popen(
            [sys.executable, "-m", "parsec.daemon"],
            env=self.env,
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.wait_ready()
        return self.process

    def wait_ready(self, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"daemon exited {self.process.returncode}: {self.process.stderr.read().decode()}")
            try:
                with self.client(timeout=1) as client:
                    client.call("ping")
                    return
            except Exception:
                time.sleep(0.02)
        raise AssertionError("daemon did not answer")

    # Longer than the daemon's own bound on a flush (writer.HUNG_AFTER_S, 30 s): on a busy machine a
    # test waits for the answer rather than failing on its own clock.
    def client(self, timeout: float = 60) -> DaemonClient:
        return DaemonClient.connect(self.runtime, timeout=timeout)

    def pid(self) -> int:
        return int((self.runtime / "daemon.pid").read_text())

    def terminate(self, timeout: float = 90) -> int:  # a deadline: a busy machine stretches the stop
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            _kill_with_children(self.process.pid)
            self.process.wait()

    def close(self) -> None:
        self.kill()
        pid_file = self.runtime / "daemon.pid"
        if pid_file.exists():  # a daemon started with `parsec daemon start`
            try:
                _kill_with_children(int(pid_file.read_text()))
            except ValueError:
                pass
        shutil.rmtree(self.root, ignore_errors=True)

    # --- the store -------------------------------------------------------------------------
    def sql(self, query: str) -> list[tuple]:
        with sqlite3.connect(self.db) as db:
            return db.execute(query).fetchall()

    def execution_count(self) -> int:
        """Rows in the store; 0 while the store process has not yet created the file or its
        tables (it migrates in the background after the daemon already answers)."""
        if not self.db.exists():
            return 0
        tables = self.sql("select name from sqlite_master where type = 'table' and name = 'executions'")
        return self.sql("select count(*) from executions")[0][0] if tables else 0


def _kill_with_children(pid: int) -> None:
    """SIGKILL a daemon, then wait for its store writer to notice and exit (it would otherwise
    recreate the store file after the sandbox is removed)."""
    try:
        children = psutil.Process(pid).children()
        os.kill(pid, signal.SIGKILL)
    except (psutil.NoSuchProcess, ProcessLookupError):
        return
    psutil.wait_procs(children, timeout=10)


def finished(session: str, seq: int, command: str | None = None, **extra: object) -> dict:
    """A complete command_finished message (a lone one is a full record)."""
    now = time.time()
    return {
        "session": session,
        "seq": seq,
        "exit_status": seq % 3,
        "pipeline_statuses": [seq % 3],
        "command": command or f"echo {seq}",
        "started_at": now - 0.01,
        "finished_at": now,
        "cwd": "/tmp",
        "cwd_after": "/tmp",
        **extra,
    }
