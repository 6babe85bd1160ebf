"""Acknowledged records survive SIGTERM, kill -9 and restarts; spool files are replayed."""

from __future__ import annotations

import json
import threading
import time

import psutil

from parsec.errors import DaemonUnavailable

from .harness import finished


def test_sigterm_with_writes_queued_loses_nothing(make_sandbox):
    # A flush interval of a minute: every record is still queued in the journal at SIGTERM.
    box = make_sandbox(daemon_flush_interval_ms=60_000)
    box.run()
    with box.client() as client:
        for seq in range(300):
            assert client.call("command_finished", **finished("100-1.0", seq))["recorded"] is True
        assert client.call("status")["queue_depth"] >= 300
    assert box.execution_count() == 0  # nothing reached the store yet
    assert box.terminate() == 0
    assert box.execution_count() == 300
    assert not list(box.journal.glob("*.jsonl"))  # the journal was emptied into the store


def test_kill_9_under_load_keeps_every_acknowledged_record(make_sandbox):
    box = make_sandbox(daemon_flush_interval_ms=200)
    box.run()
    acked: dict[str, list[int]] = {}
    stop = threading.Event()

    def shell(key: str) -> None:
        acked[key] = []
        try:
            with box.client(timeout=5) as client:
                for seq in range(100_000):
                    if stop.is_set():
                        return
                    reply = client.call("command_finished", **finished(key, seq))
                    if reply.get("ok"):
                        acked[key].append(seq)
        except (DaemonUnavailable, OSError, ValueError):
            return  # the daemon died under us: what was acknowledged must be kept

    threads = [threading.Thread(target=shell, args=(f"{200 + i}-1.0",)) for i in range(8)]
    for thread in threads:
        thread.start()
    # Awaited, not slept: on a loaded machine a fixed second saw too few records, or no writer yet.
    deadline = time.monotonic() + 120
    children: list[psutil.Process] = []
    while time.monotonic() < deadline:
        children = psutil.Process(box.process.pid).children()
        if children and sum(len(seqs) for seqs in acked.values()) > 200:
            break
        time.sleep(0.05)
    assert [child.cmdline()[2] for child in children] == ["parsec.daemon.store_process"]
    box.kill()  # SIGKILL mid-load
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, "the store writer outlived its daemon"
    stop.set()
    for thread in threads:
        thread.join(10)
    total = sum(len(seqs) for seqs in acked.values())
    assert total > 100, "the load did not run"

    box.run()  # the restarted daemon replays its journal
    with box.client() as client:
        assert client.call("flush")["in_store"] is True
    stored = box.sql("select id, command, exit_status from executions")
    assert len(stored) == len({row[0] for row in stored})  # no duplicates
    by_session: dict[int, set[int]] = {}
    commands = box.sql("select s.pid, e.command from executions e join sessions s on s.id = e.session_id")
    for pid, command in commands:
        by_session.setdefault(pid, set()).add(int(command.split()[1]))
    for key, seqs in acked.items():
        pid = int(key.split("-")[0])
        missing = set(seqs) - by_session.get(pid, set())
        assert not missing, f"{key}: acknowledged but lost: {sorted(missing)[:10]}"
    assert box.terminate() == 0


def test_hook_spool_files_are_ingested_in_order_once(sandbox):
    spool = sandbox.runtime / "spool"
    spool.mkdir(parents=True, mode=0o700)
    lines = [
        {
            "v": 1,
            "type": "session_start",
            "noreply": True,
            "session": "300-5.0",
            "shell": "fish",
            "pid": 300,
            "tty": None,
            "user": "me",
            "host": "box",
            "cwd": "/tmp",
            "env": {},
        }
    ]
    lines += [{"v": 1, "type": "command_finished", "noreply": True, **finished("300-5.0", seq)} for seq in range(50)]
    lines.append({"v": 1, "type": "session_end", "noreply": True, "session": "300-5.0"})
    (spool / "fish-300.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines) + '{"v":1,"type":"command_fini'
    )
    sandbox.run()
    deadline = time.monotonic() + 15
    while list(spool.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not list(spool.iterdir())
    with sandbox.client() as client:
        client.call("flush")
    assert sandbox.execution_count() == 50
    ((shell, ended),) = sandbox.sql("select shell, ended_at from sessions")
    assert shell == "fish" and ended is not None
    # The same file again (a crash between ingest and delete): nothing is duplicated.
    (spool / "again.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    deadline = time.monotonic() + 15
    while list(spool.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)
    with sandbox.client() as client:
        client.call("flush")
    assert sandbox.execution_count() == 50


def test_a_resent_record_is_stored_once(sandbox):
    sandbox.run()
    message = finished("400-1.0", 7)
    with sandbox.client() as client:
        client.call("command_finished", **message)
        client.call("flush")
    sandbox.terminate()
    sandbox.run()  # a new daemon, same session key and seq: same ids
    with sandbox.client() as client:
        client.call("command_finished", **message)
        client.call("flush")
    assert sandbox.execution_count() == 1
    assert sandbox.sql("select count(*) from sessions")[0][0] == 1
