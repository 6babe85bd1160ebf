"""How often the idle daemon wakes: context switches of the daemon and its store writer.

A daemon in a private sandbox (its own XDG directories and SQLite store) gets a few commands
through its socket (so every lazy task has started, as after a day of use), is left alone for a
moment, then its threads' voluntary and involuntary context switches (/proc/PID/task/*/status)
are counted over `--seconds`. Each wakeup of a sleeping thread is at least one switch.

    python bench/daemon_wakeups.py [--seconds 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def switches(pid: int) -> int:
    """Context switches of every thread of `pid` and of its children, so far."""
    total = 0
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(child) for child in children]
    except OSError:
        pass
    for one in pids:
        for status in Path(f"/proc/{one}/task").glob("*/status"):
            try:
                for line in status.read_text().splitlines():
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
            except OSError:
                continue
    return total


def measure(seconds: float) -> float:
    from tests.hooks.harness import Daemon, Sandbox

    with tempfile.TemporaryDirectory() as root:
        sandbox = Sandbox.create(Path(root))
        daemon = Daemon(sandbox).start()
        try:
            assert daemon.proc is not None
            for n in range(3):  # a day's use in miniature: the journal, its sync and the writer start
                daemon.call(
                    "command_finished",
                    session=f"{os.getpid()}-1",
                    seq=n + 1,
                    command=f"echo {n}",
                    exit_status=0,
                    cwd=root,
                    duration_ms=1,
                )
            daemon.call("flush")
            time.sleep(3.0)  # the flush after the last record, the spool's first pass
            start = switches(daemon.proc.pid)
            time.sleep(seconds)
            return (switches(daemon.proc.pid) - start) / seconds
        finally:
            daemon.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rates = [measure(args.seconds) for _ in range(args.rounds)]
    load = os.getloadavg()[0]
    print(f"idle daemon context switches per second over {args.seconds:.0f} s, {args.rounds} rounds (load {load:.1f})")
    print(f"  median {statistics.median(rates):.1f}/s  (rounds: {', '.join(f'{r:.1f}' for r in rates)})")
    subprocess.run(["true"], check=True)


if __name__ == "__main__":
    main()
