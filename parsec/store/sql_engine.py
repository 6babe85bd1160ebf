"""Create the SQLAlchemy engine for a store URL, with clear errors for what users get wrong.

SQLite: WAL (readers never block the writer), a busy timeout, foreign keys on, synchronous=NORMAL
(durable across a crash or kill -9 of any process; a power cut or a failing disk may lose the last
commits), or FULL for a `durable` store (each commit on the disk when it returns: the daemon's
store writer deletes a journal segment right after the store committed it; docs/store.md),
auto_vacuum=INCREMENTAL (set before the first table, so pruning can give space back), and
`BEGIN IMMEDIATE` for writes so two writers queue on the busy timeout instead of failing with
"database is locked" when a read transaction tries to become a write transaction.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from ..errors import StoreError
from .sqlite_url import sqlite_file

SQLITE_HEADER = b"SQLite format 3\x00"
WRITE = {"parsec_write": True}  # execution option: this transaction writes (BEGIN IMMEDIATE)


def create_store_engine(url: str, *, busy_timeout_ms: int, connect_timeout_s: float, durable: bool = False) -> Engine:
    try:
        parsed = make_url(url)
    except ArgumentError as err:
        raise StoreError(f"store.url {url!r} is not a database URL: use e.g. sqlite:////path/parsec.db") from err
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        path = sqlite_file(url)
        if path is not None:
            _prepare_sqlite_file(path)
        return _sqlite_engine(url, busy_timeout_ms, "FULL" if durable else "NORMAL")
    if backend == "postgresql":
        if parsed.drivername == "postgresql":  # plain postgresql:// means psycopg 3
            parsed = parsed.set(drivername="postgresql+psycopg")
        # libpq's connect_timeout is whole seconds, at least 2.
        args = {"connect_timeout": max(2, int(round(connect_timeout_s)))}
        try:
            return create_engine(parsed, connect_args=args, pool_pre_ping=True, pool_size=5)
        except (SQLAlchemyError, ImportError) as err:
            raise StoreError(f"cannot use store.url {parsed.render_as_string(hide_password=True)}: {err}") from err
    try:
        return create_engine(parsed)
    except (SQLAlchemyError, ImportError) as err:
        raise StoreError(f"store.url uses {backend!r}, which is not usable here: {err}") from err


def _prepare_sqlite_file(path: Path) -> None:
    """Refuse a file that is not SQLite (touching nothing); create a new one private (0600)."""
    if path.exists():
        if path.is_dir():
            raise StoreError(f"store path {path} is a directory: point store.url at a file")
        try:
            with open(path, "rb") as handle:
                header = handle.read(len(SQLITE_HEADER))
        except OSError as err:
            raise StoreError(f"cannot read the store {path}: {err.strerror}; check its permissions") from err
        if header and header != SQLITE_HEADER:
            raise StoreError(f"{path} is not a SQLite database; move it away or set store.url to another file")
        _probe_readable(path)
        return
    parent = path.parent
    try:
        if not parent.exists():
            parent.mkdir(parents=True, mode=0o700)  # a directory we create is private
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(descriptor)
    except FileExistsError:
        pass  # another process created it first: fine
    except OSError as err:
        raise StoreError(
            f"cannot create the store at {path}: {err.strerror}; make {parent} writable or set store.url"
        ) from err


def _probe_readable(path: Path) -> None:
    """Open read-only and read the schema, so a corrupt file is reported and never written to."""
    try:
        probe = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error as err:
        raise StoreError(f"cannot open the store {path}: {err}") from err
    try:
        probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as err:
        message = str(err)
        if "locked" in message or "busy" in message:
            return  # a writer holds it right now; the real connection waits for it
        if "readonly" in message or "unable to open" in message:
            raise StoreError(
                f"cannot open the store {path} for writing: SQLite must create {path.name}-wal beside "
                f"it; check the permissions of {path.parent}"
            ) from err
        raise StoreError(
            f"the store {path} is damaged or not a database ({err}); move it away to start afresh"
        ) from err
    finally:
        probe.close()


def _sqlite_engine(url: str, busy_timeout_ms: int, synchronous: str) -> Engine:
    # A small pool keeps connections (and their pragmas) open between calls. After fork(), a
    # child must call `store.engine.dispose(close=False)` before using an inherited store.
    engine = create_engine(
        url,
        pool_size=4,
        connect_args={"timeout": busy_timeout_ms / 1000.0, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (see below)
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            if cursor.execute("PRAGMA page_count").fetchone()[0] == 0:
                # Only on a new, empty file: on an existing one the pragma writes the header,
                # and a store we refuse (e.g. too new) must stay byte-for-byte untouched.
                cursor.execute("PRAGMA auto_vacuum = INCREMENTAL")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute(f"PRAGMA synchronous = {synchronous}")  # bench/store.py --only-durability
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        writes = connection.get_execution_options().get("parsec_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")

    return engine
