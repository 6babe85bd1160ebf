"""What `parsec history`, `parsec sessions` and `parsec sessions show` do and print, without
typer (their arguments: arguments.py; their entry: history_entry.py)."""

from __future__ import annotations

import os
import re
import sys

from ..arguments import HISTORY_FIELDS as FIELDS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    import sqlite3
    from typing import Any


def _echo(text: str) -> None:
    sys.stdout.write(text + "\n")


def _echo_json(value: object) -> None:
    import json  # here: most runs print a table or a --format line (start-up time)

    from .history_common import to_json

    _echo(json.dumps(value, indent=1, ensure_ascii=False, default=to_json))


def run_history(
    *,
    session: str | None = None,
    cwd: str | None = None,
    here: bool = False,
    subtree: bool = False,
    exit_filter: str | None = None,
    since: str | None = None,
    until: str | None = None,
    host: str | None = None,
    source: str | None = None,
    search: str | None = None,
    limit: int = 50,
    as_json: bool = False,
    fmt: str | None = None,
    overrides: dict[str, Any] | None = None,
    output: bool = False,
) -> None:
    """The body of `parsec history`, shared by the typer command and the fast entry path."""
    from ...store.history import HistoryQuery, history_sqlite, history_via_store
    from .history_common import parse_when, read_fast_or_store

    if here and cwd is None:
        cwd = "."
    if subtree and cwd is None:
        from ...errors import UsageError

        raise UsageError("--subtree needs --cwd (e.g. --cwd . --subtree)")
    query = HistoryQuery(
        session_id=_session_id(session) if session else None,
        cwd=os.path.abspath(cwd) if cwd is not None else None,
        cwd_subtree=subtree,
        exit_status=_exit_status(exit_filter),
        failed=_failed(exit_filter),
        host=host,
        source=source,
        since=parse_when(since, "--since") if since else None,
        until=parse_when(until, "--until") if until else None,
        search=search,
        limit=limit,
    )
    from ...store.history import outputs_sqlite

    def fast(connection: sqlite3.Connection) -> list[dict[str, Any]]:
        rows = history_sqlite(connection, query)
        if output or as_json:
            captured = outputs_sqlite(connection, [row["id"] for row in rows])
            for row in rows:
                row["stdout"], row["stderr"] = captured.get(row["id"], (None, None))
        return rows

    from .spool_count import take_in_spool

    spool = take_in_spool()  # before the read: a running daemon takes the spool in first
    rows = read_fast_or_store(fast, lambda s: history_via_store(s, query, output or as_json), overrides or {})
    if output or as_json:
        for row in rows:
            describe_output(row)
    print_executions(rows, as_json=as_json, fmt=fmt, output=output)
    for note in spool.notes():  # commands not in the store: where they are
        sys.stderr.write(f"parsec: {note}\n")


def describe_output(row: dict[str, Any]) -> None:
    """`output`: the captured text; `output_streams`: what it holds. Under `parsec shell` the pty
    sees stdout and stderr as one stream, recorded in `stdout` with `stderr` null ("merged")."""
    from .search.frame import truncated_text

    stdout, stderr = row.get("stdout"), row.get("stderr")
    texts = [truncated_text(part) for part in (stdout, stderr) if part]
    row["output"] = "\n".join(t for t in texts if t) or None
    row["output_streams"] = (
        None if not (stdout or stderr) else "separate" if (stdout and stderr) else ("merged" if stdout else "stderr")
    )


def _failed(value: str | None) -> bool | None:
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in ("ok", "success", "0"):
        return False
    if lowered in ("fail", "failed", "error"):
        return True
    return None


def _exit_status(value: str | None) -> int | None:
    if value is None or _failed(value) is not None:
        return None
    try:
        return int(value)
    except ValueError:
        from ...errors import UsageError

        raise UsageError(f"--exit {value!r}: use ok, fail or a number") from None


_ULID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")


def _session_id(value: str) -> str:
    if value != "current":
        return value.upper()
    return current_session_id()


def current_session_id() -> str:
    """The session of the shell that runs this command: computed from the key the hook exported
    (PARSEC_SESSION, `<pid>-<start time>`: the daemon derives the id from it, models/session_ids),
    so it works before the daemon has heard of the shell (its first command) and after a daemon
    restart; else asked of the daemon by the shell's pid; else PARSEC_SESSION when it is an id."""
    from ...errors import UsageError
    from ...protocol.current_session import ask_daemon, session_for_key

    key = os.environ.get("PARSEC_SESSION", "").strip()
    found = session_for_key(key, timeout=2.0) or (ask_daemon("", timeout=2.0) if key else None)
    if found:
        return found
    if _ULID.fullmatch(key.upper()):
        return key.upper()
    raise UsageError(
        "cannot tell which session this shell is: is the daemon running (`parsec daemon start`) and the hook "
        "installed (`parsec init`)? Or pass --session ID"
    )


def execution_fields(row: dict[str, Any]) -> dict[str, Any]:
    from .history_common import human_duration, local_time, one_line

    duration = row.get("duration_ms")
    return {
        "id": row["id"],
        "session": row["session_id"],
        "time": local_time(row["executed_at"]),
        "exit": "" if row["exit_status"] is None else row["exit_status"],
        "duration": human_duration(duration / 1000 if duration is not None else None),
        "cwd": row["cwd"],
        "host": row["host"],
        "user": row["user"],
        "source": row["source"],
        "conversation": row.get("conversation_id") or "",
        "command": one_line(row["command"]),
    }


def print_executions(
    rows: list[dict[str, Any]], *, as_json: bool = False, fmt: str | None = None, output: bool = False
) -> None:
    if as_json:
        payload = [{**row, "executed_at": row["executed_at"].isoformat()} for row in rows]
        _echo_json(payload)
        return
    if fmt is not None:
        template = fmt.encode().decode("unicode_escape") if "\\" in fmt else fmt
        lines = []
        for row in rows:
            try:
                lines.append(template.format_map(execution_fields(row)))
            except (KeyError, ValueError, IndexError) as err:
                from ...errors import UsageError

                raise UsageError(f"--format: {err}; fields are {', '.join(FIELDS)}") from None
        if lines:
            _echo("\n".join(lines))
        return
    from ..render import is_tty, table

    if is_tty():
        from .history_table import print_table

        print_table(rows, output=output)
        return
    from .history_table import ai_tag

    if not output:
        table(
            ["time", "exit", "took", "cwd", "command"],
            [
                (f["time"], f["exit"], f["duration"], f["cwd"], f["command"] + ai_tag(row))
                for row, f in zip(rows, map(execution_fields, rows))
            ],
        )
        return
    _echo("\t".join(["time", "exit", "took", "cwd", "command"]))
    for row in rows:
        f = execution_fields(row)
        _echo("\t".join(str(f[k]) for k in ("time", "exit", "duration", "cwd")) + "\t" + f["command"] + ai_tag(row))
        for line in (row.get("output") or "").splitlines():
            _echo(f"    | {line}")


def run_sessions(*, limit: int = 50, as_json: bool = False, overrides: dict[str, Any] | None = None) -> None:
    """The body of `parsec sessions`, shared by the typer command and the fast entry path."""
    from ...store.history import sessions_sqlite, sessions_via_store
    from .history_common import read_fast_or_store

    rows = read_fast_or_store(
        lambda c: sessions_sqlite(c, limit), lambda s: sessions_via_store(s, limit), overrides or {}
    )
    _print_sessions(rows, as_json)


def _print_sessions(rows: list[dict[str, Any]], as_json: bool) -> None:
    from .history_common import human_duration, local_time

    if as_json:
        _echo_json(rows)
        return
    from ..render import is_tty, table

    if is_tty():
        from .history_table import show_lines
        from .sessions_table import session_lines

        show_lines(lambda columns: session_lines(rows, columns))
        return
    table(
        ["id", "shell", "host", "started", "duration", "commands", "failed", "convs", "cwd", "state"],
        [
            (
                r["id"],
                r["shell"],
                r["host"],
                local_time(r["created_at"]),
                human_duration(r["duration_s"]),
                r["commands"],
                r["failed"],
                r["conversations"],
                r["cwd"],
                "ended" if r["ended_at"] else "open",
            )
            for r in rows
        ],
    )


def run_session_show(session_id: str, *, limit: int = 200, as_json: bool = False) -> None:
    """The body of `parsec sessions show ID`: the session, its commands oldest first, its conversations."""
    from ...store.history import HistoryQuery, history_via_store, resolve_session_id
    from .history_common import human_duration, local_time, open_configured_store

    with open_configured_store() as store:  # the --set overrides: load_settings reads them
        full_id = current_session_id() if session_id == "current" else resolve_session_id(store, session_id)
        session = store.load_session(full_id, history_limit=1)
        newest = history_via_store(store, HistoryQuery(session_id=full_id, limit=limit), with_output=True)
        commands = list(reversed(newest))
        conversations = store.list_conversations(limit=1000, session_id=full_id)
    for row in commands:
        describe_output(row)  # the captured output, and which streams it holds
    if as_json:
        payload = {
            "session": session.model_dump(mode="json", exclude={"command_history"}),
            "commands": [{**row, "executed_at": row["executed_at"].isoformat()} for row in commands],
            "conversations": [
                {
                    "id": c.id,
                    "name": c.name,
                    "prompt": c.original_prompt,
                    "status": c.status.value,
                    "created_at": c.created_at.isoformat(),
                    "steps": c.step_count,
                    "cwd": c.working_directory,
                }
                for c in conversations
            ],
        }
        _echo_json(payload)
        return
    end = session.ended_at or session.last_active
    _echo(
        f"session {session.id}  {session.shell or '?'} on {session.user}@{session.host}  "
        f"pid {session.pid or '-'}  {session.tty}"
    )
    _echo(
        f"started {local_time(session.created_at)}, "
        f"{'ended' if session.ended_at else 'last active'} {local_time(end)} "
        f"({human_duration((end - session.created_at).total_seconds())})"
    )
    if session.global_context.working_directory:
        _echo(f"cwd {session.global_context.working_directory}")
    _echo("")
    print_executions(commands, output=True)
    if conversations:
        from ..render import table

        _echo("")
        table(
            ["conversation", "started", "status", "steps", "prompt"],
            [
                (c.id, local_time(c.created_at), c.status.value, c.step_count, c.original_prompt[:80])
                for c in conversations
            ],
        )
