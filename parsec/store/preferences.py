"""Learned preferences (the classifier's choices, the context engine's preferences), by namespace
and key; values pass the store's masking gate. Mixed into SqlStore, which provides `db`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from sqlalchemy import delete, select

from ..models.parsec_model import utcnow
from ..privacy.masking import mask_json, store_gate
from .schema import preferences

if TYPE_CHECKING:
    from .database import Database


class Preferences:
    """Set, read and delete learned preferences."""

    db: Database

    def set_preference(self, namespace: str, key: str, value: dict) -> None:
        row = {
            "namespace": namespace,
            "key": store_gate(key),
            "value": json.dumps(mask_json(value, store_gate)),
            "updated_at": utcnow(),
        }
        statement = self.db.insert(preferences).values(row)
        statement = statement.on_conflict_do_update(
            index_elements=["namespace", "key"],
            set_={"value": statement.excluded.value, "updated_at": statement.excluded.updated_at},
        )
        with self.db.write() as connection:
            connection.execute(statement)

    def get_preferences(self, namespace: str) -> dict[str, dict]:
        with self.db.read() as connection:
            found = connection.execute(
                select(preferences.c.key, preferences.c.value).where(preferences.c.namespace == namespace)
            ).all()
        return {key: json.loads(value) for key, value in found}

    def delete_preferences(self, namespace: str, key: str | None = None) -> int:
        statement = delete(preferences).where(preferences.c.namespace == namespace)
        if key is not None:
            statement = statement.where(preferences.c.key == key)
        with self.db.write() as connection:
            return connection.execute(statement).rowcount
