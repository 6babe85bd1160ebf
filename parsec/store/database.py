"""One store's database: its engine, its transactions and the meaning of its errors.

Every part of the store (sql_store.py, forgetting.py, prune.py, health.py) reads and writes
through a Database, so none reaches into another's private names: `read()` is a connection,
`write()` a transaction (BEGIN IMMEDIATE on SQLite, see sql_engine.py), `errors()` turns driver
errors into Parsec's (busy, damaged, disk full, unreachable), and `upsert` and `insert` hide the
two backends' dialects.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, Insert, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError

from ..errors import StoreError, StoreUnavailable
from .faults import not_writable
from .sql_engine import WRITE


class Database:
    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self.url = url
        self.dialect = engine.dialect.name
        self.insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self.errors(), self.engine.connect() as connection:
            yield connection

    @contextmanager
    def write(self) -> Iterator[Connection]:
        with self.errors(), self.engine.connect() as connection:
            connection.execution_options(**WRITE)
            with connection.begin():
                yield connection

    @contextmanager
    def errors(self) -> Iterator[None]:
        try:
            yield
        except OperationalError as err:
            raise self._translate(err) from err
        except DBAPIError as err:
            if err.connection_invalidated:
                raise StoreUnavailable(f"lost the connection to the store: {first_line(err)}") from err
            fault = not_writable(first_line(err), self.url)
            if fault is not None:
                raise fault from err
            raise StoreError(f"the store refused the operation: {first_line(err)}") from err
        except SQLAlchemyError as err:
            raise StoreError(f"store error: {first_line(err)}") from err

    def upsert(self, table: Table, row: dict[str, Any], key: str) -> Insert:
        """INSERT `row`, or on a clash of `key` overwrite every other column (both backends)."""
        statement = self.insert(table).values(row)
        return statement.on_conflict_do_update(
            index_elements=[key], set_={k: statement.excluded[k] for k in row if k != key}
        )

    def _translate(self, err: OperationalError) -> StoreError:
        message = first_line(err)
        if "locked" in message or "busy" in message:
            return StoreUnavailable(f"the store is busy ({message}); retry, or raise store.busy_timeout_ms")
        if "malformed" in message or "not a database" in message:
            return StoreError(f"the store is damaged ({message}); move the file away to start afresh")
        fault = not_writable(message, self.url)
        if fault is not None:
            return fault
        if "unable to open" in message:
            return StoreError(f"cannot write the store ({message}); check the permissions of its directory")
        if self.dialect == "sqlite":
            return StoreError(f"store error: {message}")
        if "timeout expired" in message:  # libpq: the server accepts no connection in time (hung)
            return StoreUnavailable(f"store not answering ({message}); check that the server runs and is not stopped")
        return StoreUnavailable(f"cannot reach the store: {message}; check store.url and that the server runs")


def first_line(err: Exception) -> str:
    original = getattr(err, "orig", None) or err
    text = str(original).strip().splitlines()
    return text[0] if text else type(original).__name__
