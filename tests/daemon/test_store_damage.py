"""A store file with flipped bytes (a failing disk, a torn write) is reported by doctor, not
`[ok]`, and doctor does not write into it (issue 27: its write probe went into the damaged file)."""

from __future__ import annotations

import hashlib
import sqlite3

from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store


def test_doctor_reports_a_damaged_store_and_leaves_it_alone(sandbox):
    sandbox.db.parent.mkdir(parents=True)
    store = open_store(f"sqlite:///{sandbox.db}")
    session = Session()
    store.save_session(session)
    store.append_executions(
        DirectCommandExecution(session_id=session.id, command=f"make target-{n} {'x' * 40}") for n in range(3000)
    )
    store.close()
    assert sandbox.cli("doctor").stdout.count("[ok  ] store") == 1  # sound before
    with sqlite3.connect(sandbox.db) as db:  # everything in the file itself, nothing in a WAL
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size, pages = db.execute("PRAGMA page_size").fetchone()[0], db.execute("PRAGMA page_count").fetchone()[0]

    with sandbox.db.open("r+b") as handle:  # flip the bytes of a page in the middle
        handle.seek(page_size * (pages // 2))
        original = handle.read(64)
        handle.seek(page_size * (pages // 2))
        handle.write(bytes(byte ^ 0xFF for byte in original))
    before = hashlib.sha256(sandbox.db.read_bytes()).hexdigest()
    doctor = sandbox.cli("doctor")
    [line] = [line for line in doctor.stdout.splitlines() if "] store" in line]
    assert line.startswith("[FAIL] store") and "is damaged" in line, doctor.stdout
    assert hashlib.sha256(sandbox.db.read_bytes()).hexdigest() == before
