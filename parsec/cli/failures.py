"""How a command's failure reaches the user: one line and an exit code, a traceback only with --debug.

Standard library only, and light: the typer-free fast paths (`parsec ask`, `history`, `sessions`)
use it too, so the CLI log (logs.py, which imports logging) is set up only when it is needed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from ..errors import ParsecError

INTERNAL_ERROR = 70  # EX_SOFTWARE


def run_reporting_errors(action: Callable[[], int], debug: bool, *, log_setup: bool = True) -> int:
    """Run `action`; turn Parsec errors, Ctrl-C, a reader that went away (`parsec history | head`)
    and unexpected exceptions into one line + a code. `debug` (or PARSEC_DEBUG): let them raise.
    `log_setup=False`: the command logs nothing on its way, so the CLI log is set up only for the
    traceback of an internal error (`history` and `sessions`, whose start-up budget is tight)."""
    debug = debug or bool(os.environ.get("PARSEC_DEBUG"))
    if log_setup:
        _configure_logging(debug)
    try:
        return action()
    except ParsecError as err:
        if debug:
            raise
        sys.stderr.write(f"parsec: {err}\n")
        return err.exit_code
    except BrokenPipeError:
        try:
            sys.stdout.close()
        except OSError:
            pass
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("parsec: interrupted\n")
        return 130
    except Exception as err:
        if debug:
            raise
        _configure_logging(debug)
        import logging

        logging.getLogger("parsec.cli").error("internal error", exc_info=err)  # the traceback, in cli.log
        sys.stderr.write(f"parsec: internal error: {type(err).__name__}: {err} (run with --debug for details)\n")
        return INTERNAL_ERROR


def _configure_logging(debug: bool) -> None:
    from .logs import configure_cli_logging  # once per process, however often asked

    configure_cli_logging(debug)
