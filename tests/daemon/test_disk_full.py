"""A full disk and no room in memory (max_held_journal_bytes = 0): the record is refused (not acknowledged), the daemon keeps serving, and once there
is room again everything acknowledged is stored. The journal lives on a 1 MiB tmpfs."""

from __future__ import annotations

import os
import subprocess

import pytest

from .harness import finished


@pytest.fixture
def small_state(make_sandbox):
    if os.getuid() != 0:
        pytest.skip("needs root to mount a tmpfs")
    box = make_sandbox(daemon_max_held_journal_bytes=0)  # no memory to hold records in: refused
    state = box.root / "state"
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(state)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode().strip()}")
    yield box
    box.kill()
    subprocess.run(["umount", str(state)], check=True)


def test_full_disk_refuses_then_recovers(small_state):
    box = small_state
    box.run()
    filler = box.root / "state" / "filler"
    with box.client() as client:
        assert client.call("command_finished", **finished("900-1.0", 1))["ok"]
        client.call("flush")
        with filler.open("wb") as handle:  # take (nearly) all that is left
            try:
                handle.write(b"\0" * 2_000_000)
            except OSError:
                pass
        reply = client.request("command_finished", **finished("900-1.0", 2, command="x" * 200_000))
        assert reply["ok"] is False and reply["error"]["code"] == "unavailable"
        assert client.call("ping")["ok"]  # still serving
        assert (
            "journal not writable" in client.call("status")["last_error"]
            and "1 refused" in client.call("status")["last_error"]
        )
        filler.unlink()
        assert client.call("command_finished", **finished("900-1.0", 3))["ok"]
        assert client.call("flush")["in_store"] is True
    commands = [row[0] for row in box.sql("select command from executions order by executed_at")]
    assert commands == ["echo 1", "echo 3"]  # the refused one was never acknowledged
