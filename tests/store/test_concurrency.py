"""Several processes write the same store at once (and race to create it): nothing is lost."""

from __future__ import annotations

import multiprocessing

from parsec.models.parsec_model import new_id
from parsec.models.session import DirectCommandExecution
from parsec.store import open_store
from parsec.store.protocols import ExecutionQuery

WRITERS = 4
ROWS_PER_WRITER = 3000
BATCH = 25  # small batches: many short transactions contend for the write lock


def _writer(url: str, worker: int, start, errors) -> None:
    try:
        start.wait()
        store = open_store(url, busy_timeout_ms=30_000)  # every writer races to create the schema
        session = new_id()
        for first in range(0, ROWS_PER_WRITER, BATCH):
            store.append_executions(
                DirectCommandExecution(session_id=session, command=f"worker-{worker} row-{i}", exit_status=i % 2)
                for i in range(first, first + BATCH)
            )
            if first % 500 == 0:  # readers run between writes, as `parsec history` would
                store.query_executions(ExecutionQuery(failed=True, limit=5))
        store.close()
    except BaseException as err:
        errors.put(f"worker {worker}: {type(err).__name__}: {err}")


def _run_writers(url: str, writers: int) -> list[str]:
    context = multiprocessing.get_context("fork")
    start, errors = context.Event(), context.Queue()
    processes = [context.Process(target=_writer, args=(url, w, start, errors)) for w in range(writers)]
    for process in processes:
        process.start()
    start.set()
    for process in processes:
        process.join(timeout=120)
    problems = []
    while not errors.empty():
        problems.append(errors.get())
    problems += [f"exit code {p.exitcode}" for p in processes if p.exitcode != 0]
    return problems


def test_concurrent_sqlite_writers_lose_nothing(sqlite_url):
    assert _run_writers(sqlite_url, WRITERS) == []
    store = open_store(sqlite_url)
    assert store.count_executions() == WRITERS * ROWS_PER_WRITER
    for worker in range(WRITERS):  # every row of every worker, and the full-text index agrees
        assert store.count_executions(ExecutionQuery(search=f"worker-{worker} row-")) == ROWS_PER_WRITER
    assert len(store.list_sessions()) == WRITERS
    store.close()


def test_concurrent_postgresql_writers_lose_nothing(pg_url):
    assert _run_writers(pg_url, 3) == []
    store = open_store(pg_url)
    assert store.count_executions() == 3 * ROWS_PER_WRITER
    assert store.count_executions(ExecutionQuery(search="worker-2 row-")) == ROWS_PER_WRITER
    store.close()
