"""An idle daemon sleeps: no timer every flush interval while every record is in the store
(issue 28 item 7: it woke about 20 times a second). bench/daemon_wakeups.py measures the rate."""

from __future__ import annotations

import time
from pathlib import Path

from .harness import finished

WINDOW_S = 6.0


def _voluntary_switches(pid: int) -> int:
    """Voluntary context switches of every thread of `pid` and of its children: each wakeup of
    a sleeping thread is one (preemption on a loaded machine counts as involuntary, not here)."""
    pids = [pid] + [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    total = 0
    for one in pids:
        for status in Path(f"/proc/{one}/task").glob("*/status"):
            for line in status.read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches"):
                    total += int(line.split()[1])
    return total


def _wait_for_executions(box, want: int) -> int:
    deadline = time.monotonic() + 30
    while (count := box.execution_count()) < want and time.monotonic() < deadline:
        time.sleep(0.1)
    return count


def test_idle_daemon_sleeps_and_still_records_at_once(make_sandbox):
    box = make_sandbox()
    box.run()
    with box.client() as client:
        for seq in range(1, 4):  # the journal, its sync and the store writer have all started
            client.call("command_finished", **finished("700-1.0", seq))
    assert _wait_for_executions(box, 3) == 3  # stored by the flush alone, no flush request
    with box.client() as client:  # the sync after the last write has run, and its syncer stopped
        deadline = time.monotonic() + 30
        while not client.call("status")["journal_settled"] and time.monotonic() < deadline:
            time.sleep(0.05)
    before = _voluntary_switches(box.pid())
    time.sleep(WINDOW_S)
    woke = _voluntary_switches(box.pid()) - before
    # The spool pass every 2 s (and a session check at most): a few. It was about 120.
    assert woke <= 2 * WINDOW_S, f"{woke} wakeups in {WINDOW_S} s of idleness"
    with box.client() as client:  # after the sleep a record still reaches the store by itself
        client.call("command_finished", **finished("700-1.0", 4))
    assert _wait_for_executions(box, 4) == 4
