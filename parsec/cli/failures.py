"""How a command's failure reaches the user: one line and an exit code, a traceback only with --debug.

Standard library only: the typer-free fast paths (`parsec ask`, `history`) use it too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..errors import ParsecError

INTERNAL_ERROR = 70  # EX_SOFTWARE


def run_reporting_errors(action: Callable[[], int], debug: bool) -> int:
    """Run `action`; turn Parsec errors, Ctrl-C and unexpected exceptions into one line + a code."""
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
        sys.stderr.write(f"parsec: internal error: {type(err).__name__}: {err} (run with --debug for details)\n")
        return INTERNAL_ERROR
