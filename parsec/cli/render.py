"""Output helpers shared by CLI commands: rich tables on a terminal, plain text otherwise."""

from __future__ import annotations

import sys
from collections.abc import Sequence

# SGR escapes for the lines Parsec draws itself (`parsec history` on a terminal, the search).
RED, GREEN, MAGENTA, CYAN = "\x1b[31m", "\x1b[32m", "\x1b[35m", "\x1b[36m"
DIM, BOLD, REVERSE, RESET = "\x1b[2m", "\x1b[1m", "\x1b[7m", "\x1b[0m"


def is_tty() -> bool:
    return sys.stdout.isatty()


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], title: str | None = None) -> None:
    if is_tty():
        from rich.console import Console
        from rich.table import Table

        out = Table(title=title, show_edge=False, header_style="bold")
        for header in headers:
            out.add_column(header, overflow="fold")
        for row in rows:
            out.add_row(*(str(cell) for cell in row))
        Console().print(out)
        return
    # Plain, tab-separated: easy to pipe into cut/awk.
    if title:
        print(title)
    print("\t".join(headers))
    for row in rows:
        print("\t".join(str(cell) for cell in row))
