"""How a command's failure reaches the user: one line and an exit code, a traceback only with --debug.

Standard library only: the typer-free fast paths (`parsec ask`, `history`) use it too.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from ..errors import ParsecError
from .logs import configure_cli_logging

INTERNAL_ERROR = 70  # EX_SOFTWARE


def run_reporting_errors(action: Callable[[], int], debug: bool) -> int:
    """Run `action`; turn Parsec errors, Ctrl-C and unexpected exceptions into one line + a code."""
    configure_cli_logging(debug)
    try:
        return action()
    except ParsecError as err:
        if debug:
            raise
        sys.stderr.write(f"parsec: {err}\n")
        return err.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("parsec: interrupted\n")
        return 130
    except Exception as err:
        if debug:
            raise
        logging.getLogger("parsec.cli").error("internal error", exc_info=err)  # the traceback, in cli.log
        sys.stderr.write(f"parsec: internal error: {type(err).__name__}: {err} (run with --debug for details)\n")
        return INTERNAL_ERROR
