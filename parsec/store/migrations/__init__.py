"""Alembic migrations of the store, run programmatically by parsec.store.migrate (no alembic.ini)."""
