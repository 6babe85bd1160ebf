"""Bring a database to the schema this Parsec expects, or refuse it untouched.

The common case (already at HEAD) costs one SELECT and never imports alembic, which keeps
`parsec history` fast. Otherwise alembic runs from the packaged migrations directory; no
alembic.ini is needed on the user's machine.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, text

from ..errors import SchemaTooNew, StoreError
from .sql_engine import WRITE

HEAD_REVISION = "0003"  # the newest revision in migrations/versions; a test keeps them in step
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
PARSEC_TABLES = {"sessions", "executions", "conversations"}


def current_revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def known_revisions() -> set[str]:
    return {path.name.split("_", 1)[0] for path in (MIGRATIONS_DIR / "versions").glob("[0-9]*_*.py")}


def ensure_schema(engine: Engine, *, migrate: bool = True) -> str | None:
    """Upgrade to HEAD (when `migrate`) and return the revision the database is at."""
    with engine.connect() as connection:
        revision = current_revision(connection)
        if revision == HEAD_REVISION:
            return revision
        if revision is not None and revision not in known_revisions():
            raise SchemaTooNew(
                f"the store was written by a newer Parsec (schema {revision}); upgrade Parsec, it was left untouched"
            )
        if revision is None and PARSEC_TABLES & set(inspect(connection).get_table_names()):
            raise StoreError("the store has Parsec tables but no schema version; point store.url elsewhere")
        connection.rollback()
    if not migrate:
        return revision
    upgrade(engine, HEAD_REVISION)
    return HEAD_REVISION


def upgrade(engine: Engine, target: str = "head") -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.connect() as connection:
        connection.execution_options(**WRITE)
        config.attributes["connection"] = connection
        command.upgrade(config, target)
        connection.commit()
