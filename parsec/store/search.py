"""Rows for the interactive search (`parsec search`, Ctrl-R), read the fast way.

The search redraws on every keystroke, so it never asks SQLite for "every match, newest first"
(a rare word scans a million rows). It asks for one slice of the newest rows at a time, by `seq`
(the rowid: a range read, no sort), with the scope filters of `parsec history` (`execution_sql`,
the one definition of what a directory, subtree, session, host or failure filter means) and the
text conditions below. The caller draws after the first slice and asks for older ones while the
user is not typing.

Standard library only, like history.py: this is on the start-up path of Ctrl-R.
"""

from __future__ import annotations

import sqlite3
from collections import namedtuple

from .execution_sql import FTS_TABLE, TRIGRAM_MIN, Positional, filter_conditions, fts5_phrase, like_escape, where
from .history import HistoryQuery

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from typing import Any

MODES = ("fuzzy", "prefix", "fulltext")
ROW_FIELDS = (
    "seq",
    "id",
    "session_id",
    "command",
    "executed_at",
    "duration_ms",
    "exit_status",
    "cwd",
    "host",
    "source",
    "conversation_id",
)


# What the typed query asks of a command. `include`: words (or quoted phrases) that must be there,
# `exclude`: ones that must not; `mode` says how an included word matches (fuzzy: its characters
# in order; prefix: the whole included text starts the command; fulltext: as a substring);
# `case_sensitive` when the query holds a capital letter (smart case).
# A namedtuple, not a dataclass: dataclasses imports inspect and ast, too slow for Ctrl-R's start-up.
TextMatch = namedtuple("TextMatch", ["include", "exclude", "mode", "case_sensitive"], defaults=((), (), "fuzzy", False))


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _pattern(text: str, shape: str, case_sensitive: bool) -> tuple[str, str]:
    """(SQL operator, pattern) matching `text` as a substring, a prefix or fuzzily. LIKE ignores
    ASCII case in SQLite; GLOB does not, so it serves the case-sensitive queries."""
    escape, anything = (_glob_escape, "*") if case_sensitive else (like_escape, "%")
    if shape == "fuzzy":
        body = anything.join(escape(c) for c in text)
    else:
        body = escape(text)
    pattern = (body if shape == "prefix" else anything + body) + anything
    return ("GLOB ?" if case_sensitive else "LIKE ? ESCAPE '\\'"), pattern


def text_clauses(text: TextMatch, column: str = "command") -> tuple[list[str], list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if text.mode == "prefix" and text.include:
        operator, pattern = _pattern(" ".join(text.include), "prefix", text.case_sensitive)
        clauses.append(f"{column} {operator}")
        params.append(pattern)
    else:
        shape = "fuzzy" if text.mode == "fuzzy" else "substring"
        for word in text.include:
            operator, pattern = _pattern(word, shape if " " not in word else "substring", text.case_sensitive)
            clauses.append(f"{column} {operator}")
            params.append(pattern)
    for word in text.exclude:
        operator, pattern = _pattern(word, "substring", text.case_sensitive)
        clauses.append(f"{column} NOT {operator}")
        params.append(pattern)
    return clauses, params


def substrings(text: TextMatch) -> list[str]:
    """The parts of the query every match holds as they are (in any case): the prefix mode's text,
    the fulltext mode's words, phrases with a space; fuzzy words hold their letters only in order."""
    if text.mode == "prefix":
        return [" ".join(text.include)] if text.include else []
    return [word for word in text.include if text.mode == "fulltext" or " " in word]


def full_text_match(text: TextMatch) -> str | None:
    """The FTS5 (trigram) query for the substrings long enough for the index, or None: a
    prefilter (the index folds case like LIKE, so it finds a superset of the text clauses). The
    prefix mode's text must start the command: `^` ties the phrase to the first trigram, so the
    index hands out only the commands it starts (`git push` matches 1,523 of the bench's
    1,000,000 rows, 606 of them at the start: each match is a row looked up)."""
    long = [part for part in substrings(text) if len(part) >= TRIGRAM_MIN]
    start = "^" if text.mode == "prefix" else ""
    return " AND ".join(start + fts5_phrase(part) for part in long) if long else None


def newest_seq(connection: sqlite3.Connection) -> int:
    # a bare max(): SQLite reads it from the end of the rowid b-tree (coalesce() around it scans)
    return int(connection.execute("SELECT max(seq) FROM executions").fetchone()[0] or 0)


def search_slice(
    connection: sqlite3.Connection,
    scope: HistoryQuery,
    text: TextMatch,
    low: int,
    high: int,
    limit: int = 20_000,
    index: str | None = None,
) -> list[tuple]:
    """Executions with low < seq <= high matching the scope and the text, newest (by seq) first,
    as tuples in ROW_FIELDS order. `index` (scope_index): read the scope's rows through its index
    rather than the rowid range (for a scope small enough to read whole, see scope_rows)."""
    bind = Positional()
    conditions = filter_conditions(_scope_only(scope), bind)
    conditions += [f"seq > {bind(low)}", f"seq <= {bind(high)}"]
    match = full_text_match(text)
    if match is not None:  # FTS5 seeks to the rowid range: the cost follows the matches, not the rows
        conditions.append(
            f"seq IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH {bind(match)}"
            f" AND rowid > {bind(low)} AND rowid <= {bind(high)})"
        )
    clauses, text_params = text_clauses(text)
    bind.values += text_params
    source = f"executions INDEXED BY {index}" if index else "executions"
    sql = f"SELECT {', '.join(ROW_FIELDS)} FROM {source}{where([*conditions, *clauses])} ORDER BY seq DESC LIMIT ?"
    return connection.execute(sql, [*bind.values, limit]).fetchall()


def full_text_walk(
    connection: sqlite3.Connection, scope: HistoryQuery, text: TextMatch, low: int, high: int, limit: int
) -> list[tuple]:
    """search_slice for a text the full-text index serves (full_text_match), driven by that index:
    its entries newest first, each row looked up, stopped at `limit` rows. The cost follows the
    entries walked, not the rows between `low` and `high`, so one query can cover the whole
    history below a first slice (five growing slices took five queries for a rare text)."""
    match = full_text_match(text)
    if match is None:
        raise ValueError(f"no substring of {TRIGRAM_MIN} characters or more to look up: {text!r}")
    bind = Positional()
    conditions = [
        f"{FTS_TABLE} MATCH {bind(match)}",
        f"{FTS_TABLE}.rowid > {bind(low)}",
        f"{FTS_TABLE}.rowid <= {bind(high)}",
        *filter_conditions(_scope_only(scope), bind),
    ]
    clauses, text_params = text_clauses(text, "executions.command")  # the index has a `command` too
    bind.values += text_params
    # CROSS JOIN keeps the index the outer loop (a scope's own index would otherwise be chosen and
    # its rows sorted); FTS5 hands its rows out newest first for the ORDER BY, so LIMIT stops it
    fields = ", ".join(f"executions.{field}" for field in ROW_FIELDS)
    sql = (
        f"SELECT {fields} FROM {FTS_TABLE} CROSS JOIN executions ON executions.seq = {FTS_TABLE}.rowid"
        f"{where([*conditions, *clauses])} ORDER BY {FTS_TABLE}.rowid DESC LIMIT ?"
    )
    return connection.execute(sql, [*bind.values, limit]).fetchall()


def _scope_only(scope: HistoryQuery) -> HistoryQuery:
    return HistoryQuery(
        session_id=scope.session_id, cwd=scope.cwd, cwd_subtree=scope.cwd_subtree, failed=scope.failed, host=scope.host
    )


# A scope's filter column and the (column, executed_at) index that lists its rows (store/schema.py).
SCOPE_INDEXES = (
    ("cwd", "ix_executions_cwd_time"),
    ("session_id", "ix_executions_session_time"),
    ("host", "ix_executions_host_time"),
)


def scope_index(scope: HistoryQuery) -> str | None:
    """The index holding exactly the rows of `scope` (a directory, subtree, session or host)."""
    for field, index in SCOPE_INDEXES:
        if getattr(scope, field) is not None:
            return index
    return None


def scope_rows(connection: sqlite3.Connection, scope: HistoryQuery, index: str, cap: int) -> int:
    """How many rows `scope` holds, up to cap + 1: counted in its index alone (no table reads)."""
    bind = Positional()
    conditions = filter_conditions(_scope_only(scope), bind)
    sql = f"SELECT count(*) FROM (SELECT 1 FROM executions INDEXED BY {index}{where(conditions)} LIMIT {bind(cap + 1)})"
    return int(connection.execute(sql, bind.values).fetchone()[0])


def previous_in_session(connection: sqlite3.Connection, session_id: str, executed_at: int) -> tuple | None:
    """(command, exit_status) of the command run just before `executed_at` in that session."""
    return connection.execute(
        "SELECT command, exit_status FROM executions WHERE session_id = ? AND executed_at < ? "
        "ORDER BY executed_at DESC LIMIT 1",
        (session_id, executed_at),
    ).fetchone()


def last_command(connection: sqlite3.Connection, session_id: str) -> str | None:
    found = connection.execute(
        "SELECT command FROM executions WHERE session_id = ? ORDER BY executed_at DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return found[0] if found else None


def output_of(connection: sqlite3.Connection, execution_id: str) -> tuple[str | None, str | None]:
    """The captured stdout and stderr of one execution, as stored (JSON of TruncatedText)."""
    found = connection.execute("SELECT stdout, stderr FROM executions WHERE id = ?", (execution_id,)).fetchone()
    return (found[0], found[1]) if found else (None, None)


def recent_conversations(connection: sqlite3.Connection, limit: int = 200) -> list[tuple]:
    """(id, session_id, updated_at, working_directory, data JSON) of the newest conversations.
    They are few (retention keeps 50 by default), so the search matches them in Python: the text
    it looks in (the prompt, the commands the workflow ran) is inside the JSON."""
    return connection.execute(
        "SELECT id, session_id, updated_at, working_directory, data FROM conversations "
        "ORDER BY updated_at DESC LIMIT ?",
        (limit,),
    ).fetchall()
