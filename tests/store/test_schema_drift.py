"""schema.py (what the code reads and writes) and the migrations (what a database holds) describe
the same tables: alembic's compare_metadata finds no difference on a new store, on SQLite and
PostgreSQL, nor on a store upgraded from revision 0001. The migrations are frozen: they import
no live code, so editing the package never rewrites what an old revision did."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Column, Integer, MetaData, create_engine

from parsec.store import open_store
from parsec.store.migrate import MIGRATIONS_DIR
from parsec.store.schema import metadata

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "schema_0001.db"

# Created by raw DDL in revision 0001, which SQLAlchemy Core does not describe: SQLite's FTS5
# table (and the shadow tables FTS5 makes for it), PostgreSQL's pg_trgm GIN index.
RAW_DDL_TABLES = {"executions_fts"}
RAW_DDL_INDEXES = {"ix_executions_command_trgm"}


def _described_by_schema(obj, name, type_, reflected, compare_to) -> bool:
    if type_ == "table" and reflected and any(name == t or name.startswith(t + "_") for t in RAW_DDL_TABLES):
        return False
    return not (type_ == "index" and reflected and name in RAW_DDL_INDEXES)


def differences(url: str, target: MetaData = metadata) -> list:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection,
                opts={"compare_type": True, "compare_server_default": True, "include_object": _described_by_schema},
            )
            return compare_metadata(context, target)
    finally:
        engine.dispose()


def test_a_new_store_has_exactly_the_schema_the_code_describes(store_url):
    open_store(store_url).close()
    assert differences(store_url) == []


def test_a_store_upgraded_from_the_first_revision_has_it_too(tmp_path):
    copy = tmp_path / "old.db"
    shutil.copy(FIXTURE, copy)
    open_store(f"sqlite:///{copy}").close()
    assert differences(f"sqlite:///{copy}") == []


def test_a_column_only_in_schema_py_is_reported(sqlite_url):
    # The comparison can fail: a column added to schema.py without a migration is drift.
    open_store(sqlite_url).close()
    drifted = MetaData()
    for table in metadata.tables.values():
        table.to_metadata(drifted)
    drifted.tables["executions"].append_column(Column("planted", Integer))
    assert [(kind, column.name) for kind, _, table, column in differences(sqlite_url, drifted)] == [
        ("add_column", "planted")
    ]


# A revision may use alembic and SQLAlchemy only; env.py also reads schema.py's metadata (which
# autogenerate compares against, as the test above does).
ALLOWED_IMPORTS = {"__future__", "alembic", "sqlalchemy"}
ENV_ALSO = {"parsec.store.schema"}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize(
    "path", [MIGRATIONS_DIR / "env.py", *sorted((MIGRATIONS_DIR / "versions").glob("*.py"))], ids=lambda p: p.name
)
def test_migrations_import_no_live_code(path):
    allowed = ALLOWED_IMPORTS | (ENV_ALSO if path.name == "env.py" else set())
    outside = {name for name in _imports(path) if name not in allowed and name.split(".")[0] not in allowed}
    assert outside == set()
