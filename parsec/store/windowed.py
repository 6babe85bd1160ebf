"""Newest-first full-text search on SQLite without sorting every match.

The plain plan (all FTS matches → look each row up → sort by time → first 50) costs time in
proportion to the number of matches: a common word such as `git` matches a quarter of a
million-row history. But `seq` (the insertion order) nearly follows `executed_at`, and FTS5 can
seek to a rowid range. So search slices of recent rows, newest slice first, growing each slice
fourfold, and stop as soon as no older slice can hold a newer row than the ones found: the
newest `executed_at` among the remaining rows is one index lookup (ix_executions_time). Rows
imported out of order only make the search look at more slices; the answer stays exact.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, RowMapping, func, select

from .fts import search_condition
from .queries import NEWEST_FIRST
from .schema import executions

FIRST_SLICE = 20_000  # rows in the newest slice; each next slice is four times larger


def windowed_search(
    connection: Connection, conditions: list[ColumnElement[bool]], search: str, limit: int
) -> list[RowMapping]:
    top = connection.execute(select(func.max(executions.c.seq))).scalar()
    if top is None:
        return []
    found: list[RowMapping] = []
    high, size = top, FIRST_SLICE
    while True:
        low = max(0, high - size)
        condition = search_condition("sqlite", search, seq_range=(low, high))
        terms = [condition] if condition is not None else []
        statement = select(executions).where(*conditions, *terms).order_by(*NEWEST_FIRST).limit(limit)
        found = _newest(found + list(connection.execute(statement).mappings()), limit)
        if low == 0:
            return found
        if len(found) >= limit and not _newer_rows_below(connection, low, found[-1]["executed_at"]):
            return found
        high, size = low, size * 4


def _newest(rows: list[RowMapping], limit: int) -> list[RowMapping]:
    return sorted(rows, key=lambda row: (row["executed_at"], row["seq"]), reverse=True)[:limit]


def _newer_rows_below(connection: Connection, low: int, oldest_found) -> bool:
    """Whether a row with seq <= low is newer than the oldest row found (ties rank lower: their
    seq is smaller). Walks the time index from the newest end: cheap when seq follows time."""
    newest_below = connection.execute(
        select(executions.c.executed_at)
        .with_hint(executions, "INDEXED BY ix_executions_time", "sqlite")
        .where(executions.c.seq <= low)
        .order_by(executions.c.executed_at.desc())
        .limit(1)
    ).scalar()
    return newest_below is not None and newest_below > oldest_found


# --- newest first below a directory (SQLite) -----------------------------------------------------

MAX_DIRECTORIES = 64  # beyond this many distinct directories the plain sorted plan is cheaper


def newest_in_subtree(
    connection: Connection, conditions: list[ColumnElement[bool]], directory: str, limit: int
) -> list[RowMapping] | None:
    """The newest `limit` rows in `directory` and below, or None to use the plain plan.

    A range on `cwd` cannot also deliver rows in time order, so SQLite sorts every row of the
    subtree (tens of thousands in a busy project). Instead: list the distinct directories with a
    loose index scan (one seek each), take the newest `limit` of each from (cwd, executed_at),
    and keep the newest overall."""
    directories = _directories_under(connection, directory)
    if directories is None:
        return None
    found: list[RowMapping] = []
    for cwd in directories:
        statement = select(executions).where(executions.c.cwd == cwd, *conditions).order_by(*NEWEST_FIRST).limit(limit)
        found = _newest(found + list(connection.execute(statement).mappings()), limit)
    return found


def _directories_under(connection: Connection, directory: str) -> list[str] | None:
    base = directory.rstrip("/")
    found = [base] if base else []
    low, high = base + "/", base + "0"  # every path below `base` sorts in [low, high)
    cwd = executions.c.cwd
    # A loose index scan: each step is one seek in ix_executions_cwd_time.
    following = connection.execute(select(func.min(cwd)).where(cwd >= low, cwd < high)).scalar()
    while following is not None:
        if len(found) == MAX_DIRECTORIES:
            return None
        found.append(following)
        following = connection.execute(select(func.min(cwd)).where(cwd > following, cwd < high)).scalar()
    return found
