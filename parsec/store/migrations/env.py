"""Alembic environment: the connection comes from parsec.store.migrate, never from a URL here.

All pending revisions run in one transaction: SQLite and PostgreSQL both have transactional
DDL, so a failed upgrade leaves the old schema intact. Alembic assumes SQLite has none and would
commit after each revision, so `transactional_ddl=True` says otherwise (our engine issues BEGIN
itself). Two processes opening a new store at once are serialised (SQLite: BEGIN IMMEDIATE;
PostgreSQL: an advisory lock), and the second finds the work done. Committing per revision let
the second read revision 0001 between two commits of the first, and then both ran 0002.
"""

from __future__ import annotations

from alembic import context

from parsec.store.schema import metadata

MIGRATION_LOCK = 0x7061727365630001  # "parsec" + 1: any fixed 64-bit number

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True, transactional_ddl=True)
with context.begin_transaction():
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
    context.run_migrations()
