"""`parsec stats`: most used programs, failure rates, busiest directories, commands per day and
model token usage, computed in SQL on either backend (not on a hot path: SQLAlchemy is fine)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from .micros import from_micros, to_micros

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sqlalchemy import ColumnElement

    from .sql_store import SqlStore


def _program(command_column: ColumnElement[str], dialect: str) -> ColumnElement[str]:
    """The first word of a command (`git` for `git push`), computed in SQL."""
    from sqlalchemy import func

    if dialect == "postgresql":
        return func.split_part(func.ltrim(command_column), " ", 1)
    trimmed = func.ltrim(command_column)
    return func.substr(trimmed, 1, func.instr(trimmed + " ", " ") - 1)


def stats(store: SqlStore, since: datetime | None = None, top: int = 10, days: int = 14) -> dict[str, Any]:
    """Most used programs, failure rate per program, busiest directories, commands per day, and LLM
    token usage per provider. One pass per figure over the executions table (with `since` it uses
    the time index)."""
    from sqlalchemy import case, desc, func, select

    from .schema import executions

    c = executions.c
    dialect = store.db.dialect
    window = [c.executed_at >= since] if since is not None else []
    program = _program(c.command, dialect).label("program")
    failed = func.sum(case((c.exit_status != 0, 1), else_=0)).label("failed")
    known = func.sum(case((c.exit_status.is_not(None), 1), else_=0)).label("known")
    count = func.count().label("runs")
    day_micros = 86_400 * 1_000_000
    newest_day = None
    with store.db.read() as connection:
        programs = connection.execute(
            select(program, count, failed, known).where(*window).group_by(program).order_by(desc(count)).limit(top)
        ).all()
        dirs = connection.execute(
            select(c.cwd, count).where(*window, c.cwd != "").group_by(c.cwd).order_by(desc(count)).limit(top)
        ).all()
        newest = connection.execute(select(func.max(c.executed_at))).scalar()
        days_rows: Sequence[Sequence[Any]] = []
        if newest is not None:
            newest_day = to_micros(newest) // day_micros
            first = (newest_day - days + 1) * day_micros
            bucket = (executions.c.executed_at.cast(executions.c.duration_ms.type) // day_micros).label("day")
            raw_time = executions.c.executed_at
            days_rows = connection.execute(
                select(bucket, count).where(raw_time >= from_micros(first)).group_by(bucket).order_by(bucket)
            ).all()
        totals = connection.execute(select(count, failed).where(*window)).one()
    usage = store.llm_usage_summary(since=since)
    by_day = {int(day): runs for day, runs in days_rows}
    activity = []
    if newest_day is not None:
        for day in range(newest_day - days + 1, newest_day + 1):
            activity.append({"day": from_micros(day * day_micros).date().isoformat(), "commands": by_day.get(day, 0)})
    return {
        "total": int(totals[0] or 0),
        "failed": int(totals[1] or 0),
        "programs": [
            {
                "program": p or "(blank)",
                "runs": int(r),
                "failed": int(f or 0),
                "failure_rate": (int(f or 0) / int(k)) if k else None,
            }
            for p, r, f, k in programs
        ],
        "directories": [{"cwd": d, "runs": int(r)} for d, r in dirs],
        "activity": activity,
        "llm_usage": usage,
    }
