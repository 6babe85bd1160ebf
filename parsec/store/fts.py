"""Full-text search on command text: the same meaning on both backends.

A search is split on whitespace; a row matches when its command contains every term as a
case-insensitive substring. `git push --force` therefore finds `git push --force-with-lease` and
`git push origin main --force`, and punctuation such as `--` or `|` is searchable. The queries are
execution_sql's (shared with the sqlite3 fast paths); this module holds the indexes.

- SQLite: an FTS5 index with the `trigram` tokenizer (external content = `executions`, kept in
  sync by triggers). Trigrams answer substring questions exactly, which word tokenizers do not
  (`unicode61` drops `--`). Terms shorter than three characters cannot use trigrams; they are
  checked with LIKE on the rows the longer terms selected (or on all rows if none is longer).
- PostgreSQL: a `pg_trgm` GIN index on `command`, queried with ILIKE. A `tsvector` would stem
  and split words (`--force` becomes `force`, `pushed` matches `push`), which is wrong for
  commands; pg_trgm's GIN index serves `ILIKE '%term%'` directly.
"""

from __future__ import annotations

from .execution_sql import FTS_TABLE

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
