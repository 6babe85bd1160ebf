"""Is the store sound, and can it take a write right now? `parsec doctor` asks; an open says
nothing about damaged pages, nor about a full or read-only disk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import delete, text

from ..errors import StoreError
from ..models.parsec_model import utcnow
from .schema import preferences

if TYPE_CHECKING:
    from .sql_store import SqlStore

PROBE = {"namespace": "parsec.health", "key": "write-probe"}


def damage(store: SqlStore, limit: int = 3) -> str | None:
    """What SQLite's `quick_check` finds wrong with the file's pages (flipped bytes, a torn
    write), first `limit` findings; None when sound, or for PostgreSQL (which checks its own).
    Reads every page once: seconds for a store of a million commands."""
    if store.engine.dialect.name != "sqlite":
        return None
    try:
        with store.db.read() as connection:
            found = [row[0] for row in connection.execute(text(f"PRAGMA quick_check({int(limit)})"))]
    except StoreError as err:  # damage bad enough that the check itself stops: "malformed"
        if "malformed" not in str(err) and "not a database" not in str(err):
            raise
        return str(err.__cause__ or err).splitlines()[0]
    return None if found == ["ok"] else "; ".join(" ".join(str(item).split()) for item in found)  # one line


def probe_write(store: SqlStore) -> None:
    """Commit a one-row write and take it back; raises StoreNotWritable ("store not writable:
    disk full (path; …)") or another StoreError when the store cannot take it."""
    row = {**PROBE, "value": "{}", "updated_at": utcnow()}
    with store.db.write() as connection:
        connection.execute(store.db.insert(preferences).values(row).on_conflict_do_nothing())
    with store.db.write() as connection:
        connection.execute(
            delete(preferences).where(
                (preferences.c.namespace == PROBE["namespace"]) & (preferences.c.key == PROBE["key"])
            )
        )
