"""WHERE clauses for execution queries, shared by query, count and history modules."""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, and_, or_, select

from .base import ExecutionQuery
from .fts import search_condition
from .schema import executions

NEWEST_FIRST = (executions.c.executed_at.desc(), executions.c.seq.desc())


def under_directory(column: ColumnElement[str], directory: str) -> ColumnElement[bool]:
    """`directory` and every directory below it, as an index range (no LIKE scan)."""
    base = directory.rstrip("/")
    # Every path below `base` starts with `base/`; "0" is the character after "/".
    below = and_(column >= base + "/", column < base + "0")
    return below if base == "" else or_(column == base, below)


def cwd_condition(cwd: str, subtree: bool) -> ColumnElement[bool]:
    return under_directory(executions.c.cwd, cwd) if subtree else executions.c.cwd == cwd


def execution_conditions(
    connection: Connection,
    query: ExecutionQuery,
    *,
    paging: bool = True,
    search: bool = True,
    cwd: bool = True,
) -> list[ColumnElement[bool]] | None:
    """The conditions for `query`; None when nothing can match (an unknown paging id)."""
    c = executions.c
    conditions: list[ColumnElement[bool]] = []
    if query.session_id is not None:
        conditions.append(c.session_id == query.session_id)
    if cwd and query.cwd is not None:
        conditions.append(cwd_condition(query.cwd, query.cwd_subtree))
    if query.exit_status is not None:
        conditions.append(c.exit_status == query.exit_status)
    if query.failed is True:
        conditions.append(c.exit_status != 0)  # NULL (unknown) is neither failed nor succeeded
    elif query.failed is False:
        conditions.append(c.exit_status == 0)
    if query.host is not None:
        conditions.append(c.host == query.host)
    if query.since is not None:
        conditions.append(c.executed_at >= query.since)
    if query.until is not None:
        conditions.append(c.executed_at < query.until)
    if search and query.search:
        condition = search_condition(connection.dialect.name, query.search)
        if condition is not None:
            conditions.append(condition)
    if paging and query.before_id is not None:
        anchor = connection.execute(select(c.executed_at, c.seq).where(c.id == query.before_id)).first()
        if anchor is None:
            return None
        at, seq = anchor
        conditions.append(or_(c.executed_at < at, and_(c.executed_at == at, c.seq < seq)))
    return conditions
