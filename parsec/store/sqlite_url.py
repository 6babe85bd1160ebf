"""Which file a SQLite store URL names: one parser for the engine (sql_engine.py), the fault
messages (faults.py) and the sqlite3 fast paths, which cannot import SQLAlchemy's. Standard
library only; tests/store/test_sqlite_url.py compares it with SQLAlchemy's `make_url`."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote


def sqlite_file(url: str) -> Path | None:
    """The database file of `sqlite[+driver]:///path` (`~` expanded); None for another backend,
    an in-memory database or a `file:` URI."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.split("+", 1)[0] != "sqlite" or not rest.startswith("/"):
        return None
    database = unquote(rest[1:].split("?", 1)[0])
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database).expanduser()
