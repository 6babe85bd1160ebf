"""Every execution filter, full-text search and forgetting, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from parsec.errors import UsageError
from parsec.models.parsec_model import new_id
from parsec.models.session import DirectCommandExecution
from parsec.store.protocols import ExecutionQuery, ids_of

T0 = datetime(2025, 1, 1, tzinfo=UTC)
S1, S2 = new_id(), new_id()

# (session, command, cwd, exit status, host); executed T0 + index minutes
ROWS = [
    (S1, "git status", "/home/ann/proj", 0, "box"),
    (S1, "git push --force", "/home/ann/proj", 1, "box"),
    (S1, "git push origin main --force", "/home/ann/proj/sub", 128, "box"),
    (S2, "git push --force-with-lease", "/home/ann/project", 0, "laptop"),
    (S2, "echo 100% done_now", "/home/ann", 0, "laptop"),
    (S2, "make -j8", "/", None, "laptop"),
    (S1, 'grep "TODO" src/*.py | wc -l', "/home/ann/proj", 2, "box"),
    (S1, "ls", "/home/ann/proj", 0, "box"),
]


@pytest.fixture
def rows(store) -> list[DirectCommandExecution]:
    items = [
        DirectCommandExecution(
            session_id=s, command=c, working_directory=d, exit_status=x, host=h, executed_at=T0 + timedelta(minutes=i)
        )
        for i, (s, c, d, x, h) in enumerate(ROWS)
    ]
    store.append_executions(items)
    return items


def commands(store, **filters) -> list[str]:
    return [e.command for e in store.query_executions(ExecutionQuery(**filters))]


def expected(rows, predicate) -> list[str]:
    return [e.command for e in reversed(rows) if predicate(e)]  # newest first


def test_no_filter_is_newest_first_with_limit(store, rows):
    assert commands(store) == expected(rows, lambda e: True)
    assert commands(store, limit=3) == expected(rows, lambda e: True)[:3]


def test_session_filter(store, rows):
    assert commands(store, session_id=S2) == expected(rows, lambda e: e.session_id == S2)


def test_cwd_exact_and_subtree(store, rows):
    assert commands(store, cwd="/home/ann/proj") == expected(rows, lambda e: e.working_directory == "/home/ann/proj")
    # Subtree: proj and proj/sub, but not the sibling /home/ann/project.
    assert commands(store, cwd="/home/ann/proj/", cwd_subtree=True) == expected(
        rows, lambda e: e.working_directory in ("/home/ann/proj", "/home/ann/proj/sub")
    )
    assert len(commands(store, cwd="/", cwd_subtree=True)) == len(ROWS)


def test_exit_status_and_failed(store, rows):
    assert commands(store, exit_status=128) == ["git push origin main --force"]
    assert commands(store, failed=True) == expected(rows, lambda e: e.exit_status not in (0, None))
    assert commands(store, failed=False) == expected(rows, lambda e: e.exit_status == 0)


def test_host_and_time_range(store, rows):
    assert commands(store, host="laptop") == expected(rows, lambda e: e.host == "laptop")
    since, until = T0 + timedelta(minutes=2), T0 + timedelta(minutes=5)
    assert commands(store, since=since, until=until) == expected(rows, lambda e: since <= e.executed_at < until)


def test_filters_combine(store, rows):
    assert commands(store, cwd="/home/ann/proj", failed=True, host="box", search="git") == ["git push --force"]


def test_paging_with_before_id(store, rows):
    first = store.query_executions(ExecutionQuery(limit=3))
    second = store.query_executions(ExecutionQuery(limit=3, before_id=first[-1].id))
    everything = store.query_executions(ExecutionQuery(limit=100))
    assert ids_of(first + second) == ids_of(everything[:6])
    assert store.query_executions(ExecutionQuery(before_id=new_id())) == []


def test_paging_through_a_search(store):
    # On SQLite a limited search reads slices (newest_first.py); the page's anchor applies in each.
    session = new_id()
    store.append_executions(
        [
            DirectCommandExecution(session_id=session, command=f"{'git log' if i % 3 else 'make'} {i}", executed_at=T0)
            for i in range(40)
        ]
    )
    everything = store.query_executions(ExecutionQuery(search="git", limit=0))
    pages, before = [], None
    while True:
        page = store.query_executions(ExecutionQuery(search="git", limit=4, before_id=before))
        if not page:
            break
        pages += page
        before = page[-1].id
    assert len(everything) == 26 and ids_of(pages) == ids_of(everything)


def test_same_instant_ties_keep_insertion_order(store):
    session = new_id()
    batch = [DirectCommandExecution(session_id=session, command=f"c{i}", executed_at=T0) for i in range(5)]
    store.append_executions(batch)
    assert commands(store) == ["c4", "c3", "c2", "c1", "c0"]


@pytest.mark.parametrize(
    "search, wanted",
    [
        ("git push --force", {"git push --force", "git push origin main --force", "git push --force-with-lease"}),
        ("--force-with", {"git push --force-with-lease"}),
        ("PUSH origin", {"git push origin main --force"}),  # case-insensitive, any order
        ("100%", {"echo 100% done_now"}),  # LIKE wildcards are literal
        ("e_n", {"echo 100% done_now"}),
        ("%", {"echo 100% done_now"}),
        ('"TODO"', {'grep "TODO" src/*.py | wc -l'}),  # quotes are literal too
        ("| wc", {'grep "TODO" src/*.py | wc -l'}),  # a short term next to a long one
        ("ls", {"ls"}),  # too short for trigrams: still exact
        ("-j", {"make -j8"}),
        ("nothing-like-this", set()),
        ("   ", {c for _, c, _, _, _ in ROWS}),  # no terms: no search
    ],
)
def test_full_text_search(store, rows, search, wanted):
    assert set(commands(store, search=search, limit=100)) == wanted


def test_count_executions(store, rows):
    assert store.count_executions() == len(ROWS)
    assert store.count_executions(ExecutionQuery(failed=True, limit=1)) == 3  # limit does not cap a count
    assert store.count_executions(ExecutionQuery(search="push")) == 3


def test_forget_by_regex_and_literal(store, rows):
    assert store.forget_executions(r"push\b.*--force$", dry_run=True) == 2
    assert store.count_executions() == len(ROWS)
    assert store.forget_executions(r"push\b.*--force$") == 2
    assert commands(store, search="push") == ["git push --force-with-lease"]  # the index forgot them too
    assert store.forget_executions("src/*.py", regex=False) == 1
    assert store.count_executions() == len(ROWS) - 3


def test_forget_rejects_a_bad_regex(store, rows):
    with pytest.raises(UsageError):
        store.forget_executions("([unclosed")


def test_forget_removes_the_text_from_the_sqlite_file(sqlite_url):
    from parsec.store import open_store
    from parsec.store.sqlite_url import sqlite_file

    store = open_store(sqlite_url)
    # Private text that is no secret shape (a secret would not reach the file at all: the
    # store masks every record, see tests/store/test_store_gate.py).
    secret = "hunter2-private-note-abcdef"
    session = new_id()
    store.append_executions(
        [DirectCommandExecution(session_id=session, command=f"echo {i}") for i in range(200)]
        + [DirectCommandExecution(session_id=session, command=f"echo '{secret}' >> notes.txt")]
    )
    assert store.forget_executions("hunter2") == 1
    store.close()
    path = sqlite_file(sqlite_url)
    for candidate in (path, path.with_name(path.name + "-wal")):
        if candidate.exists():
            assert secret.encode() not in candidate.read_bytes()


def test_search_is_exact_when_history_is_imported_out_of_order(store, monkeypatch):
    # SQLite searches slices of recent rows (parsec/store/newest_first.py); tiny slices and rows
    # whose time does not follow insertion order must still give exactly the newest matches.
    import random

    from parsec.store import newest_first

    monkeypatch.setattr(newest_first, "FIRST_SLICE", 7)
    rng = random.Random(3)
    session = new_id()
    items = [
        DirectCommandExecution(
            session_id=session,
            command=rng.choice(["git push --force", "git status", "make test", "git pull"]) + f" #{i}",
            executed_at=T0 + timedelta(seconds=rng.randrange(100_000)),  # an import: any order
            exit_status=rng.choice([0, 1]),
        )
        for i in range(600)
    ]
    for start in range(0, len(items), 50):
        store.append_executions(items[start : start + 50])
    order = {e.id: i for i, e in enumerate(items)}  # ties: the later insert is newer
    newest_first = sorted(items, key=lambda e: (e.executed_at, order[e.id]), reverse=True)
    for search, limit, failed in [
        ("git push", 20, None),
        ("git", 50, True),
        ("make test", 5, False),
        ("pull", 1, None),
    ]:
        wanted = [
            e.id
            for e in newest_first
            if all(t.lower() in e.command.lower() for t in search.split())
            and (failed is None or (e.exit_status != 0) == failed)
        ][:limit]
        got = store.query_executions(ExecutionQuery(search=search, limit=limit, failed=failed))
        assert ids_of(got) == wanted, search


# 0: every subtree is "large" (SQLite reads the time index newest first); 10**6: never (it sorts)
@pytest.mark.parametrize("subtree_factor", [0, 10**6])
def test_subtree_newest_first_matches_brute_force(store, monkeypatch, subtree_factor):
    import random

    from parsec.store import newest_first

    monkeypatch.setattr(newest_first, "SUBTREE_FACTOR", subtree_factor)
    rng = random.Random(5)
    directories = ["/w", "/w/a", "/w/a/b", "/w/b", "/w-x", "/w.d", "/wa", "/v", "/w/c/d/e"]
    session = new_id()
    items = [
        DirectCommandExecution(
            session_id=session,
            command=f"c{i}",
            working_directory=rng.choice(directories),
            executed_at=T0 + timedelta(seconds=rng.randrange(5_000)),
            exit_status=rng.choice([0, 1, 2]),
        )
        for i in range(400)
    ]
    store.append_executions(items)
    order = {e.id: i for i, e in enumerate(items)}
    newest_first = sorted(items, key=lambda e: (e.executed_at, order[e.id]), reverse=True)
    for base, failed, limit in [
        ("/w", None, 30),
        ("/w/", True, 10),
        ("/w/a", False, 50),
        ("/", None, 5),
        ("/nope", None, 5),
    ]:
        root = base.rstrip("/")
        wanted = [
            e.id
            for e in newest_first
            if (e.working_directory == root or e.working_directory.startswith(root + "/"))
            and (failed is None or (e.exit_status != 0) == failed)
        ][:limit]
        got = store.query_executions(ExecutionQuery(cwd=base, cwd_subtree=True, failed=failed, limit=limit))
        assert ids_of(got) == wanted, base


def test_the_fast_paths_column_list_is_the_schemas():
    # newest_first.py cannot import the SQLAlchemy schema (the fast paths load no SQLAlchemy), so
    # it lists the columns itself: they must be the table's, in its order.
    from parsec.store.newest_first import EXECUTION_COLUMNS
    from parsec.store.schema import executions

    assert list(EXECUTION_COLUMNS) == [column.name for column in executions.columns if column.name != "seq"]
