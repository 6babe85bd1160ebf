"""`parsec history`, `parsec sessions` and `parsec sessions show`: from raw arguments to output.

Their 150 ms budget has no room for typer (which imports pydantic), so entry.py calls `run`
directly; the typer app registers the same commands as raw commands (arguments.raw_command) that
call it too. One parser (arguments.py), one body (history_views.py), whichever way in.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from typing import Any


def run(
    args: list[str], overrides: dict[str, Any] | None = None, debug: bool = False, sets: list[str] | None = None
) -> int:
    """`args` from the command name on (`["history", "--json"]`); the exit code. `overrides`: the
    parsed `--set` options (or `sets`, unparsed); `debug`: let errors raise (a traceback)."""

    from ..failures import run_reporting_errors

    def call() -> int:
        from ..global_options import parse_overrides

        _run(args, overrides if overrides is not None else parse_overrides(sets or []))
        return 0

    return run_reporting_errors(call, debug, log_setup=False)


def _run(args: list[str], overrides: dict[str, Any]) -> None:
    from .. import arguments
    from .history_common import check_history_options, check_limit

    if args[0] == "history":
        options = arguments.parse(arguments.history_parser(), args[1:])
        if options is None:
            return
        from .history_views import run_history

        check_history_options(
            limit=options.limit, exit_filter=options.exit_filter, since=options.since, until=options.until
        )
        run_history(**vars(options), overrides=overrides)
    elif args[1:2] == ["show"]:
        options = arguments.parse(arguments.sessions_show_parser(), args[2:])
        if options is None:
            return
        from .history_views import run_session_show

        check_limit(options.limit)
        run_session_show(options.session_id, limit=options.limit, as_json=options.as_json)
    else:
        options = arguments.parse(arguments.sessions_parser(), args[1:])
        if options is None:
            return
        from .history_views import run_sessions

        check_limit(options.limit, minimum=1)
        run_sessions(limit=options.limit, as_json=options.as_json, overrides=overrides)
