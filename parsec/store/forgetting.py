"""`parsec forget`'s half of the store: find every recorded text matching a pattern, in every
table that keeps what a user typed or saw, and delete it so that it is gone from the file too.

Mixed into SqlStore (which provides `db` and `delete_preferences`): each table's own part stays
beside the others, and sql_store.py keeps to recording and reading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update

from ..errors import UsageError
from .prune import delete_in_batches, give_space_back, scrub_sqlite
from .schema import achievements, conversations, executions, preferences, sessions

if TYPE_CHECKING:
    from .database import Database


class Forgetting:
    db: Database
    delete_preferences: Callable[..., int]

    def forget_executions(self, pattern: str, *, regex: bool = True, dry_run: bool = False) -> int:
        """Delete every execution whose command matches `pattern` (a Python regex searched
        anywhere in the command, or a literal substring with regex=False), full-text index
        included. On SQLite freed pages are zeroed and the WAL is truncated, so the text is gone
        from the file too. Returns how many rows matched."""
        matches = _text_matcher(pattern, regex)
        doomed = self._matching_seqs(matches)
        if dry_run or not doomed:
            return len(doomed)
        delete_in_batches(self.db, executions, executions.c.seq, doomed, batch_size=2000, secure=True)
        if self.db.dialect == "sqlite":
            scrub_sqlite(self.db)
        return len(doomed)

    def forget_conversations(self, pattern: str, *, regex: bool = True, dry_run: bool = False) -> int:
        """Delete every conversation (and saved achievement) with a text matching `pattern`
        anywhere: its prompt, name, step descriptions, commands, outputs or summaries. Strings
        are matched decoded, as the user typed them, not as escaped JSON. Returns how many
        conversations and achievements matched."""
        matches = _text_matcher(pattern, regex)

        def any_text(value: object) -> bool:
            if isinstance(value, str):
                return bool(matches(value))
            if isinstance(value, dict):
                return any(any_text(v) for v in value.values())
            if isinstance(value, list):
                return any(any_text(v) for v in value)
            return False

        with self.db.read() as connection:
            doomed = [
                cid
                for cid, data in connection.execute(select(conversations.c.id, conversations.c.data))
                if any_text(json.loads(data))
            ]
            remembered = [
                row.conversation_id
                for row in connection.execute(select(achievements))
                if any_text([row.name, row.working_directory, json.loads(row.achievements), json.loads(row.artifacts)])
            ]
        matched = len(set(doomed) | set(remembered))
        if dry_run or not matched:
            return matched
        delete_in_batches(self.db, conversations, conversations.c.id, doomed, batch_size=500, secure=True)
        delete_in_batches(
            self.db, achievements, achievements.c.conversation_id, remembered, batch_size=500, secure=True
        )
        if self.db.dialect == "sqlite":  # no full-text index here to merge (scrub_sqlite's other half)
            give_space_back(self.db, truncate_wal=True)
        return matched

    def _matching_seqs(self, matches) -> list[int]:
        found: list[int] = []
        last = None
        with self.db.read() as connection:
            while True:  # keyset pages: memory stays flat on a million rows
                statement = select(executions.c.seq, executions.c.command).order_by(executions.c.seq).limit(20_000)
                if last is not None:
                    statement = statement.where(executions.c.seq > last)
                page = connection.execute(statement).all()
                if not page:
                    return found
                found += [seq for seq, command in page if matches(command)]
                last = page[-1][0]

    def forget_preferences(self, pattern: str, *, regex: bool = True, dry_run: bool = False) -> int:
        """Delete every learned preference whose key or stored text matches `pattern` (the
        classifier keeps an example line per choice): `parsec forget` reaches them too."""
        matches = _text_matcher(pattern, regex)
        with self.db.read() as connection:
            found = connection.execute(select(preferences.c.namespace, preferences.c.key, preferences.c.value)).all()
        doomed = [
            (namespace, key)
            for namespace, key, value in found
            if matches(key) or any(matches(v) for v in _strings(json.loads(value)))
        ]
        if not dry_run:
            for namespace, key in doomed:
                self.delete_preferences(namespace, key)
        return len(doomed)

    def forget_environment_values(self, pattern: str, *, regex: bool = True, dry_run: bool = False) -> int:
        """Drop every entry of the sessions' environment snapshots whose name or value matches
        `pattern` (a value typed into an `export` lives on there). Returns how many matched."""
        matches = _text_matcher(pattern, regex)
        changed: list[tuple[str, dict[str, Any]]] = []
        matched = 0
        with self.db.read() as connection:
            for session_id, raw in connection.execute(select(sessions.c.id, sessions.c.data)):
                data = json.loads(raw or "{}")
                snapshot = (data.get("global_context") or {}).get("environment_snapshot") or {}
                doomed = [name for name, value in snapshot.items() if matches(name) or matches(str(value))]
                if doomed:
                    matched += len(doomed)
                    for name in doomed:
                        del snapshot[name]
                    changed.append((session_id, data))
        if dry_run or not changed:
            return matched
        with self.db.write() as connection:
            if self.db.dialect == "sqlite":
                connection.exec_driver_sql("PRAGMA secure_delete = ON")
            for session_id, data in changed:
                connection.execute(update(sessions).where(sessions.c.id == session_id).values(data=json.dumps(data)))
        if self.db.dialect == "sqlite":
            give_space_back(self.db, truncate_wal=True)  # the old row leaves the WAL too
        return matched


def _text_matcher(pattern: str, regex: bool):
    """`pattern` as a test on one text: a regex searched anywhere, or a literal substring."""
    if not regex:
        return lambda text: pattern in text
    try:
        return re.compile(pattern).search
    except re.error as err:
        raise UsageError(f"{pattern!r} is not a valid regular expression: {err}") from err


def _strings(value: object) -> list[str]:
    """Every string inside a decoded JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []
