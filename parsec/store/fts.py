"""Full-text search on command text: the same meaning on both backends.

A search is split on whitespace; a row matches when its command contains every term as a
case-insensitive substring. `git push --force` therefore finds `git push --force-with-lease`
and `git push origin main --force`, and punctuation such as `--` or `|` is searchable.

- SQLite: an FTS5 index with the `trigram` tokenizer (external content = `executions`, kept in
  sync by triggers). Trigrams answer substring questions exactly, which word tokenizers do not
  (`unicode61` drops `--`). Terms shorter than three characters cannot use trigrams; they are
  checked with LIKE on the rows the longer terms selected (or on all rows if none is longer).
- PostgreSQL: a `pg_trgm` GIN index on `command`, queried with ILIKE. A `tsvector` would stem
  and split words (`--force` becomes `force`, `pushed` matches `push`), which is wrong for
  commands; pg_trgm's GIN index serves `ILIKE '%term%'` directly.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, and_, literal_column, select, text

from .schema import executions

FTS_TABLE = "executions_fts"

SQLITE_FTS_DDL = [
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
    "command, content='executions', content_rowid='seq', tokenize='trigram')",
    f"""CREATE TRIGGER IF NOT EXISTS executions_fts_insert AFTER INSERT ON executions BEGIN
        INSERT INTO {FTS_TABLE}(rowid, command) VALUES (new.seq, new.command);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS executions_fts_delete AFTER DELETE ON executions BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, command) VALUES ('delete', old.seq, old.command);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS executions_fts_update AFTER UPDATE OF command ON executions BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, command) VALUES ('delete', old.seq, old.command);
        INSERT INTO {FTS_TABLE}(rowid, command) VALUES (new.seq, new.command);
    END""",
]

SQLITE_FTS_DROP = [
    "DROP TRIGGER IF EXISTS executions_fts_update",
    "DROP TRIGGER IF EXISTS executions_fts_delete",
    "DROP TRIGGER IF EXISTS executions_fts_insert",
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
]

TRIGRAM_MIN = 3  # the shortest term a trigram index can answer


def split_terms(search: str) -> list[str]:
    return [term for term in search.split() if term]


def _like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _fts5_phrase(term: str) -> str:
    # An FTS5 string: double quotes inside are doubled; everything else is literal.
    return '"' + term.replace('"', '""') + '"'


def search_condition(dialect: str, search: str, seq_range: tuple[int, int] | None = None) -> ColumnElement[bool] | None:
    """A WHERE condition on `executions` for `search`, or None when it has no terms.

    `seq_range` (lo, hi] limits the SQLite index lookup to a slice of rows (see windowed.py)."""
    terms = split_terms(search)
    if not terms:
        return None
    if dialect == "sqlite":
        return _sqlite_condition(terms, seq_range)
    return and_(*(executions.c.command.ilike(_like_pattern(t), escape="\\") for t in terms))


def uses_full_text_index(search: str) -> bool:
    return any(len(term) >= TRIGRAM_MIN for term in split_terms(search))


def _sqlite_condition(terms: list[str], seq_range: tuple[int, int] | None) -> ColumnElement[bool]:
    long_terms = [t for t in terms if len(t) >= TRIGRAM_MIN]
    short_terms = [t for t in terms if len(t) < TRIGRAM_MIN]
    conditions: list[ColumnElement[bool]] = []
    if long_terms:
        match = " AND ".join(_fts5_phrase(t) for t in long_terms)
        matching: Select[Any] = (
            select(literal_column("rowid"))
            .select_from(text(FTS_TABLE))
            .where(text(f"{FTS_TABLE} MATCH :fts_query").bindparams(fts_query=match))
        )
        if seq_range is not None:  # FTS5 seeks straight to a rowid range
            matching = matching.where(
                text("rowid > :fts_lo AND rowid <= :fts_hi").bindparams(fts_lo=seq_range[0], fts_hi=seq_range[1])
            )
        conditions.append(executions.c.seq.in_(matching))
    # SQLite's LIKE is case-insensitive for ASCII, like the trigram tokenizer.
    conditions += [executions.c.command.like(_like_pattern(t), escape="\\") for t in short_terms]
    return and_(*conditions)


def create_pg_trigram_index(bind) -> None:
    """The pg_trgm GIN index on executions.command. Without the extension ILIKE still gives the
    right rows, only slower, so a server without pg_trgm (or the right to create it) still works."""
    try:
        with bind.begin_nested():
            bind.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception:
        pass
    schema = bind.exec_driver_sql(
        "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm'"
    ).scalar()
    if schema is None:
        return
    bind.exec_driver_sql(
        f"CREATE INDEX ix_executions_command_trgm ON executions USING gin (command {schema}.gin_trgm_ops)"
    )
