"""`parsec history` as a table a person reads: one line per command, fitted to the terminal.

The directory is shortened (`~`, then the middle elided), a long command is cut with an ellipsis,
a multi-line command shows its first line and `⏎+N` for the rest, the exit status is coloured, and
when the table is longer than the screen it goes through a pager (`$PAGER`, else `less -RFX`).
Piped output stays tab-separated and complete (render.table)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from ..render import BOLD, DIM, GREEN, RED, RESET


def command_cell(command: str, width: int, tag: str = "") -> str:
    """The command in `width` characters; `tag` (a workflow's conversation) kept whole at the end."""
    from .history_common import cut

    lines = command.split("\n")
    width = max(1, width - len(tag))
    if len(lines) == 1:
        return cut(command, width) + tag
    mark = f" ⏎+{len(lines) - 1}"
    return cut(lines[0], max(1, width - len(mark))) + mark + tag


def ai_tag(row: dict[str, Any]) -> str:
    """What marks a command a workflow ran, with its conversation: a shell comment, so the line
    still runs as it is when copied."""
    return f"  # parsec ask {row['conversation_id']}" if row.get("conversation_id") else ""


def lines_for(rows: list[dict[str, Any]], width: int, output: bool = False) -> list[str]:
    from .history_common import cut, human_duration, local_time, short_path

    time_width, exit_width, took_width = 19, 4, 7
    cwd_width = max(8, min(30, (width - time_width - exit_width - took_width - 4) // 3))
    command_width = max(10, width - time_width - exit_width - took_width - cwd_width - 4)
    out = [
        f"{BOLD}{'time':<{time_width}} {'exit':>{exit_width}} {'took':>{took_width}} "
        f"{'cwd':<{cwd_width}} command{RESET}"
    ]
    for row in rows:
        status = row["exit_status"]
        colour = DIM if status is None else GREEN if status == 0 else RED
        duration = row.get("duration_ms")
        took = human_duration(duration / 1000 if duration is not None else None)
        when = local_time(row["executed_at"])
        out.append(
            f"{when:<{time_width}} {colour}{'' if status is None else status:>{exit_width}}{RESET} "
            f"{took:>{took_width}} {short_path(row['cwd'], cwd_width):<{cwd_width}} "
            f"{command_cell(row['command'], command_width, ai_tag(row))}"
        )
        if output and row.get("output"):
            for line in row["output"].splitlines():
                out.append(f"{DIM}    │ {cut(line, width - 6)}{RESET}")
    return out


def print_table(rows: list[dict[str, Any]], output: bool = False) -> None:
    show_lines(lambda columns: lines_for(rows, columns, output))


def show_lines(fitted: Callable[[int], list[str]]) -> None:
    """Print the lines fitted to the terminal's width, through a pager when they fill the screen
    (`parsec history`, `parsec sessions`)."""
    size = shutil.get_terminal_size((80, 24))
    lines = fitted(size.columns)
    text = "\n".join(lines) + "\n"
    if len(lines) >= size.lines and sys.stdout.isatty():
        pager = os.environ.get("PAGER") or "less -RFX"
        try:
            # 127: the shell found no such pager ($PAGER misspelt, less not installed): print instead.
            if subprocess.run(pager, shell=True, input=text.encode(), check=False).returncode != 127:
                return
        except OSError:
            pass
    sys.stdout.write(text)
