"""How executions are read newest first from SQLite: the plans, written once for any driver.

`parsec history` runs them with sqlite3 (no SQLAlchemy on its start-up path), the store with its
SQLAlchemy connection: the same SQL (execution_sql's conditions), the same rows. `run(sql, params)`
executes qmark SQL and returns the rows as tuples. Standard library only.

- **Plain**: the query's conditions, newest first, limited.
- **Full-text search, limited** (windowed): the plain plan costs time in proportion to the number
  of matches (a common word such as `git` matches a quarter of a million-row history). But `seq`
  (the insertion order) nearly follows `executed_at`, and FTS5 can seek to a rowid range. So
  search slices of recent rows, newest slice first, each four times larger than the last, and stop
  as soon as no older slice can hold a row newer than the ones found: the newest `executed_at`
  among the remaining rows is one index lookup (ix_executions_time). Rows imported out of order
  only make the search look at more slices; the answer stays exact.
- **A large subtree, limited** (`--cwd D --subtree`): the (cwd, time) index serves one directory
  in time order, but a subtree is many directories, so SQLite sorts all of its rows (29 ms for
  100,000 of 1,000,000). When a capped count finds many rows there, reading the time index newest
  first stops after `limit` of them.
"""

from __future__ import annotations

from .execution_sql import Positional, filter_conditions, older_than, under_directory, uses_full_text_index, where
from .micros import from_micros

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from .execution_sql import ExecutionFilter

    Run = Callable[[str, Sequence[Any]], Sequence[Sequence[Any]]]

# Every column of a row but `seq`, in the order of store.schema.executions.
EXECUTION_COLUMNS = (
    "id",
    "session_id",
    "command",
    "executed_at",
    "duration_ms",
    "exit_status",
    "pipeline_statuses",
    "stdout",
    "stderr",
    "cwd",
    "cwd_after",
    "host",
    "user",
    "source",
    "conversation_id",
)
NEWEST_FIRST = " ORDER BY executed_at DESC, seq DESC"
FIRST_SLICE = 20_000  # rows in the newest slice of a windowed search
SUBTREE_FACTOR = 20  # a subtree is "large" with more than this many times the limit rows


def newest_executions(
    run: Run, query: ExecutionFilter, columns: Sequence[str], before: tuple[int, int] | None = None
) -> list[tuple]:
    """The rows of `query` (ExecutionQuery or HistoryQuery), newest first, as tuples of `columns`
    and then `seq`. `before` (executed_at in µs, seq): only rows older than that one (paging)."""
    limit = query.limit if query.limit and query.limit > 0 else 0
    if limit and uses_full_text_index(query.search or ""):
        return _windowed(run, query, columns, before, limit)
    bind = Positional()
    conditions = filter_conditions(query, bind)
    if before is not None:
        conditions.append(older_than(*before, bind))
    source = "executions INDEXED BY ix_executions_time" if limit and _large_subtree(run, query) else "executions"
    sql = f"SELECT {', '.join(columns)}, seq FROM {source}{where(conditions)}{NEWEST_FIRST}"
    if limit:
        sql += f" LIMIT {bind(limit)}"
    return [tuple(row) for row in run(sql, bind.values)]


def newest_execution_rows(run: Run, query: ExecutionFilter, before_id: str | None = None) -> list[dict[str, Any]]:
    """The rows of `query` newest first, as dicts of every column with `executed_at` an aware
    datetime: what rows.execution_from_row takes. `before_id`: a page, starting after that
    execution (an unknown id gives nothing)."""
    before = None
    if before_id is not None:
        anchor = run("SELECT executed_at, seq FROM executions WHERE id = ?", (before_id,))
        if not anchor:
            return []
        before = (anchor[0][0], anchor[0][1])
    found = []
    for row in newest_executions(run, query, EXECUTION_COLUMNS, before):
        item = dict(zip(EXECUTION_COLUMNS, row))  # seq, last in the row, left out
        item["executed_at"] = from_micros(item["executed_at"])
        found.append(item)
    return found


def _windowed(
    run: Run, query: ExecutionFilter, columns: Sequence[str], before: tuple[int, int] | None, limit: int
) -> list[tuple]:
    top = run("SELECT max(seq) FROM executions", ())[0][0]
    if top is None:
        return []
    at = columns.index("executed_at")  # rows are `columns` then seq
    found: list[tuple] = []
    high, size = top, FIRST_SLICE
    while True:
        low = max(0, high - size)
        bind = Positional()
        conditions = filter_conditions(query, bind, seq_range=(low, high))
        if before is not None:
            conditions.append(older_than(*before, bind))
        rows = run(
            f"SELECT {', '.join(columns)}, seq FROM executions{where(conditions)}{NEWEST_FIRST} LIMIT {bind(limit)}",
            bind.values,
        )
        found = sorted(found + [tuple(row) for row in rows], key=lambda row: (row[at], row[-1]), reverse=True)[:limit]
        if low == 0:
            return found
        if len(found) >= limit:
            newest_below = run(
                "SELECT executed_at FROM executions INDEXED BY ix_executions_time WHERE seq <= ? "
                "ORDER BY executed_at DESC LIMIT 1",
                (low,),
            )
            if not newest_below or newest_below[0][0] <= found[-1][at]:
                return found
        high, size = low, size * 4


def _large_subtree(run: Run, query: ExecutionFilter) -> bool:
    if not query.cwd_subtree or query.cwd is None or query.search:
        return False
    if query.session_id or query.exit_status is not None:
        return False
    cap = query.limit * SUBTREE_FACTOR
    bind = Positional()
    subtree = under_directory("cwd", query.cwd, bind)
    return (
        run(f"SELECT count(*) FROM (SELECT 1 FROM executions WHERE {subtree} LIMIT {bind(cap + 1)})", bind.values)[0][0]
        > cap
    )
