"""Shared fixtures: a SQLite store file and an isolated PostgreSQL schema.

PostgreSQL: 127.0.0.1:5432, user postgres, database test (override with PARSEC_TEST_PG).
Each test gets its own schema, dropped afterwards. When the server is unreachable the PG tests
skip, except in CI (CI=true) where they fail: CI must prove both backends.
"""

from __future__ import annotations

import os
import uuid

import pytest
from other_user import existed as _attacker_existed
from other_user import remove_if_created as _remove_attacker

PG_BASE = os.environ.get("PARSEC_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")

# pytest-xdist's workers start with COLUMNS=80 and LINES=24 in their environment, which the
# programs under test would take for the terminal's size (shutil.get_terminal_size reads them
# first). A test that wants a size sets it itself.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


@pytest.fixture
def env(tmp_path) -> dict:
    """An environment for running `parsec` as a user would, in a home and XDG tree of its own
    (no PARSEC_* setting of the caller's)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    clean.update(
        XDG_CONFIG_HOME=str(tmp_path / "c"),
        XDG_DATA_HOME=str(tmp_path / "d"),
        XDG_STATE_HOME=str(tmp_path / "s"),
        XDG_RUNTIME_DIR=str(tmp_path / "r"),
        HOME=str(tmp_path),
    )
    return clean


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'store' / 'parsec.db'}"


def _pg_admin():
    import psycopg

    try:
        return psycopg.connect(PG_BASE, connect_timeout=3, autocommit=True)
    except psycopg.OperationalError as err:
        message = f"PostgreSQL at {PG_BASE} is unreachable: {str(err).strip().splitlines()[0]}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def pg_url():
    admin = _pg_admin()
    schema = f"parsec_test_{uuid.uuid4().hex[:12]}"
    try:
        # pg_trgm lives in public, shared by every test schema (dropping a schema keeps it).
        admin.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
    except Exception:
        pass
    admin.execute(f'CREATE SCHEMA "{schema}"')
    url = PG_BASE.replace("postgresql://", "postgresql+psycopg://", 1)
    joiner = "&" if "?" in url else "?"
    try:
        yield f"{url}{joiner}options=-csearch_path%3D{schema},public"
    finally:
        admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        admin.close()


# The second Unix user (tests/other_user.py) is shared by the test processes: the controller
# (not an xdist worker) notes whether it existed and removes it at the end if this run made it.
def pytest_sessionstart(session) -> None:
    if not hasattr(session.config, "workerinput"):
        session.config.stash[_ATTACKER_EXISTED] = _attacker_existed()


def pytest_sessionfinish(session, exitstatus) -> None:
    if not hasattr(session.config, "workerinput") and _ATTACKER_EXISTED in session.config.stash:
        _remove_attacker(session.config.stash[_ATTACKER_EXISTED])


_ATTACKER_EXISTED = pytest.StashKey[bool]()
