"""`parsec history` and `parsec sessions` without typer.

typer (0.2x) imports pydantic to convert parameters, which alone costs more than these commands'
150 ms budget. entry.py hands them here first; anything this small argparse parser does not
fully understand (--help, a typo, `sessions show`, a global option) returns None and goes to the
typer app, which owns the help text and the usage errors. Both paths call the same functions
(history_views.run_history, run_sessions); a test runs them side by side.
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from typing import Any


def _history_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False, allow_abbrev=False)
    for flag in ("--session", "--cwd", "--exit", "--since", "--until", "--host", "--format"):
        parser.add_argument(flag)
    parser.add_argument("--search", "-s")
    parser.add_argument("--limit", "-n", type=int, default=50)
    parser.add_argument("--here", action="store_true")
    parser.add_argument("--subtree", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--output", action="store_true")
    return parser


def _sessions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False, allow_abbrev=False)
    parser.add_argument("--limit", "-n", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    return parser


def _parse(parser: argparse.ArgumentParser, args: list[str]) -> argparse.Namespace | None:
    if any(arg in ("--help", "-h") for arg in args):
        return None
    try:
        namespace, rest = parser.parse_known_args(args)
    except (argparse.ArgumentError, SystemExit):
        return None
    return None if rest else namespace


def try_fast(args: list[str]) -> int | None:
    """Run `history`/`sessions` and return the exit code, or None to let the typer app do it."""
    if not args or args[0] not in ("history", "sessions"):
        return None
    if args[0] == "history":
        from .history_common import optional_cwd

        history = _parse(_history_parser(), optional_cwd(args[1:]))
        if history is None or history.limit < 0:
            return None
        ns = history

        def call() -> None:
            from .history_common import check_history_options
            from .history_views import run_history

            check_history_options(limit=ns.limit, exit_filter=ns.exit, since=ns.since, until=ns.until)
            run_history(
                session=ns.session,
                cwd=ns.cwd,
                here=ns.here,
                subtree=ns.subtree,
                exit_filter=ns.exit,
                since=ns.since,
                until=ns.until,
                host=ns.host,
                search=ns.search,
                limit=ns.limit,
                as_json=ns.json,
                fmt=ns.format,
                output=ns.output,
            )
    else:
        sessions = _parse(_sessions_parser(), args[1:])
        if sessions is None or sessions.limit < 1:
            return None
        ns = sessions

        def call() -> None:
            from .history_common import check_limit
            from .history_views import run_sessions

            check_limit(ns.limit, minimum=1)
            run_sessions(limit=ns.limit, as_json=ns.json)

    return _run(call)


def _run(call: Any) -> int:
    import os

    from ..errors import ParsecError

    try:
        call()
    except ParsecError as err:
        if os.environ.get("PARSEC_DEBUG"):
            raise
        sys.stderr.write(f"parsec: {err}\n")
        return err.exit_code
    except BrokenPipeError:  # `parsec history | head`
        try:
            sys.stdout.close()
        except OSError:
            pass
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("parsec: interrupted\n")
        return 130
    return 0
