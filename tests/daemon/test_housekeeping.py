"""Periodic jobs: the retention prune, and the log file's rotation."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import timedelta

from parsec.models.parsec_model import utcnow
from parsec.models.session import DirectCommandExecution, Session
from parsec.models.text import TruncatedText
from parsec.store import open_store

from .harness import finished


def _wait_for_prune(client) -> dict:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        job = next(job for job in client.call("status")["jobs"] if job["name"] == "retention prune")
        if job["runs"] >= 1:
            return job
        time.sleep(0.2)
    return job


def test_scheduled_retention_prune_removes_old_sessions(make_sandbox):
    box = make_sandbox(daemon_prune_interval_hours=0.0003, context_management_history_retention_days=30)
    old_time = utcnow() - timedelta(days=45)
    old = Session(created_at=old_time, last_active=old_time, ended_at=old_time, shell="bash")
    box.db.parent.mkdir(parents=True, exist_ok=True)
    store = open_store(f"sqlite:///{box.db}")
    store.save_session(old)
    store.append_executions([DirectCommandExecution(session_id=old.id, command="ls", executed_at=old_time)])
    store.close()
    box.run()
    with box.client() as client:
        client.call("command_finished", **finished("800-1.0", 1))
        job = _wait_for_prune(client)
        assert job["runs"] >= 1 and job["last_error"] is None, job
        client.call("flush")
    assert box.sql(f"select count(*) from sessions where id = '{old.id}'") == [(0,)]
    assert box.execution_count() == 1  # the recent one is kept
    assert "retention prune" in (box.root / "state" / "parsec" / "daemon.log").read_text()


def test_scheduled_prune_with_default_retention_keeps_old_history(make_sandbox):
    # Issue 13: five years of imported history used to go the day it was imported.
    box = make_sandbox(daemon_prune_interval_hours=0.0003)
    old_time = utcnow() - timedelta(days=5 * 365)
    old = Session(created_at=old_time, last_active=old_time, ended_at=old_time, shell="zsh")
    box.db.parent.mkdir(parents=True, exist_ok=True)
    store = open_store(f"sqlite:///{box.db}")
    store.save_session(old)
    store.append_executions(
        [
            DirectCommandExecution(
                session_id=old.id,
                command=f"make release-{n}",
                executed_at=old_time + timedelta(minutes=n),
                source="import",
                stdout=TruncatedText.from_output("built\n"),
            )
            for n in range(50)
        ]
    )
    store.close()
    box.run()
    with box.client() as client:
        job = _wait_for_prune(client)
        assert job["runs"] >= 1 and job["last_error"] is None, job
    assert box.sql(f"select count(*), count(stdout) from executions where session_id = '{old.id}'") == [(50, 0)]
    assert box.sql(f"select count(*) from sessions where id = '{old.id}'") == [(1,)]


def test_log_file_rotates(make_sandbox):
    box = make_sandbox(daemon_log_max_bytes=10_000, daemon_log_backups=2, daemon_max_message_bytes=1024)
    box.run()
    fifo = os.open(box.runtime / "hooks.fifo", os.O_WRONLY)
    for _ in range(300):  # each line over the limit is one warning line
        os.write(fifo, b"x" * 2000 + b"\n")
    os.close(fifo)
    deadline = time.monotonic() + 20
    while len(list((box.root / "state" / "parsec").glob("daemon.log*"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    with box.client() as client:
        assert client.call("ping")["ok"]
    logs = sorted(path.name for path in (box.root / "state" / "parsec").glob("daemon.log*"))
    assert logs == ["daemon.log", "daemon.log.1", "daemon.log.2"]
    assert all(path.stat().st_size <= 10_200 for path in (box.root / "state" / "parsec").glob("daemon.log*"))


def test_files_of_shells_that_are_gone_are_removed(make_sandbox):
    """Each hook keeps `cd-<pid>` and `parse-<pid>` in the runtime directory for its life and
    never removes them: the daemon does once the shell is gone (they piled up, one of each per
    shell ever opened), as it does their reply FIFOs; a live shell's files stay."""
    box = make_sandbox(daemon_session_check_interval_s=0.2)
    gone = subprocess.Popen(["true"])
    gone.wait()
    box.run()
    live = os.getpid()
    names = [f"cd-{gone.pid}", f"parse-{gone.pid}", f"cd-{live}", f"parse-{live}", "cd-notes"]
    for name in names:
        (box.runtime / name).write_text("")
    (box.runtime / "reply" / f"{gone.pid}-1.5").write_text("")
    deadline = time.monotonic() + 30
    while (box.runtime / f"parse-{gone.pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = sorted(name for name in os.listdir(box.runtime) if name in names)
    assert left == sorted([f"cd-{live}", f"parse-{live}", "cd-notes"])
    assert not (box.runtime / "reply" / f"{gone.pid}-1.5").exists()
