"""open_store's body: engine, reachability check, schema check or migration."""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from ..errors import StoreError, StoreUnavailable
from .database import first_line
from .migrate import ensure_schema
from .sql_engine import create_store_engine
from .sql_store import SqlStore


def open_sql_store(
    url: str, *, busy_timeout_ms: int, connect_timeout_s: float, migrate: bool, durable: bool = False
) -> SqlStore:
    engine = create_store_engine(
        url, busy_timeout_ms=busy_timeout_ms, connect_timeout_s=connect_timeout_s, durable=durable
    )
    store = SqlStore(engine, url)
    try:
        with store.db.errors():
            ensure_schema(engine, migrate=migrate)
    except (StoreError, StoreUnavailable):
        engine.dispose()
        raise
    except SQLAlchemyError as err:  # anything _errors did not map
        engine.dispose()
        raise StoreError(f"cannot open the store: {first_line(err)}") from err
    return store
