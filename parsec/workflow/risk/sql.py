"""What an SQL text does, for the verdict on `psql -c …`, `mysql -e …`, `sqlite3 DB …` and SQL fed
to them: dropping or emptying tables and databases is high, reading only is low, the rest medium."""

from __future__ import annotations

import re

from .verdict import HIGH, LOW, MEDIUM

_DESTROYS = re.compile(
    r"\b(?:DROP\s+(?:DATABASE|SCHEMA|TABLE|OWNED|USER|ROLE|TABLESPACE)|TRUNCATE|DELETE\s+FROM\s+[\w.\"`]+\s*(?:;|$))",
    re.IGNORECASE,
)
# psql's and mysql's \! CMD, mysql's system CMD, sqlite3's .shell / .system CMD
_SHELL_ESCAPE = re.compile(r"(?:^|[;\n])\s*(?:\\!|system\s|\.shell\b|\.system\b)", re.IGNORECASE)
_READS = re.compile(
    r"\s*(?:SELECT|SHOW|EXPLAIN|DESCRIBE|DESC|WITH|VALUES|\\[a-z?]+|\.(?:tables|schema|headers))\b", re.I
)


def sql_effect(sql: str) -> tuple[str, str]:
    """(level, reason) for running `sql`."""
    if _SHELL_ESCAPE.search(sql):
        return HIGH, "the SQL client runs a shell command (\\! or .shell)"
    match = _DESTROYS.search(sql)
    if match:
        return HIGH, f"the SQL {' '.join(match.group(0).split()[:2]).upper()} destroys data that lives in the database"
    statements = [s for s in sql.split(";") if s.strip()]
    if statements and all(_READS.match(s) for s in statements):
        return LOW, ""
    return MEDIUM, "the SQL may change the database"
