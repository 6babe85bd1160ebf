"""Helpers shared by the history commands (history, sessions, stats, prune, forget, import, export):
finding the store cheaply, parsing times, printing rows.

`parsec history` and `parsec sessions` must stay under 150 ms, so the common case reads only
the `[store]` keys with tomllib (no pydantic) and queries SQLite with the standard library; every
other case loads the full config and opens the store.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

from ..errors import UsageError

T = TypeVar("T")


# --- the store ---------------------------------------------------------------------------------

def _store_keys(overrides: dict[str, Any]) -> dict[str, Any] | None:
    """The [store] table merged from every config layer, or None when anything is unusual (a file
    that does not parse...), in which case the caller loads the config the full way."""
    from .. import paths

    merged: dict[str, Any] = {}
    explicit = os.environ.get("PARSEC_CONFIG")
    user_file = Path(explicit) if explicit else paths.user_config_file()
    for path in (user_file, paths.project_config_file()):
        if not path.is_file():
            if explicit and path == user_file:
                return None
            continue
        try:
            with path.open("rb") as handle:
                section = tomllib.load(handle).get("store", {})
        except (OSError, tomllib.TOMLDecodeError):
            return None
        if not isinstance(section, dict):
            return None
        merged.update(section)
    for key in ("url", "busy_timeout_ms"):
        value = os.environ.get(f"PARSEC_STORE_{key.upper()}")
        if value is not None:
            merged[key] = value
    for dotted, value in overrides.items():
        if dotted.startswith("store."):
            merged[dotted[len("store."):]] = value
    return merged


def fast_sqlite_target(overrides: dict[str, Any]) -> tuple[Path, int] | None:
    """(database file, busy timeout ms) when the store is a SQLite file we can read directly."""
    from .. import paths
    from ..store.history import sqlite_file

    keys = _store_keys(overrides)
    if keys is None:
        return None
    url = str(keys.get("url") or "") or f"sqlite:///{paths.default_db_path()}"
    path = sqlite_file(url)
    try:
        timeout = int(keys.get("busy_timeout_ms", 5000))
    except (TypeError, ValueError):
        return None
    return (path, timeout) if path is not None else None


def read_fast_or_store(fast: Callable[[Any], T], slow: Callable[[Any], T], overrides: dict[str, Any]) -> T:
    """Run `fast(sqlite3_connection)` on the SQLite fast path, else `slow(store)`. `overrides` are
    the `--set` flags (only store.* keys matter here)."""
    target = fast_sqlite_target(overrides)
    if target is not None:
        from ..store.history import FastPathUnavailable, fast_connection

        try:
            with fast_connection(*target) as connection:
                return fast(connection)
        except FastPathUnavailable:
            pass
        except Exception as err:  # sqlite3 errors: let the store give its one-line explanation
            import sqlite3

            if not isinstance(err, sqlite3.Error):
                raise
    with open_configured_store() as store:
        return slow(store)


@contextmanager
def open_configured_store() -> Iterator[Any]:
    from ..store import open_store
    from .app import load_settings

    settings = load_settings().settings
    store = open_store(
        settings.store_url(), busy_timeout_ms=settings.store.busy_timeout_ms,
        connect_timeout_s=settings.store.connect_timeout_s,
    )
    try:
        yield store
    finally:
        store.close()


# --- times -------------------------------------------------------------------------------------

_RELATIVE = re.compile(r"(\d+)\s*(s|sec|secs|m|min|mins|h|hr|hrs|hours?|d|days?|w|weeks?)", re.I)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def parse_when(value: str, option: str, now: datetime | None = None) -> datetime:
    """`2h`, `3d`, `1w` (ago), `today`, `yesterday`, or an ISO date/time (local time unless it
    says otherwise). Returned in UTC."""
    now = now or datetime.now(timezone.utc)
    text = value.strip().lower()
    local_midnight = now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    if text in ("now",):
        return now
    if text == "today":
        return local_midnight.astimezone(timezone.utc)
    if text == "yesterday":
        return (local_midnight - timedelta(days=1)).astimezone(timezone.utc)
    match = _RELATIVE.fullmatch(text.removesuffix(" ago"))
    if match:
        unit = match.group(2)[0].lower()
        unit = "m" if match.group(2).lower().startswith("m") else unit
        return now - timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[unit])
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise UsageError(
            f"{option} {value!r}: use a duration like 2h, 3d, 1w, 'today', 'yesterday' or an ISO date (2024-05-01)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # local time, as the user reads their clock
    return parsed.astimezone(timezone.utc)


def local_time(value: datetime) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def human_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 1:
        return f"{int(seconds * 1000)}ms"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, sec = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{sec:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def one_line(text: str) -> str:
    """Commands may hold newlines and tabs; a table row must not."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t") if ("\n" in text or "\t" in text) else text


def to_json(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def confirm(question: str) -> bool:
    """Ask y/N on the terminal; refuses (False) when there is no terminal to ask on."""
    import sys

    if not sys.stdin.isatty():
        raise UsageError(f"{question} -- no terminal to ask on: pass --yes to confirm")
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in ("y", "yes")
