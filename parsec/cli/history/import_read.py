"""Reading a history file for `parsec import`: in bounded pieces, and past crash damage.

A shell killed mid-write, or a file system recovered after a crash, leaves blocks of NUL bytes in
a history file; the lines they touch are dropped (left blank, so line numbers stay the file's)
and counted, and the rest is imported. A file with no end to its lines (/dev/zero) or far beyond
any history's size is refused before it can fill memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...errors import UsageError

MAX_HISTORY_BYTES = 256 * 1024 * 1024  # a 1,000,000-line history is ~50 MiB
MAX_LINE_BYTES = 1024 * 1024  # the hooks record at most ~1 MB of one command line


@dataclass
class HistoryBytes:
    data: bytes = b""  # the file with damaged lines blanked
    lines: int = 0
    damaged: list[int] = field(default_factory=list)  # line numbers (1-based) dropped


def read_history_file(path: Path, shell: str) -> HistoryBytes:
    """The file's bytes, minus lines holding NUL bytes or longer than MAX_LINE_BYTES. UsageError
    (one line) when it cannot be read, is mostly damaged (a binary file), or exceeds
    MAX_HISTORY_BYTES; nothing larger than the kept lines is ever held in memory."""
    result = HistoryBytes()
    kept: list[bytes] = []
    total = 0
    try:
        with path.open("rb") as handle:
            while piece := handle.readline(MAX_LINE_BYTES + 1):
                total += len(piece)
                result.lines += 1
                damaged = b"\0" in piece
                while not piece.endswith(b"\n") and len(piece) > MAX_LINE_BYTES:  # the rest of an endless line
                    damaged = True
                    piece = handle.readline(MAX_LINE_BYTES + 1)
                    total += len(piece)
                    _check_size(path, shell, total)
                _check_size(path, shell, total)
                if damaged:
                    result.damaged.append(result.lines)
                    kept.append(b"\n")
                else:
                    kept.append(piece)
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}; pass the history file as an argument") from None
    if result.damaged and len(result.damaged) * 2 > result.lines:
        raise UsageError(
            f"{path} is not {shell} history: it is a binary file ({len(result.damaged)} of its {result.lines} lines hold NUL bytes); nothing imported"
        )
    result.data = b"".join(kept)
    return result


def _check_size(path: Path, shell: str, total: int) -> None:
    if total > MAX_HISTORY_BYTES:
        raise UsageError(
            f"{path} is not {shell} history: more than {MAX_HISTORY_BYTES // (1024 * 1024)} MiB"
            f"{'' if path.is_file() else ' and no end'}; nothing imported"
        )
