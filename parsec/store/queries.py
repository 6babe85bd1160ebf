"""WHERE clauses for execution queries in SQLAlchemy: execution_sql's conditions (the one
definition, shared with the sqlite3 fast paths) as text() clauses, plus paging."""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, TextClause, and_, or_, select, text

from . import execution_sql
from .base import ExecutionQuery
from .schema import executions

NEWEST_FIRST = (executions.c.executed_at.desc(), executions.c.seq.desc())

Condition = ColumnElement[bool] | TextClause


def _text(conditions: list[str], bind: execution_sql.Named) -> TextClause:
    return text(" AND ".join(conditions)).bindparams(**bind.values)


def under_directory(column: str, directory: str) -> TextClause:
    """`directory` and every directory below it, as an index range (no LIKE scan)."""
    bind = execution_sql.Named("dir_")
    return _text([execution_sql.under_directory(column, directory, bind)], bind)


def execution_conditions(
    connection: Connection,
    query: ExecutionQuery,
    *,
    paging: bool = True,
    search: bool = True,
    cwd: bool = True,
) -> list[Condition] | None:
    """The conditions for `query`; None when nothing can match (an unknown paging id)."""
    c = executions.c
    bind = execution_sql.Named("filter_")
    filters = execution_sql.filter_conditions(query, bind, connection.dialect.name, cwd=cwd, search=search)
    conditions: list[Condition] = [_text(filters, bind)] if filters else []
    if paging and query.before_id is not None:
        anchor = connection.execute(select(c.executed_at, c.seq).where(c.id == query.before_id)).first()
        if anchor is None:
            return None
        at, seq = anchor
        conditions.append(or_(c.executed_at < at, and_(c.executed_at == at, c.seq < seq)))
    return conditions
