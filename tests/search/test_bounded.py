"""The search's bounded work on a large history, on a real store: a small directory, session or
host is read through its index in one step; a query typed further over a search that read every
row filters its matches without SQL; a search that stops at enough matches says so ("300+")."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest

from parsec.cli.history.search import source as search_source
from parsec.cli.history.search.frame import View, frame
from parsec.cli.history.search.query import narrows, parse
from parsec.cli.history.search.scope import Here
from parsec.cli.history.search.source import ENOUGH, SLICE, STEP_ROWS, Source
from parsec.models.session import DirectCommandExecution

from .conftest import db_path

BUSY = "/home/me/busy"


def add_many(recorder, commands: list[str], cwd: str, minutes_ago: float) -> None:
    """`commands` run one a second up to `minutes_ago`, the first oldest, in batches."""
    items = [
        DirectCommandExecution(
            session_id=recorder.session.id,
            command=command,
            executed_at=recorder.now - timedelta(minutes=minutes_ago, seconds=len(commands) - i),
            exit_status=0,
            duration_ms=5,
            working_directory=cwd,
            host="laptop",
        )
        for i, command in enumerate(commands)
    ]
    for at in range(0, len(items), 5_000):
        recorder.store.append_executions(items[at : at + 5_000])


def run_to_end(search) -> int:
    steps = 0
    while not search.done:
        search.step()
        steps += 1
    return steps


@pytest.fixture
def large(recorder, tmp_path):
    """Old matches in a quiet directory, then more than two slices of newer rows elsewhere."""
    quiet = str(tmp_path / "quiet")
    recorder.add("terraform apply -target=module.vpc", quiet, minutes_ago=60 * 24 * 50)
    recorder.add("terraform plan", quiet, minutes_ago=60 * 24 * 49)
    add_many(recorder, [f"ls -la dir{i}" for i in range(2 * SLICE + 5_000)], BUSY, minutes_ago=60)
    return quiet


def test_matches_that_are_all_old_are_found_everywhere_and_in_their_directory(recorder, env, large) -> None:
    with sqlite3.connect(db_path(env)) as connection:
        everywhere = Source(connection, Here(cwd="/elsewhere", session_id=None, host="laptop"))
        found = everywhere.search(parse("terraform"), "everywhere")
        run_to_end(found)
        assert [c.command for c in found.ranked()] == ["terraform plan", "terraform apply -target=module.vpc"]
        assert not found.more

        here = Source(connection, Here(cwd=large, session_id=None, host="laptop"))
        in_directory = here.search(parse("tf apply"), "directory")
        # a directory of two rows is read through its index: one step, not one per slice of history
        assert run_to_end(in_directory) == 1
        assert [c.command for c in in_directory.ranked()] == ["terraform apply -target=module.vpc"]


def test_an_empty_directory_costs_one_step_on_a_large_history(recorder, env, large, tmp_path) -> None:
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd=str(tmp_path / "new"), session_id=None, host="laptop"))
        search = source.search(parse("ls"), "directory")
        assert run_to_end(search) == 1
        assert search.ranked() == [] and search.exhausted


def test_a_busy_directory_is_still_read_in_slices_and_stops_at_enough(recorder, env, large) -> None:
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd=BUSY, session_id=None, host="laptop"))
        search = source.search(parse("ls"), "directory")
        assert search.index is None  # more rows than a slice: the index would not bound the work
        run_to_end(search)
        results = search.ranked()
        assert search.more and len(results) >= ENOUGH
        # the best shown are the newest of the bounded set (same runs, same place)
        assert results[0].command == f"ls -la dir{2 * SLICE + 4_999}"
        view = View(
            query="ls",
            cursor=2,
            mode="fuzzy",
            filter="directory",
            results=results,
            selected=0,
            width=120,
            height=16,
            now_us=search.context.now_us,
            more=search.more,
        )
        assert f"{len(results)}+ found" in frame(view)[0]


def test_typing_further_filters_the_last_matches_without_sql(recorder, env, large, monkeypatch) -> None:
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd="/elsewhere", session_id=None, host="laptop"))
        first = source.search(parse("terr"), "everywhere")
        run_to_end(first)
        assert first.exhausted  # two matches: every row was read

        def no_sql(*args, **kwargs):
            raise AssertionError("read the store again")

        monkeypatch.setattr(search_source.store_search, "search_slice", no_sql)
        typed = "terr"
        search = first
        for key in "aform -ta":
            typed += key
            search = source.search(parse(typed), "everywhere", previous=search)
            assert search.done
        assert [c.command for c in search.ranked()] == ["terraform apply -target=module.vpc"]
        monkeypatch.undo()

        # a wider query (backspace), another mode or filter: read again, and the same answer as fresh
        wider = source.search(parse("terraform"), "everywhere", previous=search)
        assert not wider.done
        run_to_end(wider)
        assert len(wider.ranked()) == 2


def test_reused_matches_equal_a_fresh_search(recorder, env, large) -> None:
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd=large, session_id=None, host="laptop"))
        previous = None
        for typed in ("t", "te", "ter", "terr", "terraform", "terraform p", "terraform pl"):
            reused = source.search(parse(typed), "directory", previous=previous)
            run_to_end(reused)
            fresh = source.search(parse(typed), "directory")
            run_to_end(fresh)
            assert [(c.command, c.runs) for c in reused.ranked()] == [(c.command, c.runs) for c in fresh.ranked()]
            previous = reused


def test_a_command_run_more_often_than_a_step_reads_is_counted_once_a_run(recorder, env) -> None:
    add_many(recorder, ["make test"] * (STEP_ROWS + 1), "/w", minutes_ago=5)
    with sqlite3.connect(db_path(env)) as connection:
        search = Source(connection, Here(cwd="/w", session_id=None, host="laptop")).search(parse("make"), "everywhere")
        run_to_end(search)
        assert [c.runs for c in search.ranked()] == [STEP_ROWS + 1]


@pytest.mark.parametrize(
    ("old", "new", "narrower"),
    [
        ("ku", "kub", True),
        ("kubectl", "kubectl get", True),
        ("git", "Git", True),  # a capital makes case matter: fewer matches
        ("Git", "Git push", True),
        ("Git", "git push", False),  # the capital gone: case no longer matters, more matches
        ("git push", "git pus", False),
        ('git "push o', 'git "push or', True),
        (":git -forc", ":git -force", False),  # an exclusion typed further excludes less
    ],
)
def test_which_queries_narrow(old, new, narrower) -> None:
    assert narrows(parse(old), parse(new)) is narrower
    assert not narrows(parse(old, "fuzzy"), parse(new, "fulltext"))


def test_prefix_mode_narrows_by_the_start() -> None:
    assert narrows(parse("git p", "prefix"), parse("git pu", "prefix"))
    assert not narrows(parse("git p", "prefix"), parse("it pu", "prefix"))


@pytest.mark.parametrize(
    ("typed", "mode", "expected"),
    [
        ("terraform apply", "prefix", ["terraform apply -target=module.vpc"]),
        ("TERRAFORM", "fulltext", []),  # a capital: case matters, the index (which folds case) only prefilters
        ("module.vpc", "fulltext", ["terraform apply -target=module.vpc"]),
        ('"form pl"', "fuzzy", ["terraform plan"]),
        ("tf -t", "fuzzy", ["terraform apply -target=module.vpc"]),  # no substring: read by slices
    ],
)
def test_old_matches_through_the_full_text_index(recorder, env, large, typed, mode, expected) -> None:
    with sqlite3.connect(db_path(env)) as connection:
        search = Source(connection, Here(cwd="/elsewhere", session_id=None, host="laptop")).search(
            parse(typed, mode), "everywhere"
        )
        assert search.full_text is (mode != "fuzzy" or '"' in typed)
        run_to_end(search)
        assert [c.command for c in search.ranked()] == expected


def test_typing_further_resumes_below_the_rows_already_read(recorder, env, large, monkeypatch) -> None:
    """A search stopped at ENOUGH: the next key filters what it found in the rows it read and,
    with fewer than ENOUGH left, reads on below them; the same commands as a fresh search."""
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd="/elsewhere", session_id=None, host="laptop"))
        first = source.search(parse("ls"), "everywhere")
        run_to_end(first)
        assert first.more
        read: list[tuple[int, int]] = []
        real = search_source.store_search.search_slice

        def spy(connection, scope, text, low, high, *rest):
            read.append((low, high))
            return real(connection, scope, text, low, high, *rest)

        monkeypatch.setattr(search_source.store_search, "search_slice", spy)
        runs_before = {c.command: c.runs for c in first.ranked()}
        narrower = source.search(parse("ls dir2"), "everywhere", previous=first)
        run_to_end(narrower)
        assert {c.command: c.runs for c in first.ranked()} == runs_before  # the kept search unchanged
        assert read and all(high <= first.high for _, high in read)  # nothing above is read again
        fresh = source.search(parse("ls dir2"), "everywhere")
        run_to_end(fresh)
        assert narrower.more and len(narrower.ranked()) >= ENOUGH
        newest = {c.command for c in fresh.ranked()}
        assert {c.command for c in narrower.ranked()[: len(newest) // 2]} <= newest


class KeysOnly:
    """The terminal side of SearchApp without a terminal: no input waiting, frames dropped."""

    def size(self) -> tuple[int, int]:
        return 100, 30

    def write(self, text: str) -> None:
        pass

    def has_input(self) -> bool:
        return False


def test_a_query_typed_again_shows_its_kept_search_until_rows_are_forgotten(recorder, env, large) -> None:
    from parsec.cli.history.search.search_loop import SearchApp
    from parsec.cli.history.search.settings import SearchSettings

    with sqlite3.connect(db_path(env)) as connection:
        app = SearchApp(
            KeysOnly(), Source(connection, Here(cwd=large, session_id=None, host="laptop")), SearchSettings(), "ter"
        )
        app._restart()
        kept = app.search
        run_to_end(kept)  # as the app's loop does while no key waits
        for key in "raform":
            app.handle(key)
        assert [c.command for c in app.results] == ["terraform plan", "terraform apply -target=module.vpc"]
        for _ in "raform":
            app.handle("backspace")
        assert app.search is kept and app.state.query == "ter"  # no SQL: the finished search again
        app._restart(reuse=False)  # after Ctrl-D forgot rows: read again
        assert app.search is not kept


def test_reading_on_below_leaves_the_kept_search_as_it_was(recorder, env) -> None:
    add_many(recorder, [f"ls -la dir{i % 400}" for i in range(SLICE)], "/w", minutes_ago=5)
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd="/w", session_id=None, host="laptop"))
        first = source.search(parse("ls"), "everywhere")
        run_to_end(first)
        runs_before = {c.command: c.runs for c in first.ranked()}
        narrower = source.search(parse("ls dir1"), "everywhere", previous=first)
        assert not narrower.done  # 111 of the 400 commands: it reads on below
        run_to_end(narrower)
        assert {c.command: c.runs for c in narrower.ranked()}["ls -la dir1"] == SLICE // 400
        assert {c.command: c.runs for c in first.ranked()} == runs_before


def test_backspacing_to_the_opening_query_shows_the_opening_search(recorder, env, large) -> None:
    """The search the window opened with is kept like any other: emptying the query is no new read."""
    from parsec.cli.history.search.search_loop import SearchApp
    from parsec.cli.history.search.settings import SearchSettings

    with sqlite3.connect(db_path(env)) as connection:
        app = SearchApp(
            KeysOnly(), Source(connection, Here(cwd=large, session_id=None, host="laptop")), SearchSettings(), ""
        )
        opening = app.search
        run_to_end(opening)  # as the app's loop does while no key waits
        app.handle("t")
        assert app.search is not opening
        app.handle("backspace")
        assert app.search is opening
