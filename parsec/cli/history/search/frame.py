"""One frame of the search as lines of text (ANSI colours), from the state; no terminal I/O."""

from __future__ import annotations

import json

from ...render import BOLD, CYAN, DIM, GREEN, MAGENTA, RED, RESET, REVERSE
from ..history_common import cut, human_duration, short_path
from .ranking import Candidate

PROMPT = "parsec ❯ "
HELP = "↵ run  ⇥ edit  esc cancel  ^R filter  ^S mode  ^D forget"
MAX_COMMAND_LINES = 3  # a multi-line command shows this many lines in the list (all in the preview)
KIND_MARK = {"prompt": f"{MAGENTA}ask{RESET} ", "workflow": f"{CYAN}wf{RESET} ", "workflow-run": f"{CYAN}wf{RESET} "}
CONVERSATION_KINDS = ("prompt", "workflow-run")


class View:
    """What one frame shows."""

    def __init__(
        self,
        *,
        query: str,
        cursor: int,
        mode: str,
        filter: str,
        results: list[Candidate],
        selected: int,
        width: int,
        height: int,
        now_us: int,
        status: str = "",
        output: str | None = None,
        searching: bool = False,
        more: bool = False,
        top: int = 0,
    ) -> None:
        self.query, self.cursor, self.mode, self.filter = query, cursor, mode, filter
        self.results, self.selected, self.width, self.height = results, selected, width, height
        self.now_us, self.status, self.searching = now_us, status, searching
        self.more = more  # the search stopped at enough matches: older rows may hold more
        self.output = output  # the selected row's captured output, when there is some
        self.top = top  # first result shown (the caller keeps the selection in view)


def ago(now_us: int, at_us: int) -> str:
    seconds = max(0, now_us - at_us) // 1_000_000
    for unit, size in (("y", 31_536_000), ("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _status_mark(status: int | None) -> str:
    if status is None:
        return f"{DIM}{'·':>3}{RESET}"
    return f"{GREEN if status == 0 else RED}{status:>3}{RESET}"


def row_lines(candidate: Candidate, view: View, selected: bool) -> list[str]:
    """The lines of one result: how long ago, duration, exit status, the command, its directory."""
    row = candidate.row
    cwd_width = min(28, max(8, view.width // 4))
    command_width = max(10, view.width - 16 - cwd_width - 2)
    if candidate.kind in CONVERSATION_KINDS:
        when, took, status, cwd = ago(view.now_us, candidate.executed_at), "", None, row[3]
    else:
        duration = row[5]
        when, took = ago(view.now_us, row[4]), human_duration(duration / 1000 if duration is not None else None)
        status, cwd = row[6], row[7]
    mark = KIND_MARK.get(candidate.kind, "")
    lines = candidate.command.split("\n")
    shown = lines[:MAX_COMMAND_LINES]
    if len(lines) > MAX_COMMAND_LINES:
        shown[-1] += f" … (+{len(lines) - MAX_COMMAND_LINES} lines)"
    mark_width = len(mark) - len(MAGENTA) - len(RESET) if mark else 0
    first = cut(shown[0], command_width - mark_width)
    pointer = f"{BOLD}›{RESET}" if selected else " "
    head = f"{pointer} {when:>4} {took:>6} {_status_mark(status)} "
    text = f"{mark}{first}"
    pad = " " * max(1, command_width - mark_width - len(first) + 2)
    out = [
        f"{head}{(REVERSE if selected else '')}{text}{RESET if selected else ''}{pad}{DIM}"
        f"{short_path(cwd, cwd_width)}{RESET}"
    ]
    for more in shown[1:]:
        out.append(" " * 16 + f"{DIM}│{RESET} " + cut(more, command_width - 2))
    return out


def visible(view: View) -> tuple[int, int]:
    """(first, last+1) results that fit the list area, the selection among them."""
    if not view.results:
        return 0, 0
    area = list_height(view)
    top = min(view.top, view.selected)
    while True:
        used, end = 0, top
        while end < len(view.results):
            need = min(MAX_COMMAND_LINES, view.results[end].command.count("\n") + 1)
            if used + need > area:
                break
            used += need
            end += 1
        if view.selected < end or top >= view.selected:
            return top, max(end, top + 1)
        top += 1


def preview_height(view: View) -> int:
    return 0 if view.height < 10 else 4


def list_height(view: View) -> int:
    return max(1, view.height - 2 - preview_height(view))


def preview(view: View) -> list[str]:
    """Full command, where and how it ran, and the start of its captured output."""
    size = preview_height(view)
    if not size or not view.results:
        return [""] * size
    chosen = view.results[view.selected]
    row = chosen.row
    lines = [f"{DIM}─{RESET} " + cut(chosen.command.replace("\n", " ⏎ "), view.width - 2)]
    if chosen.kind in CONVERSATION_KINDS:
        what = "asked Parsec" if chosen.kind == "prompt" else "run by the workflow of a conversation"
        meta = f"{what} in {short_path(row[3], 40)} · conversation {row[0]} ({row[5]}) · session {row[1][-8:]}"
    else:
        took = human_duration(row[5] / 1000) if row[5] is not None else "?"
        status = "?" if row[6] is None else row[6]
        meta = (
            f"in {short_path(row[7], 40)} · session {row[2][-8:]} · host {row[8]} · exit {status} · took {took}"
            f" · ran {chosen.runs}×"
        )
        if chosen.kind == "workflow":  # run by `parsec ask`: which conversation
            meta = f"run by the workflow of conversation {row[10]} · {meta}"
    lines.append(f"{DIM}{cut(meta, view.width)}{RESET}")
    if view.output:
        lines.append(f"{DIM}output (stdout and stderr merged, as the terminal showed them):{RESET}")
        lines += [cut(line, view.width) for line in view.output.splitlines()[-(size - 3) :] or [""]]
    return (lines + [""] * size)[:size]


def output_text(stored: str | None) -> str | None:
    """The text of a stored TruncatedText JSON (head, and tail when the middle was cut)."""
    if not stored:
        return None
    try:
        data = json.loads(stored)
    except ValueError:
        return None
    return truncated_text(data)


def truncated_text(data: object) -> str | None:
    """The text of a TruncatedText already parsed from JSON (a dict), None for anything else."""
    if not isinstance(data, dict):
        return None
    head, tail = str(data.get("head") or ""), str(data.get("tail") or "")
    return (head + ("\n…\n" + tail if tail else "")).strip("\n") or None


def frame(view: View) -> list[str]:
    """Exactly view.height lines."""
    found = f"{len(view.results)}{'…' if view.searching else '+' if view.more else ''} found"
    right = f"{DIM}{view.mode} · {view.filter} · {found}{RESET}"
    right_width = len(view.mode) + len(view.filter) + len(found) + 6
    query = cut(view.query, max(5, view.width - len(PROMPT) - right_width - 1))
    gap = max(1, view.width - len(PROMPT) - len(query) - right_width)
    lines = [f"{BOLD}{PROMPT}{RESET}{query}{' ' * gap}{right}"]
    start, end = visible(view)
    view.top = start
    rows: list[str] = []
    for index in range(start, end):
        rows += row_lines(view.results[index], view, index == view.selected)
    if not view.results:
        rows.append(f"{DIM}  nothing matches{' yet' if view.searching else ''}{RESET}")
    lines += (rows + [""] * list_height(view))[: list_height(view)]
    lines += preview(view)
    bottom = f"{view.status}  ·  {HELP}" if view.status else HELP
    lines.append(f"{DIM}{cut(bottom, view.width)}{RESET}")
    return lines[: view.height]
