"""Helpers shared by the history commands (history, sessions, stats, prune, forget, import, export):
finding the store cheaply, parsing times, printing rows.

`parsec history` and `parsec sessions` must stay under 150 ms, so the common case reads only
the `[store]` keys with tomllib (no pydantic) and queries SQLite with the standard library; every
other case loads the full config and opens the store.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ...errors import UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from ...config import Settings

    T = TypeVar("T")
    from ...store import SqlStore


# --- the store ---------------------------------------------------------------------------------


def config_section(name: str, env_keys_read_here: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The [name] table merged from the user's config file and the project's (once trusted, without
    the user-only keys: trust.project_config, as the full loader reads it), read with tomllib
    only, or None when anything is unusual (a user file that does not parse, a
    `PARSEC_<NAME>_<KEY>` variable for a key the caller does not read from the environment
    itself: only the full loader converts those), in which case the caller loads the config the
    full way."""
    from ... import paths
    from ...config_merge import merge_layer

    prefix = f"PARSEC_{name.upper()}_"
    own = {prefix + key.upper() for key in env_keys_read_here}
    if any(var.startswith(prefix) and var not in own for var in os.environ):
        return None
    merged: dict[str, Any] = {}
    explicit = os.environ.get("PARSEC_CONFIG")
    user_file = Path(explicit) if explicit else paths.user_config_file()
    if user_file.is_file():
        import tomllib  # here: most runs have no config file, and tomllib is slow to import

        try:
            with user_file.open("rb") as handle:
                section = tomllib.load(handle).get(name, {})
        except (OSError, tomllib.TOMLDecodeError):
            return None
        if not isinstance(section, dict):
            return None
        merge_layer(merged, section, str(user_file))  # the full loader's rule (config_merge.py)
    elif explicit:
        return None
    if paths.project_config_file().exists():  # the trust list is read only when there is one
        from ...trust import project_config

        project = project_config()
        section = project.data.get(name, {}) if project is not None else {}
        if not isinstance(section, dict):
            return None
        merge_layer(merged, section, "project")
    return merged


_STORE_ENV_KEYS = ("url", "busy_timeout_ms")  # plain strings: read here without the full loader


def _store_keys(overrides: dict[str, Any]) -> dict[str, Any] | None:
    """The [store] table from every config layer (config_section), environment and --set."""
    merged = config_section("store", env_keys_read_here=_STORE_ENV_KEYS)
    if merged is None:
        return None
    for key in _STORE_ENV_KEYS:
        value = os.environ.get(f"PARSEC_STORE_{key.upper()}")
        if value is not None:
            merged[key] = value
    for dotted, value in overrides.items():
        if dotted.startswith("store."):
            merged[dotted[len("store.") :]] = value
    return merged


def fast_sqlite_target(overrides: dict[str, Any]) -> tuple[Path, int] | None:
    """(database file, busy timeout ms) when the store is a SQLite file we can read directly."""
    from ... import paths
    from ...store.sqlite_url import sqlite_file

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
        from ...store.history import FastPathUnavailable, fast_connection

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


def configured_store(settings: Settings | None = None) -> SqlStore:
    """The store the full config (or `settings`, already loaded) names, through
    store.open_store_from (SQLAlchemy; the caller closes it)."""
    from ...store import open_store_from
    from ..app import load_settings

    return open_store_from(settings or load_settings().settings)


@contextmanager
def open_configured_store() -> Iterator[SqlStore]:
    store = configured_store()
    try:
        yield store
    finally:
        store.close()


# --- times -------------------------------------------------------------------------------------

_RELATIVE = re.compile(r"(\d+)\s*(s|sec|secs|m|min|mins|h|hr|hrs|hours?|d|days?|w|weeks?)", re.I)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


_WHEN_FORMS = "a duration like 2h, 3d, 1w, 'today', 'yesterday' or an ISO date (2024-05-01)"
EARLIEST_YEAR = 1900  # nothing was recorded before; an older date is a typo (0001-01-01)


def parse_when(value: str, option: str, now: datetime | None = None) -> datetime:
    """`2h`, `3d`, `1w` (ago), `today`, `yesterday`, or an ISO date/time (local time unless it
    says otherwise). Returned in UTC, from EARLIEST_YEAR to year 9999: anything else is a
    UsageError that says what is accepted."""
    now = now or datetime.now(UTC)
    try:
        when = _parse_when(value, now)
    except (OverflowError, ValueError, OSError):  # beyond what datetime (or the C library) holds
        when = None
    else:
        if when is None:
            raise UsageError(f"{option} {value!r}: use {_WHEN_FORMS}")
    if when is None or when.year < EARLIEST_YEAR:
        raise UsageError(
            f"{option} {value!r} is out of range: use a time from {EARLIEST_YEAR} to 9999, as {_WHEN_FORMS}"
        )
    return when


def _parse_when(value: str, now: datetime) -> datetime | None:
    """The time `value` means, None when it is none of the accepted forms; OverflowError or
    ValueError when it is one of them but out of range."""
    text = value.strip().lower()
    local_midnight = now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    if text in ("now",):
        return now
    if text == "today":
        return local_midnight.astimezone(UTC)
    if text == "yesterday":
        return (local_midnight - timedelta(days=1)).astimezone(UTC)
    match = _RELATIVE.fullmatch(text.removesuffix(" ago"))
    if match:
        unit = match.group(2)[0].lower()
        unit = "m" if match.group(2).lower().startswith("m") else unit
        return now - timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[unit])
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None  # not an ISO date (or not a real one: 2024-02-30)
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # local time, as the user reads their clock
    return parsed.astimezone(UTC)


def check_time_range(since: str | None, until: str | None) -> None:
    """--since and --until each parse, and --since comes before --until (which is exclusive)."""
    now = datetime.now(UTC)  # one clock for both, so `--since 1h --until 1h` is empty
    start = parse_when(since, "--since", now) if since else None
    end = parse_when(until, "--until", now) if until else None
    if start is not None and end is not None and start >= end:
        raise UsageError(
            f"--since {since!r} is not before --until {until!r}: nothing can match; give the earlier time to "
            f"--since (--until is exclusive)"
        )


# --- other option values -----------------------------------------------------------------------

MAX_LIMIT = 1_000_000_000  # more rows than any store holds; 0 already means "all"
EXIT_STATUS_MIN, EXIT_STATUS_MAX = -(2**31), 2**31 - 1  # executions.exit_status is a 32-bit INTEGER


def check_limit(value: int, option: str = "--limit", minimum: int = 0, maximum: int = MAX_LIMIT) -> int:
    if not minimum <= value <= maximum:
        accepted = f"a number from {minimum} to {maximum}" + (" (0: all)" if minimum == 0 else "")
        raise UsageError(f"{option} {value} is out of range: use {accepted}")
    return value


def check_exit_filter(value: str | None) -> None:
    """--exit is ok, fail or an exit status the store can hold (history_views reads it)."""
    if value is None:
        return
    try:
        status = int(value)
    except ValueError:
        return  # ok / fail / a word: history_views accepts it or explains what is accepted
    if not EXIT_STATUS_MIN <= status <= EXIT_STATUS_MAX:
        raise UsageError(
            f"--exit {value!r} is out of range: use ok, fail or an exit status from {EXIT_STATUS_MIN} to {EXIT_STATUS_MAX}"
        )


def check_history_options(*, limit: int, exit_filter: str | None, since: str | None, until: str | None) -> None:
    """The checks `parsec history` makes before it queries, the same on the fast and typer paths."""
    check_limit(limit)
    check_exit_filter(exit_filter)
    check_time_range(since, until)


_VALUE_OPTIONS = frozenset(
    ("--session", "--cwd", "--exit", "--since", "--until", "--host", "--format", "--search", "-s", "--limit", "-n")
)


def optional_cwd(args: list[str]) -> list[str]:
    """`parsec history --cwd [PATH]`: a --cwd with no value (last, or followed by another option)
    means the current directory. Returns the arguments with that "." filled in."""
    out: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        out.append(arg)
        index += 1
        if arg == "--":
            out.extend(args[index:])
            break
        if arg in _VALUE_OPTIONS:
            following = args[index] if index < len(args) else None
            if arg == "--cwd" and (following is None or (following.startswith("-") and following != "-")):
                out.append(".")
            elif following is not None:
                out.append(following)  # a value, even one that starts with "-" (--search -v)
                index += 1
    return out


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
    return (
        text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t") if ("\n" in text or "\t" in text) else text
    )


def to_json(value: object) -> str:
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


# --- fitting text into a column --------------------------------------------------------------------


def cut(text: str, width: int) -> str:
    """`text` in at most `width` characters, an ellipsis marking what was cut."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def short_path(path: str, width: int, home: str | None = None) -> str:
    """A directory in at most `width` characters: the home directory as `~`, then the middle
    elided (`~/src/…/api/handlers`), keeping the end, which says the most."""
    home = os.path.expanduser("~") if home is None else home
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + "/")):
        path = "~" + path[len(home.rstrip("/")) :]
    if len(path) <= width or width <= 0:
        return path if width > 0 else ""
    keep_tail = max(1, (width - 1) * 2 // 3)
    keep_head = max(0, width - 1 - keep_tail)
    return path[:keep_head] + "…" + path[len(path) - keep_tail :]
