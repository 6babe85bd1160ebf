"""Can the store take a write right now? `parsec doctor` asks; a read-only open says nothing
about a full or read-only disk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import delete

from ..models.base import utcnow
from .schema import preferences

if TYPE_CHECKING:
    from .sql_store import SqlStore

PROBE = {"namespace": "parsec.health", "key": "write-probe"}


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
