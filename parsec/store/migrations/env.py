"""Alembic environment: the connection comes from parsec.store.migrate, never from a URL here.

All pending revisions run in one transaction: SQLite and PostgreSQL both have transactional
DDL, so a failed upgrade leaves the old schema intact. Two processes opening a new store at
once are serialised (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory lock), and the second
finds the work done.
"""

from __future__ import annotations

from alembic import context

from parsec.store.schema import metadata

MIGRATION_LOCK = 0x7061727365630001  # "parsec" + 1: any fixed 64-bit number

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
    context.run_migrations()
