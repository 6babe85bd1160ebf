"""Schema migrations: new stores reach HEAD, old ones upgrade in place, newer ones are refused."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from sqlalchemy import text

from parsec.errors import SchemaTooNew
from parsec.models.session import DirectCommandExecution
from parsec.store import open_store
from parsec.store.migrate import HEAD_REVISION, MIGRATIONS_DIR, current_revision
from parsec.store.protocols import ExecutionQuery

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "schema_0001.db"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_head_constant_matches_the_migration_scripts():
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    assert ScriptDirectory.from_config(config).get_heads() == [HEAD_REVISION]


def test_a_new_store_is_at_head(store):
    with store.engine.connect() as connection:
        assert current_revision(connection) == HEAD_REVISION


def test_reopening_is_harmless(store_url):
    first = open_store(store_url)
    first.set_preference("ns", "k", {"v": 1})
    first.close()
    second = open_store(store_url)
    assert second.get_preferences("ns") == {"k": {"v": 1}}
    second.close()


def test_first_schema_upgrades_in_place_keeping_every_row(tmp_path):
    copy = tmp_path / "old.db"
    shutil.copy(FIXTURE, copy)
    store = open_store(f"sqlite:///{copy}")
    with store.engine.connect() as connection:
        assert current_revision(connection) == HEAD_REVISION
    session = store.load_session("01JD0000000000000000000001")
    assert session.shell == "bash" and session.global_context.working_directory == "/srv/app"
    assert [e.command for e in session.command_history] == ["make test-0", "make test-1", "make test-2"]
    # The old full-text index still works, and the tables revision 0002 added are usable.
    assert store.count_executions(ExecutionQuery(search="test-1")) == 1
    store.set_preference("classifier", "make", {"choice": "command"})
    store.record_llm_usage("ollama", "llama3", "plan", 1, 1)
    store.append_executions([DirectCommandExecution(session_id=session.id, command="make deploy")])
    assert store.count_executions(ExecutionQuery(search="make")) == 4
    store.close()


def _pretend_newer(store_url: str) -> None:
    store = open_store(store_url)
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    store.close()


def test_a_newer_schema_is_refused(store_url):
    _pretend_newer(store_url)
    with pytest.raises(SchemaTooNew, match="newer Parsec"):
        open_store(store_url)


def test_a_newer_sqlite_file_is_left_untouched(sqlite_url):
    from parsec.store.sqlite_url import sqlite_file

    _pretend_newer(sqlite_url)
    path = sqlite_file(sqlite_url)
    before = digest(path)
    with pytest.raises(SchemaTooNew):
        open_store(sqlite_url)
    assert digest(path) == before
    assert not path.with_name(path.name + "-wal").exists() or path.with_name(path.name + "-wal").stat().st_size == 0


def test_migrate_false_reports_without_upgrading(tmp_path):
    copy = tmp_path / "old.db"
    shutil.copy(FIXTURE, copy)
    store = open_store(f"sqlite:///{copy}", migrate=False)
    with store.engine.connect() as connection:
        assert current_revision(connection) == "0001"
    store.close()


def test_migrations_ship_as_package_data():
    # pyproject's package-data must carry env.py and every revision to a non-editable install.
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["parsec"]
    assert "store/migrations/*.py" in patterns and "store/migrations/versions/*.py" in patterns


def test_an_upgrade_that_fails_partway_leaves_no_half_schema(store_url, monkeypatch):
    # All revisions run in one transaction. Alembic commits after each revision on SQLite unless
    # told otherwise; then a second process opening the new store could read revision 0001
    # between two commits and run 0002 again ("table preferences already exists", seen in CI).
    from alembic.operations import Operations
    from sqlalchemy import inspect

    create_table = Operations.create_table

    def fail_on_a_later_revision(self, name, *columns, **kwargs):
        if name == "preferences":  # revision 0002, after 0001 made the first tables
            raise RuntimeError("disk full while creating preferences")
        return create_table(self, name, *columns, **kwargs)

    monkeypatch.setattr(Operations, "create_table", fail_on_a_later_revision)
    with pytest.raises(RuntimeError, match="disk full"):
        open_store(store_url)
    monkeypatch.setattr(Operations, "create_table", create_table)
    untouched = open_store(store_url, migrate=False)
    with untouched.engine.connect() as connection:
        assert current_revision(connection) is None
        assert not {"sessions", "executions"} & set(inspect(connection).get_table_names())
    untouched.close()
    store = open_store(store_url)  # and the next open builds the whole schema
    with store.engine.connect() as connection:
        assert current_revision(connection) == HEAD_REVISION
    store.close()
