"""The ContextStore. Import `parsec.store.protocols` for the protocol; `open_store` for an instance.

Nothing heavy is imported here: the hook path imports `parsec` packages and must stay fast.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook path imports this)

if TYPE_CHECKING:
    from ..config import Settings
    from .sql_store import SqlStore


def default_url() -> str:
    from ..paths import default_db_path

    return f"sqlite:///{default_db_path()}"


def open_store(
    url: str,
    *,
    busy_timeout_ms: int = 5000,
    connect_timeout_s: float = 5.0,
    migrate: bool = True,
    durable: bool = False,
) -> SqlStore:
    """Open (creating and migrating when needed) the store at a SQLAlchemy URL.

    An empty `url` means the default SQLite file at $XDG_DATA_HOME/parsec/parsec.db. `durable`:
    every commit is on the disk when it returns (SQLite synchronous=FULL), for a writer that
    deletes its own copy of the records right after (the daemon's store writer).
    Raises StoreError / StoreUnavailable / SchemaTooNew with a one-line message.
    """
    from .open import open_sql_store

    return open_sql_store(
        url or default_url(),
        busy_timeout_ms=busy_timeout_ms,
        connect_timeout_s=connect_timeout_s,
        migrate=migrate,
        durable=durable,
    )


def open_store_from(settings: Settings) -> SqlStore:
    """open_store with the store `settings` name: its URL and timeouts ([store]). The one place
    the configuration becomes an open store: the CLI, `parsec ask`, the daemon's classifier and
    `parsec doctor` all come through here (the caller closes it)."""
    return open_store(
        settings.store_url(),
        busy_timeout_ms=settings.store.busy_timeout_ms,
        connect_timeout_s=settings.store.connect_timeout_s,
    )
