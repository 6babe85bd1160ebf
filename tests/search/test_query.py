"""The typed query: parsing, and the SQL conditions agreeing with the Python test on a real store."""

from __future__ import annotations

import sqlite3

import pytest

from parsec.cli.history.search.query import matches, next_mode, parse
from parsec.store.history import HistoryQuery
from parsec.store.search import TextMatch, full_text_match, full_text_walk, newest_seq, search_slice

from .conftest import db_path


def test_parse_words_phrases_exclusions_and_smart_case() -> None:
    text = parse(':git "push origin" -force -"dry run" -')
    assert text.include == ("git", "push origin", "-")
    assert text.exclude == ("force", "dry run")
    assert text.case_sensitive is False
    assert parse("Makefile").case_sensitive is True
    assert parse("docker", "prefix").mode == "prefix"
    assert parse("docker", "nonsense").mode == "fuzzy"


@pytest.mark.parametrize("typed", ["ls -la", "git commit -m", "docker run --rm", 'git commit -m "fix it"'])
def test_a_minus_is_an_options_until_filters_are_opened(typed) -> None:
    """Issue 28: the typed line is the query; `-m` used to exclude every `git commit -m`."""
    text = parse(typed)
    assert text.exclude == ()
    assert matches(text, typed)
    assert parse(":" + typed).exclude  # a leading `:` opens filters: `-word` excludes


def test_modes_cycle() -> None:
    assert [next_mode(m) for m in ("fuzzy", "prefix", "fulltext")] == ["prefix", "fulltext", "fuzzy"]


COMMANDS = [
    "git push origin main",
    "git pull",
    "docker compose up -d",
    "Docker build .",
    "grep -r TODO src",
    "make test",
    "git push --force origin main",
    "echo 100%_done",
    "ls *.py",
    "gpo",
    "GIT PUSH origin",
    "  git push",  # a leading space: not a prefix match, in SQL, in Python and in the index's `^`
    "xgit push",
]
QUERIES = [
    ("gpo", "fuzzy"),
    ("gpo", "fulltext"),
    ("git", "prefix"),
    ("git p", "prefix"),
    ("git push", "prefix"),
    ("GIT PUSH", "prefix"),
    ("git push", "fulltext"),
    ('"push origin"', "fuzzy"),
    (":git -force", "fulltext"),
    ("git -force", "fulltext"),
    ("docker run --rm", "fuzzy"),
    ("docker", "fulltext"),
    ("Docker", "fulltext"),
    ("dkr", "fuzzy"),
    ("100%_", "fulltext"),
    ("*.py", "fulltext"),
    (":push -main", "fuzzy"),
    ("", "fuzzy"),
    ("D", "fuzzy"),
]


@pytest.mark.parametrize("typed,mode", QUERIES)
def test_sql_and_python_agree(recorder, env, typed, mode) -> None:
    for i, command in enumerate(COMMANDS):
        recorder.add(command, "/w", minutes_ago=100 - i)
    text = parse(typed, mode)
    with sqlite3.connect(db_path(env)) as connection:
        rows = search_slice(connection, HistoryQuery(), text, 0, newest_seq(connection))
        if full_text_match(text) is not None:  # the index's walk (newest first, one query): the same rows
            assert full_text_walk(connection, HistoryQuery(), text, 0, newest_seq(connection), 1000) == rows
    by_sql = sorted(row[3] for row in rows)
    by_python = sorted(c for c in COMMANDS if matches(text, c))
    assert by_sql == by_python
    assert isinstance(text, TextMatch)


def test_meaning_of_each_mode() -> None:
    assert matches(parse("gpo", "fuzzy"), "git push origin")
    assert not matches(parse("gpo", "fulltext"), "git push origin")
    assert matches(parse("git pu", "prefix"), "git push")
    assert not matches(parse("push", "prefix"), "git push")
    assert not matches(parse(":git -force"), "git push --force")
    assert matches(parse("git -force"), "git push --force")
    assert matches(parse("docker"), "Docker build")  # lower case: any case
    assert not matches(parse("Docker"), "docker build")  # a capital: case matters
