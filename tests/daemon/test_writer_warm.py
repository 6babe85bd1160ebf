"""The store writer opens the store when the daemon starts, not on the first flush: that flush is
`parsec history` right after a shell's first command, and waiting there for the writer to import
SQLAlchemy and open the store (2-3 s on a loaded machine) made history show no rows at all
(tests/hooks/test_fish_spool_seen.py failed about half the time)."""

from __future__ import annotations

import os
import time

import psutil


def _writer_has_store_open(daemon_pid: int, db: str) -> bool:
    for child in psutil.Process(daemon_pid).children():
        try:
            if "parsec.daemon.store_process" in child.cmdline() and any(f.path == db for f in child.open_files()):
                return True
        except psutil.Error:
            continue  # gone or not ours: look again
    return False


def test_the_store_writer_opens_the_store_before_any_flush(make_sandbox):
    box = make_sandbox()
    daemon = box.run()  # no record, no flush: nothing asks the writer to apply anything
    # Awaited with a generous deadline: the writer starts at nice 10 and imports SQLAlchemy first.
    deadline = time.monotonic() + 60
    while not _writer_has_store_open(daemon.pid, os.path.realpath(box.db)):
        assert time.monotonic() < deadline, "the store writer did not open the store until asked to"
        time.sleep(0.1)
