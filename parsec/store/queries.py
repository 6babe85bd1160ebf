"""WHERE clauses for execution queries in SQLAlchemy: execution_sql's conditions (the one
definition, shared with the sqlite3 fast paths) as text() clauses, plus paging."""

from __future__ import annotations

from sqlalchemy import Connection, TextClause, select, text

from . import execution_sql
from .micros import to_micros
from .protocols import ExecutionQuery
from .schema import executions

NEWEST_FIRST = (executions.c.executed_at.desc(), executions.c.seq.desc())


def _text(conditions: list[str], bind: execution_sql.Named) -> TextClause:
    return text(" AND ".join(conditions)).bindparams(**bind.values)


def under_directory(column: str, directory: str) -> TextClause:
    """`directory` and every directory below it, as an index range (no LIKE scan)."""
    bind = execution_sql.Named("dir_")
    return _text([execution_sql.under_directory(column, directory, bind)], bind)


def execution_conditions(connection: Connection, query: ExecutionQuery) -> list[TextClause] | None:
    """The conditions for `query`; None when nothing can match (an unknown paging id)."""
    c = executions.c
    bind = execution_sql.Named("filter_")
    filters = execution_sql.filter_conditions(query, bind, connection.dialect.name)
    conditions: list[TextClause] = [_text(filters, bind)] if filters else []
    if query.before_id is not None:
        anchor = connection.execute(select(c.executed_at, c.seq).where(c.id == query.before_id)).first()
        if anchor is None:
            return None
        page = execution_sql.Named("page_")
        conditions.append(_text([execution_sql.older_than(to_micros(anchor.executed_at), anchor.seq, page)], page))
    return conditions
