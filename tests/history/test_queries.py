"""History queries: the raw-sqlite3 fast path must give exactly what the store gives, and both what
a plain Python filter over the same rows gives. Real SQLite file; real PostgreSQL for the store path."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store
from parsec.store.history import (
    FAST_PATH_REVISIONS,
    FastPathUnavailable,
    HistoryQuery,
    fast_connection,
    history_sqlite,
    history_via_store,
    sessions_sqlite,
    sessions_via_store,
)
from parsec.store.sqlite_url import sqlite_file
from parsec.store.stats import stats

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
DIRS = ["/home/me/proj", "/home/me/proj/src", "/home/me/projects", "/home/me", "/tmp", "/"]
COMMANDS = [
    "git status",
    "git push --force-with-lease",
    "make test",
    "ls -la",
    "cd src",
    "rg TODO",
    "docker compose up -d",
    "pytest -x -q",
    "vim README.md",
    "echo 100%_done",
]


def _rows(session_ids: list[str], count: int = 600) -> list[DirectCommandExecution]:
    rng = random.Random(9)
    items = []
    for i in range(count):
        items.append(
            DirectCommandExecution(
                session_id=rng.choice(session_ids),
                command=f"{rng.choice(COMMANDS)} {i}" if i % 3 else rng.choice(COMMANDS),
                executed_at=T0 + timedelta(seconds=i * 37 + rng.randint(0, 5)),
                exit_status=rng.choice([0, 0, 0, 1, 2, 127, None]),
                duration_ms=rng.randint(0, 5000),
                working_directory=rng.choice(DIRS),
                host=rng.choice(["laptop", "server"]),
                user="me",
            )
        )
    return items


@pytest.fixture
def filled(sqlite_url):
    store = open_store(sqlite_url)
    sessions = [Session(shell="bash", host="laptop", user="me", created_at=T0, last_active=T0) for _ in range(3)]
    for session in sessions:
        store.save_session(session)
    items = _rows([s.id for s in sessions])
    store.append_executions(items)
    yield store, items, sessions
    store.close()


def _reference(items: list[DirectCommandExecution], q: HistoryQuery) -> list[str]:
    def keep(e: DirectCommandExecution) -> bool:
        if q.session_id and e.session_id != q.session_id:
            return False
        if q.cwd is not None:
            base = q.cwd.rstrip("/")
            if q.cwd_subtree:
                inside = e.working_directory == base or e.working_directory.startswith(base + "/")
            else:
                inside = e.working_directory == q.cwd
            if not inside:
                return False
        if q.exit_status is not None and e.exit_status != q.exit_status:
            return False
        if q.failed is True and (e.exit_status is None or e.exit_status == 0):
            return False
        if q.failed is False and e.exit_status != 0:
            return False
        if q.host and e.host != q.host:
            return False
        if q.since and e.executed_at < q.since:
            return False
        if q.until and e.executed_at >= q.until:
            return False
        return not (q.search and not all(t.lower() in e.command.lower() for t in q.search.split()))

    kept = sorted((e for e in items if keep(e)), key=lambda e: e.executed_at, reverse=True)
    return [e.id for e in kept][: q.limit or None]


QUERIES = [
    HistoryQuery(),
    HistoryQuery(limit=0),
    HistoryQuery(cwd="/home/me/proj"),
    HistoryQuery(cwd="/home/me/proj", cwd_subtree=True),
    HistoryQuery(cwd="/home/me/proj/", cwd_subtree=True),
    HistoryQuery(cwd="/", cwd_subtree=True, limit=0),
    HistoryQuery(failed=True, cwd="/tmp"),
    HistoryQuery(failed=False, limit=7),
    HistoryQuery(exit_status=127),
    HistoryQuery(host="server", failed=True),
    HistoryQuery(since=T0 + timedelta(hours=1), until=T0 + timedelta(hours=2), limit=0),
    HistoryQuery(search="git push"),
    HistoryQuery(search="PUSH --force"),
    HistoryQuery(search="ls 1"),
    HistoryQuery(search="100%_"),
    HistoryQuery(search="-x", limit=0),
    HistoryQuery(search="nothing-matches-this"),
    # searches with small limits (several slices when FIRST_SLICE is small), large subtrees
    HistoryQuery(search="git", limit=3),
    HistoryQuery(search="make", failed=True, limit=2),
    HistoryQuery(search="make test", failed=True, limit=2),
    HistoryQuery(search="git", host="server", since=T0 + timedelta(hours=1), limit=2),
    HistoryQuery(search="git", cwd="/tmp", limit=2),
    HistoryQuery(cwd="/home/me", cwd_subtree=True, limit=3),
    HistoryQuery(cwd="/home/me", cwd_subtree=True, failed=True, host="laptop", limit=2),
]


@pytest.mark.parametrize("query", QUERIES, ids=range(len(QUERIES)))
def test_fast_path_and_store_agree_with_the_reference(filled, sqlite_url, query) -> None:
    store, items, _ = filled
    with fast_connection(sqlite_file(sqlite_url)) as connection:
        fast = history_sqlite(connection, query)
    slow = history_via_store(store, query)
    expected = _reference(items, query)
    assert [r["id"] for r in fast] == expected
    assert fast == slow


@pytest.mark.parametrize("query", [q for q in QUERIES if q.search], ids=lambda q: f"{q.search}/{q.limit}")
def test_windowed_search_with_small_slices_and_rows_out_of_order(filled, sqlite_url, monkeypatch, query) -> None:
    """Slices of 25 rows force many windows; old imported rows appended last (high seq, old time)
    must not hide newer rows or jump ahead of them."""
    from parsec.store import newest_first

    store, items, sessions = filled
    late = [
        DirectCommandExecution(
            session_id=sessions[0].id,
            command=f"git log --oneline {i}",
            executed_at=T0 - timedelta(days=i + 1),
            exit_status=i % 2,
            working_directory="/tmp",
            host="laptop",
        )
        for i in range(30)
    ]
    store.append_executions(late)
    monkeypatch.setattr(newest_first, "FIRST_SLICE", 25)
    with fast_connection(sqlite_file(sqlite_url)) as connection:
        assert [r["id"] for r in history_sqlite(connection, query)] == _reference(items + late, query)


def test_large_subtree_takes_the_newest_first_plan(filled, sqlite_url) -> None:
    from parsec.store.newest_first import _large_subtree

    with fast_connection(sqlite_file(sqlite_url)) as connection:

        def run(sql, params):
            return connection.execute(sql, params).fetchall()

        assert _large_subtree(run, HistoryQuery(cwd="/home/me", cwd_subtree=True, limit=3))
        assert not _large_subtree(run, HistoryQuery(cwd="/home/me", cwd_subtree=True, limit=50))
        assert not _large_subtree(run, HistoryQuery(cwd="/home/me", limit=3))


def test_session_filter(filled, sqlite_url) -> None:
    store, items, sessions = filled
    query = HistoryQuery(session_id=sessions[1].id, limit=0)
    with fast_connection(sqlite_file(sqlite_url)) as connection:
        assert [r["id"] for r in history_sqlite(connection, query)] == _reference(items, query)


def test_sessions_listing_fast_and_store_agree(filled, sqlite_url) -> None:
    store, items, sessions = filled
    with fast_connection(sqlite_file(sqlite_url)) as connection:
        fast = sessions_sqlite(connection, 10)
    assert fast == sessions_via_store(store, 10)
    by_id = {row["id"]: row for row in fast}
    for session in sessions:
        mine = [e for e in items if e.session_id == session.id]
        assert by_id[session.id]["commands"] == len(mine)
        assert by_id[session.id]["failed"] == sum(1 for e in mine if e.exit_status not in (0, None))


def test_fast_path_refuses_a_missing_file_or_unknown_schema(tmp_path) -> None:
    import sqlite3

    with pytest.raises(FastPathUnavailable), fast_connection(tmp_path / "none.db"):
        pass
    odd = tmp_path / "odd.db"
    sqlite3.connect(odd).execute("CREATE TABLE alembic_version (version_num TEXT)").connection.commit()
    with pytest.raises(FastPathUnavailable), fast_connection(odd):
        pass


def test_fast_path_knows_the_current_schema_revision() -> None:
    from parsec.store.migrate import HEAD_REVISION

    # When the store adds a revision, check the raw SQL in parsec/store/history.py still holds.
    assert HEAD_REVISION in FAST_PATH_REVISIONS


def test_stats(filled) -> None:
    store, items, _ = filled
    store.record_llm_usage("openai", "gpt-4o", "plan", 100, 20)
    store.record_llm_usage("openai", "gpt-4o", "step", 50, 10)
    store.record_llm_usage("anthropic", "claude", "plan", 7, 3)
    figures = stats(store, top=3, days=30)
    assert figures["total"] == len(items)
    programs = {}
    for e in items:
        programs.setdefault(e.command.split()[0], []).append(e)
    top = sorted(programs.items(), key=lambda kv: -len(kv[1]))[:3]
    assert [(p["program"], p["runs"]) for p in figures["programs"]] == [(name, len(rows)) for name, rows in top]
    git = next(p for p in figures["programs"] if p["program"] == top[0][0])
    failed = sum(1 for e in top[0][1] if e.exit_status not in (0, None))
    assert git["failed"] == failed
    assert figures["directories"][0]["runs"] == max(sum(1 for e in items if e.working_directory == d) for d in DIRS)
    assert sum(day["commands"] for day in figures["activity"]) == len(items)  # all within 30 days
    usage = {(u["provider"], u["model"]): u for u in figures["llm_usage"]}
    assert usage[("openai", "gpt-4o")]["input_tokens"] == 150 and usage[("openai", "gpt-4o")]["calls"] == 2
    assert usage[("anthropic", "claude")]["output_tokens"] == 3


def test_store_path_on_postgresql(pg_url) -> None:
    store = open_store(pg_url)
    try:
        session = Session(shell="zsh", host="h", created_at=T0, last_active=T0)
        store.save_session(session)
        items = _rows([session.id], 120)
        store.append_executions(items)
        for query in QUERIES:
            assert [r["id"] for r in history_via_store(store, query)] == _reference(items, query), query
        [row] = sessions_via_store(store, 5)
        assert row["commands"] == 120
        figures = stats(store, top=2)
        assert figures["total"] == 120 and len(figures["programs"]) == 2
    finally:
        store.close()
