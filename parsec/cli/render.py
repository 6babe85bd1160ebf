"""Output helpers shared by CLI commands: rich tables on a terminal, plain text otherwise."""

from __future__ import annotations

import sys
from collections.abc import Sequence


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
