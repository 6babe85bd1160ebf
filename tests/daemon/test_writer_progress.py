"""A busy store writer is not a hung one: the guard that replaces a writer whose store stopped
answering (writer.HUNG_AFTER_S, 30 s) measures progress, not how long the whole answer takes; and
what `status` counts stays right when a writer process is replaced mid-way (issue 27: a 200,000-
record soak had its healthy writer killed every 30 s, and `queue_depth` stuck at 145,482 while
every record was stored). Real journal segments, a real store writer process, a real SQLite file;
the guard is shortened to 2 s, which several seconds of work outlast."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import time

from parsec.daemon.journal import Journal
from parsec.daemon.records import execution_record, session_record
from parsec.daemon.writer import StoreWriter
from parsec.models.session import Session

from .test_journal import _execution


async def add_segments(journal: Journal, session: Session, seqs: range, per_segment: int) -> None:
    """Executions `seqs` of `session`, `per_segment` to a closed journal segment."""
    for first in range(seqs.start, seqs.stop, per_segment):
        batch = range(first, min(first + per_segment, seqs.stop))
        await asyncio.gather(*(journal.append(execution_record(_execution(session, seq))) for seq in batch))
        await journal.rotate()


async def journal_with_segments(path, session: Session, segments: int, per_segment: int) -> Journal:
    journal = Journal(path)
    journal.open()
    await journal.append(session_record(session, False), durable=False)
    await add_segments(journal, session, range(segments * per_segment), per_segment)
    return journal


# Durable commits behind the first: over 4 s even on a fast, quiet disk (400 took 0.43 s there).
BACKLOG = 4000


def writer_for(journal: Journal, db) -> StoreWriter:
    # One record per commit: each is a durable SQLite commit (an fsync), so the backlog takes seconds.
    options = {"url": f"sqlite:///{db}", "busy_timeout_ms": 5000, "connect_timeout_s": 5.0, "batch_size": 1}
    return StoreWriter(journal, options)


def stored(db) -> int:
    with sqlite3.connect(db) as connection:
        return connection.execute("select count(distinct id) from executions").fetchone()[0]


def test_a_busy_writer_outlasting_the_guard_is_not_replaced(tmp_path):
    session = Session()

    async def scenario() -> tuple[bool, float, StoreWriter, int]:
        journal = await journal_with_segments(tmp_path / "journal", session, segments=1, per_segment=1)
        writer = writer_for(journal, tmp_path / "p.db")
        assert await writer.flush(force=True)  # the writer process started, the store made
        await add_segments(journal, session, range(1, BACKLOG + 1), per_segment=100)
        # Progress then comes every 0.1 s. Not 1 s: on a busy machine (CI shares it) one durable
        # commit, or the writer's turn on a core, can take a second, and the healthy writer was
        # replaced (a hung store sends no progress at all: test_postgres.py's hung server).
        writer.hung_after_s = 2.0
        started = time.monotonic()
        ok = await writer.flush(force=True)
        took = time.monotonic() - started
        depth = journal.depth
        await writer.close()
        journal.close()
        return ok, took, writer, depth

    ok, took, writer, depth = asyncio.run(scenario())
    assert ok and writer.last_error is None, writer.last_error
    assert took > 1.5 * writer.hung_after_s, f"the backlog took only {took:.2f} s: the guard was never at stake"
    assert writer.written == BACKLOG + 1 and depth == 0
    assert stored(tmp_path / "p.db") == BACKLOG + 1


def test_counters_are_right_after_the_writer_is_replaced_midway(tmp_path):
    session = Session()

    async def scenario() -> tuple[dict, StoreWriter, bool]:
        journal = await journal_with_segments(tmp_path / "journal", session, segments=3, per_segment=40)
        first = journal.closed_segments()[0]
        writer = writer_for(journal, tmp_path / "p.db")
        flushing = asyncio.ensure_future(writer.flush(force=True))
        while first.exists():  # the writer applied the first segment and deleted it
            await asyncio.sleep(0.005)
        assert writer._child is not None
        os.kill(writer._child.pid, signal.SIGKILL)  # before it could answer
        assert await flushing is False
        ok = await writer.flush(force=True)  # a new writer process takes over
        counts = {path.name: count for path, count in journal.counts.items()}
        await writer.close()
        journal.close()
        return counts, writer, ok

    counts, writer, ok = asyncio.run(scenario())
    assert ok and stored(tmp_path / "p.db") == 120
    assert list(counts.values()) == [0], counts  # queue_depth: only the empty current segment
    assert writer.written <= 120  # never a record counted twice
