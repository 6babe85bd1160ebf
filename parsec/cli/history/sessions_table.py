"""`parsec sessions` as a table a person reads: one line per session, fitted to the terminal.

The id is cut to the shortest prefix that tells the listed sessions apart (`parsec sessions show`
takes a prefix), the host column appears only when sessions come from several hosts, and the
directory takes what width is left (`~`, then the middle elided). At 80 columns the rich table
folded every row over several lines. Piped output stays tab-separated and complete (render.table).
"""

from __future__ import annotations

from typing import Any

from ..render import BOLD, DIM, GREEN, RED, RESET

MIN_ID = 10  # a ULID's first 10 characters are its millisecond: sessions rarely share them
# ...but an imported session's id has no time (import_cmd: all ten are 0), so every imported
# session shares those ten with the others, listed or not: some of its random part is shown too.
NO_TIME = "0" * MIN_ID
MIN_IMPORTED_ID = MIN_ID + 6
MAX_HOST = 16
MIN_CWD = 12


def short_ids(ids: list[str]) -> int:
    """The shortest prefix length (at least MIN_ID, MIN_IMPORTED_ID with an imported session
    listed) that keeps `ids` distinct: `parsec sessions show` takes it as the id."""
    least = MIN_IMPORTED_ID if any(i.startswith(NO_TIME) for i in ids) else MIN_ID
    for length in range(least, max((len(i) for i in ids), default=MIN_ID) + 1):
        if len({i[:length] for i in ids}) == len(set(ids)):
            return length
    return max((len(i) for i in ids), default=MIN_ID)


def session_lines(rows: list[dict[str, Any]], width: int) -> list[str]:
    from .history_common import cut, human_duration, short_path

    id_width = short_ids([r["id"] for r in rows])
    shell_width = max([5] + [len(r["shell"] or "") for r in rows])
    started_format, started_width = ("%Y-%m-%d %H:%M", 16) if width >= 100 else ("%m-%d %H:%M", 11)
    # id, shell, started, took, cmds, fail, convs, state: each followed by a space.
    fixed = id_width + shell_width + started_width + 6 + 4 + 4 + 5 + 5 + 8
    hosts = {r["host"] or "" for r in rows}
    host_width = 0
    if len(hosts) > 1:  # the directory keeps at least MIN_CWD
        host_width = max(4, min(MAX_HOST, max(len(h) for h in hosts), width - fixed - 2 - MIN_CWD))
    cwd_width = max(MIN_CWD, width - 1 - fixed - (host_width + 1 if host_width else 0))  # the last column free
    host_header = f"{'host':<{host_width}} " if host_width else ""
    out = [
        f"{BOLD}{'id':<{id_width}} {'shell':<{shell_width}} {'started':<{started_width}} {'took':>6} "
        f"{'cmds':>4} {'fail':>4} {'convs':>5} {'state':<5} {host_header}cwd{RESET}"
    ]
    for r in rows:
        failed = r["failed"]
        state = f"{DIM}ended{RESET}" if r["ended_at"] else f"{GREEN}open {RESET}"
        host = f"{cut(r['host'] or '', host_width):<{host_width}} " if host_width else ""
        out.append(
            f"{r['id'][:id_width]:<{id_width}} {cut(r['shell'] or '?', shell_width):<{shell_width}} "
            f"{r['created_at'].astimezone().strftime(started_format):<{started_width}} "
            f"{human_duration(r['duration_s']):>6} {r['commands']:>4} "
            f"{RED if failed else ''}{failed:>4}{RESET if failed else ''} {r['conversations']:>5} {state} "
            f"{host}{short_path(r['cwd'] or '', cwd_width)}"
        )
    return out
