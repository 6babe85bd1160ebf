"""`parsec --version`: this CLI's version and code, and the running daemon's (protocol/code_id.py)."""

from __future__ import annotations

from .. import __version__


def version_lines() -> str:
    from ..protocol.code_id import code_id, describe

    return f"parsec {describe(__version__, code_id())}\n{daemon_version_line()}"


def daemon_version_line() -> str:
    """`daemon 0.1.0 (code …)`, with a restart hint when it runs other code than this CLI; or why
    there is no answer. For `parsec --version`."""
    from ..errors import ParsecError
    from ..protocol import messages as m
    from ..protocol.client import DaemonClient
    from ..protocol.code_id import STALE_HINT, describe, stale

    try:
        with DaemonClient.connect(timeout=1.0) as client:
            status = client.call(m.Status())
    except ParsecError as err:
        return f"daemon: not reachable ({err})"
    shown = f"daemon {describe(status.version, status.code_id)}"
    return f"{shown}\n{STALE_HINT}" if stale(status.code_id) else shown
