"""The SQL of an execution query's filters, written once for every path that reads executions.

The store (SQLAlchemy, on SQLite and PostgreSQL) and the sqlite3 fast paths (`parsec history`,
`parsec search`, the start of `parsec ask`) all take their WHERE conditions from here, so a filter
means the same on each of them. Standard library only: the fast paths import it without SQLAlchemy.

A condition is SQL text; its values go through a placeholder maker: `Positional` gives sqlite3's
`?`, `Named` gives `:name` for SQLAlchemy's `text()`.

Search: a row matches when its command contains every whitespace-separated term as a
case-insensitive substring (migration 0001 creates the indexes, and says why these). On SQLite, terms of three characters or
more go through the FTS5 trigram index; shorter ones are checked with LIKE. On PostgreSQL every
term is an ILIKE, which the pg_trgm index serves.
"""

from __future__ import annotations

from .micros import to_micros

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime
    from typing import Any, Protocol

    Bind = Callable[[object], str]  # a placeholder maker (Positional, Named): a value in, its placeholder out

    class ExecutionFilter(Protocol):
        """The filter fields store.base.ExecutionQuery and store.history.HistoryQuery share."""

        @property
        def session_id(self) -> str | None: ...
        @property
        def cwd(self) -> str | None: ...
        @property
        def cwd_subtree(self) -> bool: ...
        @property
        def exit_status(self) -> int | None: ...
        @property
        def failed(self) -> bool | None: ...
        @property
        def host(self) -> str | None: ...
        @property
        def since(self) -> datetime | None: ...
        @property
        def until(self) -> datetime | None: ...
        @property
        def search(self) -> str | None: ...
        @property
        def limit(self) -> int: ...
        @property
        def source(self) -> str | None: ...


FTS_TABLE = "executions_fts"
TRIGRAM_MIN = 3  # the shortest term a trigram index can answer


class Positional:
    """sqlite3's `?` placeholders; `values` is the parameter list, in order."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def __call__(self, value: object) -> str:
        self.values.append(value)
        return "?"


class Named:
    """`:prefixN` placeholders for SQLAlchemy's text(); `values` is the parameter dict. Conditions
    that end up in one statement need different prefixes."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.values: dict[str, Any] = {}

    def __call__(self, value: object) -> str:
        name = f"{self.prefix}{len(self.values)}"
        self.values[name] = value
        return f":{name}"


def split_terms(search: str) -> list[str]:
    return [term for term in search.split() if term]


def uses_full_text_index(search: str) -> bool:
    return any(len(term) >= TRIGRAM_MIN for term in split_terms(search))


def like_escape(text: str) -> str:
    """`text` with LIKE's wildcards and the escape character itself taken literally (ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_pattern(term: str) -> str:
    """LIKE's pattern for `term` anywhere in the text."""
    return f"%{like_escape(term)}%"


def fts5_phrase(term: str) -> str:
    # An FTS5 string: double quotes inside are doubled; everything else is literal.
    return '"' + term.replace('"', '""') + '"'


def under_directory(column: str, directory: str, bind: Bind) -> str:
    """`directory` and every directory below it, as an index range (no LIKE scan): every path
    below `base` starts with `base/`, and "0" is the character after "/"."""
    base = directory.rstrip("/")
    exact = "" if base == "" else f"{column} = {bind(base)} OR "  # bound first: it comes first
    return f"({exact}({column} >= {bind(base + '/')} AND {column} < {bind(base + '0')}))"


def search_conditions(search: str, bind: Bind, dialect: str, seq_range: tuple[int, int] | None = None) -> list[str]:
    """The conditions of a full-text search (none for an empty one). `seq_range` (lo, hi] limits
    SQLite's index lookup to a slice of rows (see newest_first.py)."""
    terms = split_terms(search)
    if dialect != "sqlite":
        return [f"command ILIKE {bind(like_pattern(term))} ESCAPE '\\'" for term in terms]
    conditions = []
    long_terms = [term for term in terms if len(term) >= TRIGRAM_MIN]
    if long_terms:
        match = f"{FTS_TABLE} MATCH {bind(' AND '.join(fts5_phrase(term) for term in long_terms))}"
        if seq_range is not None:  # FTS5 seeks straight to a rowid range
            match += f" AND rowid > {bind(seq_range[0])} AND rowid <= {bind(seq_range[1])}"
        conditions.append(f"seq IN (SELECT rowid FROM {FTS_TABLE} WHERE {match})")
    # SQLite's LIKE is case-insensitive for ASCII, like the trigram tokenizer.
    conditions += [f"command LIKE {bind(like_pattern(term))} ESCAPE '\\'" for term in terms if len(term) < TRIGRAM_MIN]
    return conditions


# `parsec history --source`: the commands workflows ran (`parsec ask`), or the user's own (typed
# in a shell or imported). A workflow's rows carry their conversation_id.
SOURCES = {"ai": "source = 'workflow'", "user": "source != 'workflow'"}


def filter_conditions(
    query: ExecutionFilter,
    bind: Bind,
    dialect: str = "sqlite",
    *,
    seq_range: tuple[int, int] | None = None,
) -> list[str]:
    """The conditions of `query` (store.base.ExecutionQuery or store.history.HistoryQuery: the
    same filter fields) except paging. failed: True = non-zero exit, False = exit 0; a NULL
    (unknown) exit is neither."""
    conditions = []
    if query.session_id is not None:
        conditions.append(f"session_id = {bind(query.session_id)}")
    if query.cwd is not None:
        if query.cwd_subtree:
            conditions.append(under_directory("cwd", query.cwd, bind))
        else:
            conditions.append(f"cwd = {bind(query.cwd)}")
    if query.exit_status is not None:
        conditions.append(f"exit_status = {bind(query.exit_status)}")
    if query.failed is True:
        conditions.append("exit_status != 0")
    elif query.failed is False:
        conditions.append("exit_status = 0")
    if query.host is not None:
        conditions.append(f"host = {bind(query.host)}")
    if query.source is not None:
        conditions.append(SOURCES[query.source])
    if query.since is not None:
        conditions.append(f"executed_at >= {bind(to_micros(query.since))}")
    if query.until is not None:
        conditions.append(f"executed_at < {bind(to_micros(query.until))}")
    if query.search:
        conditions += search_conditions(query.search, bind, dialect, seq_range)
    return conditions


def older_than(executed_at: int, seq: int, bind: Bind) -> str:
    """Rows older than the one at (executed_at in µs, seq), in newest-first order: a page's start."""
    return f"(executed_at < {bind(executed_at)} OR (executed_at = {bind(executed_at)} AND seq < {bind(seq)}))"


def where(conditions: list[str]) -> str:
    """` WHERE a AND b`, or nothing."""
    return (" WHERE " + " AND ".join(conditions)) if conditions else ""
