"""One parser says which file a SQLite store URL names (store/sqlite_url.py, standard library only,
so the sqlite3 fast paths can use it). Checked against SQLAlchemy's own URL parser, the outside
truth the engine used to rely on."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from parsec.store.sqlite_url import sqlite_file


def by_sqlalchemy(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database).expanduser()


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:////home/me/.local/share/parsec/parsec.db",
        "sqlite:///relative/parsec.db",
        "sqlite:///~/parsec.db",
        "sqlite+pysqlite:////tmp/p.db",
        "sqlite+pysqlcipher:////tmp/p.db",
        "sqlite:////tmp/with%20space/p.db",
        "sqlite:////tmp/p.db?timeout=5",
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:///file:mem?mode=memory&uri=true",
        "postgresql://u@h/db",
        "postgresql+psycopg://u@h:5432/db?sslmode=require",
        "mysql:///tmp/not-sqlite.db",
    ],
)
def test_the_same_file_as_sqlalchemy_says(url) -> None:
    assert sqlite_file(url) == by_sqlalchemy(url)


def test_what_is_not_a_url_names_no_file() -> None:
    assert sqlite_file("/tmp/p.db") is None and sqlite_file("") is None and sqlite_file("sqlite:") is None
