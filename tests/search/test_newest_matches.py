"""Whatever path a search takes (slices of rows, the full-text index's walk, a small scope's
index, the matches of the last query filtered and read on below), what it holds is the newest
matching rows, none skipped and none twice: on a real store, against every match of the query
read in one plain query (store/search.search_slice over the whole history)."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter

import pytest

from parsec.cli.history.search.query import parse
from parsec.cli.history.search.scope import Here
from parsec.cli.history.search.source import ENOUGH, FIRST_SLICE, Source
from parsec.store.search import search_slice

from .conftest import db_path
from .test_bounded import add_many, run_to_end

WORDS = ["git", "push", "pull", "origin", "main", "docker", "compose", "up", "kubectl", "get", "pods", "ls", "Make"]


@pytest.fixture
def seeded(recorder):
    """Three times FIRST_SLICE rows of a few words each (most commands once, some many times),
    with ENOUGH + 100 distinct `git push` commands in a row below the newest FIRST_SLICE: a step
    that stops at its limit inside them must go on at the very next row."""
    rng = random.Random(7)

    def words(count: int) -> list[str]:
        return [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) + (f" {rng.randint(0, 99)}" if i % 3 else "")
            for i in range(count)
        ]

    tags = [f"git push origin v{i}" for i in range(ENOUGH + 100)]
    add_many(recorder, words(2 * FIRST_SLICE) + tags + words(FIRST_SLICE), "/w", minutes_ago=10)
    return recorder


def newest_matches(connection, search) -> list[tuple]:
    return search_slice(connection, search.scope, search.text, 0, search.source.top, 10**9)


def assert_newest_rows(connection, search) -> None:
    """The search's commands and runs are those of the newest matching rows, as many as it read;
    all of them when it read every row, else at least ENOUGH distinct commands."""
    held = {c.command: c.runs for c in search.pool.by_command.values()}
    every = newest_matches(connection, search)
    read = sum(held.values())
    assert Counter(row[3] for row in every[:read]) == held
    if search.exhausted:
        assert read == len(every)
    else:
        assert len(held) >= ENOUGH


QUERIES = [
    ("", "fuzzy"),
    ("g", "fuzzy"),
    ("gpo", "fuzzy"),
    ("kgp", "fuzzy"),
    ("Make", "fuzzy"),
    ("git push", "prefix"),
    ("git push origin v", "prefix"),
    ("gpov", "fuzzy"),
    ("docker compose up", "prefix"),
    ("Make", "prefix"),
    ("push", "fulltext"),
    ("pods main", "fulltext"),
    ('"compose up"', "fuzzy"),
    (":git -origin", "fulltext"),
]


@pytest.mark.parametrize("filter_mode", ["everywhere", "failed", "directory"])
@pytest.mark.parametrize("typed,mode", QUERIES)
def test_a_fresh_search_holds_the_newest_matches(seeded, env, typed, mode, filter_mode) -> None:
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd="/w", session_id=None, host="laptop"))
        search = source.search(parse(typed, mode), filter_mode)
        run_to_end(search)
        assert_newest_rows(connection, search)


@pytest.mark.parametrize("mode", ["fuzzy", "prefix", "fulltext"])
def test_typing_one_key_at_a_time_holds_the_newest_matches(seeded, env, mode) -> None:
    """Each key narrows the last search: its matches filtered, then read on below them."""
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd="/elsewhere", session_id=None, host="laptop"))
        search = None
        for typed in ("d", "do", "doc", "docker", "docker c", "docker co", "docker compose", "docker compose u"):
            search = source.search(parse(typed, mode), "everywhere", previous=search)
            run_to_end(search)
            assert_newest_rows(connection, search)


def test_a_history_that_repeats_itself_is_read_on_in_few_steps(recorder, env) -> None:
    """Reading on asks for the rows the missing commands take here (each ran 8 times in a row),
    not one row a command: three steps, not one for every few commands."""
    commands = [f"make target{i // 8}" for i in range(8 * 2 * ENOUGH)]
    add_many(recorder, commands, "/w", minutes_ago=10)
    with sqlite3.connect(db_path(env)) as connection:
        source = Source(connection, Here(cwd="/elsewhere", session_id=None, host="laptop"))
        for mode in ("fuzzy", "fulltext"):  # slices of rows; the full-text index's walk
            search = source.search(parse("make", mode), "everywhere")
            assert run_to_end(search) <= 3
            assert_newest_rows(connection, search)
