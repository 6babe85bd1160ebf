"""`parsec search [--query TEXT] [--session-key KEY] ...`: entry.py calls `main` without typer.

Reads the SQLite store directly (read-only), so it works with the daemon down. The hooks hand
over the typed line in PARSEC_SEARCH_QUERY, not `--query`: any local user can read a process's
argv (/proc/PID/cmdline), only its owner its environment, and the line may hold a token.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

VALUED = {
    "--query": "query",
    "--session-key": "session_key",
    "--filter": "filter",
    "--mode": "mode",
    "--height": "height",
    "--trace": "trace",
}


def _query_from_hook() -> str:
    import os

    return os.environ.get("PARSEC_SEARCH_QUERY", "")


def _quick_parse(args: list[str]) -> SimpleNamespace | None:
    """The options as the hooks pass them, without argparse (a few ms of Ctrl-R's start-up);
    None for anything else (--help, a typo, a bad value): argparse then explains."""
    options = SimpleNamespace(
        query=_query_from_hook(), session_key="", filter=None, mode=None, height=None, full_screen=None, trace=None
    )
    at = 0
    while at < len(args):
        arg = args[at]
        if arg == "--full-screen":
            options.full_screen = True
        elif arg in VALUED and at + 1 < len(args):
            at += 1
            setattr(options, VALUED[arg], args[at])
        else:
            return None
        at += 1
    from ....store.search import MODES
    from .scope import FILTERS

    if options.filter not in (None, *FILTERS) or options.mode not in (None, *MODES):
        return None
    if options.height is not None:
        if not options.height.isdigit():
            return None
        options.height = int(options.height)
    return options


def _parser():
    import argparse

    from ....store.search import MODES
    from .scope import FILTERS

    parser = argparse.ArgumentParser(prog="parsec search", description="Search the recorded history interactively.")
    parser.add_argument("--query", default=_query_from_hook(), help="The text already typed (the initial query).")
    parser.add_argument("--session-key", default="", help="The hook's session key (for the session filter).")
    parser.add_argument("--filter", choices=FILTERS)
    parser.add_argument("--mode", choices=MODES)
    parser.add_argument("--height", type=int, help="Lines below the prompt (inline).")
    parser.add_argument("--full-screen", action="store_true", default=None)
    parser.add_argument("--trace", help=argparse.SUPPRESS)  # bench: per-keystroke redraw times
    return parser


def main(args: list[str]) -> int:
    from .search_loop import answer
    from .settings import load

    options = _quick_parse(args) or _parser().parse_args(args)
    settings = load()
    overrides = {
        key: value
        for key, value in (
            ("filter", options.filter),
            ("mode", options.mode),
            ("inline_height", options.height),
            ("full_screen", options.full_screen),
        )
        if value is not None
    }
    settings = settings._replace(**overrides)
    try:
        return _search(options, settings)
    except KeyboardInterrupt:
        answer("cancel", options.query)
        return 130


def _search(options, settings) -> int:
    from ....store.history import FastPathUnavailable, fast_connection
    from ..history_common import fast_sqlite_target
    from ..spool_count import SEARCH_FLUSH_WAIT_S, take_in_spool
    from .search_loop import SearchApp, answer, current_here
    from .source import Source
    from .tty import Terminal

    target = fast_sqlite_target({})
    if target is None:
        sys.stderr.write("parsec: the interactive search reads a SQLite store; use `parsec history --search TEXT`\n")
        answer("cancel", options.query)
        return 1
    try:
        terminal = Terminal()
    except OSError as err:
        sys.stderr.write(f"parsec: no terminal to search on ({err.strerror})\n")
        answer("cancel", options.query)
        return 1
    spool = take_in_spool(SEARCH_FLUSH_WAIT_S)  # before the search reads: the daemon takes the spool in
    trace = open(options.trace, "a") if options.trace else None  # noqa: SIM115 - closed below
    action, line = "cancel", options.query
    try:
        with fast_connection(*target) as connection:
            terminal.raw()
            app = SearchApp(
                terminal,
                Source(connection, current_here()),
                settings,
                options.query,
                spool_status=spool.status(),
                trace=trace,
                session_key=options.session_key,
            )
            action, line = app.run()
    except FastPathUnavailable as err:
        sys.stderr.write(f"parsec: nothing to search yet ({err})\n")
    finally:
        terminal.restore()
        if trace is not None:
            trace.close()
    answer(action, line)
    return 0
