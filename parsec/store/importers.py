"""Parsers of the shells' own history files: bash, zsh and fish. Pure functions on bytes.

Each returns a ParsedHistory: the entries in file order (command, epoch seconds or None, duration
in seconds or None, the line they start on) and the malformed lines that were skipped, so the
caller can report them. Nothing here touches the store; `parsec import` turns entries into
executions (masked, deduplicated by a deterministic id).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

# Timestamps outside this range are damage, not history (1990 .. 2100).
MIN_EPOCH = 631_152_000
MAX_EPOCH = 4_102_444_800
MAX_EXAMPLES = 5


class HistoryEntry(NamedTuple):
    """One command of a history file. A tuple, not a frozen dataclass: a large import builds one
    per line, and a frozen dataclass's __init__ (object.__setattr__ per field) cost ~0.2 s of
    200,000 lines."""

    command: str
    timestamp: int | None  # seconds since the epoch, when the shell recorded one
    duration_s: int | None  # zsh's EXTENDED_HISTORY elapsed time
    line: int  # 1-based line the entry starts on


@dataclass
class ParsedHistory:
    entries: list[HistoryEntry] = field(default_factory=list)
    malformed: int = 0
    examples: list[tuple[int, str]] = field(default_factory=list)  # (line, text) of the first few

    def skip(self, line: int, text: str) -> None:
        self.malformed += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append((line, text[:80]))


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").replace("\x00", "\u2400")


def _valid_time(value: int) -> bool:
    return MIN_EPOCH <= value <= MAX_EPOCH


# --- bash ------------------------------------------------------------------------------------------

_BASH_TIME = re.compile(r"#(\d+)\s*")


def parse_bash(data: bytes) -> ParsedHistory:
    """~/.bash_history. With HISTTIMEFORMAT set, bash writes `#<epoch>` before each entry, and
    every line up to the next timestamp belongs to that entry (multi-line commands); without
    timestamps each line is one command."""
    result = ParsedHistory()
    lines = _decode(data).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    timed = any(_BASH_TIME.fullmatch(line) for line in lines[:50])
    if not timed:
        for number, line in enumerate(lines, 1):
            if line.strip():
                result.entries.append(HistoryEntry(line, None, None, number))
        return result

    stamp: int | None = None
    start = 0
    body: list[str] = []

    def flush() -> None:
        while body and not body[-1].strip():  # blank lines before the next timestamp (a damaged line, blanked)
            body.pop()
        if body:
            result.entries.append(HistoryEntry("\n".join(body), stamp, None, start))
        body.clear()

    for number, line in enumerate(lines, 1):
        match = _BASH_TIME.fullmatch(line)
        if match:
            flush()
            value = int(match.group(1))
            if not _valid_time(value):
                result.skip(number, line)
                stamp, start = None, number + 1
                continue
            stamp, start = value, number + 1
            continue
        if not body and not line.strip():
            continue
        if not body:
            start = number
        body.append(line)
    flush()
    return result


# --- zsh -------------------------------------------------------------------------------------------

_ZSH_EXTENDED = re.compile(r": *(\d+):(\d+);(.*)", re.DOTALL)
_META = 0x83


def unmetafy(data: bytes) -> bytes:
    """zsh stores bytes 0x83..0xA2 (and NUL) as 0x83 followed by the byte XOR 0x20."""
    if bytes([_META]) not in data:
        return data
    out = bytearray()
    iterator = iter(data)
    for byte in iterator:
        if byte == _META:
            following = next(iterator, None)
            if following is not None:
                out.append(following ^ 0x20)
        else:
            out.append(byte)
    return bytes(out)


def parse_zsh(data: bytes) -> ParsedHistory:
    """~/.zsh_history, plain or EXTENDED_HISTORY (`: <start>:<elapsed>;<command>`). A line ending
    in a backslash continues on the next line, as zsh reads it back (hist.c, readhistline): zsh
    writes each newline of a multi-line command as backslash-newline, so a line the user
    continued with `\\` ends in two backslashes in the file, and the first is the command's own."""
    result = ParsedHistory()
    lines = _decode(unmetafy(data)).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    index = 0
    while index < len(lines):
        start = index + 1
        text = lines[index]
        if text.endswith("\\"):  # a continued command (rare): gather its lines
            parts = [text]
            while parts[-1].endswith("\\") and index + 1 < len(lines):
                parts[-1] = parts[-1][:-1]
                index += 1
                parts.append(lines[index])
            text = "\n".join(parts)
        index += 1
        if text.startswith(":"):
            match = _ZSH_EXTENDED.fullmatch(text)
            if match is None or not _valid_time(int(match.group(1))):
                result.skip(start, text)
                continue
            command = match.group(3)
            if command.strip():
                result.entries.append(HistoryEntry(command, int(match.group(1)), int(match.group(2)), start))
            else:
                result.skip(start, text)
            continue
        if text.strip():
            result.entries.append(HistoryEntry(text, None, None, start))
    return result


# --- fish ------------------------------------------------------------------------------------------

_FISH_CMD = re.compile(r"- cmd: ?(.*)")
_FISH_WHEN = re.compile(r"  when: *(.*)")


def _fish_unescape(value: str) -> str:
    # fish escapes backslash as \\ and newline as \n in the cmd field.
    out: list[str] = []
    chars = iter(value)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append("\n" if following == "n" else following if following == "\\" else "\\" + following)
        else:
            out.append(char)
    return "".join(out)


def parse_fish(data: bytes) -> ParsedHistory:
    """~/.local/share/fish/fish_history: a YAML-like list of `- cmd:` items with `when:` and
    optional `paths:` sub-lists."""
    result = ParsedHistory()
    lines = _decode(data).split("\n")
    command: str | None = None
    when: int | None = None
    start = 0

    def flush() -> None:
        if command is not None:
            if command.strip():
                result.entries.append(HistoryEntry(command, when, None, start))
            else:
                result.skip(start, "- cmd:")

    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        cmd = _FISH_CMD.fullmatch(line)
        if cmd:
            flush()
            command, when, start = _fish_unescape(cmd.group(1)), None, number
            continue
        if command is None:
            result.skip(number, line)
            continue
        time = _FISH_WHEN.fullmatch(line)
        if time:
            raw = time.group(1).strip()
            if raw.isdigit() and _valid_time(int(raw)):
                when = int(raw)
            else:
                result.skip(number, line)
            continue
        if line.startswith("  "):  # paths: and its items, or fields newer fish versions add
            continue
        result.skip(number, line)
    flush()
    return result


PARSERS = {"bash": parse_bash, "zsh": parse_zsh, "fish": parse_fish}


# --- is this file that shell's history at all? ------------------------------------------------------

_SIGNATURES = {  # a line only that shell's history file is made of
    "zsh": re.compile(r": *\d+:\d+;"),
    "bash": re.compile(r"#\d{9,11}\s*$"),
    "fish": re.compile(r"- cmd: |  when: \d+\s*$"),
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
MIN_COMMAND_SHARE = 0.5  # of untimed entries whose first word is a command


def format_problem(shell: str, data: bytes, parsed: ParsedHistory, is_command) -> str | None:
    """Why `data` is not `shell`'s history file (one line), or None when it is.

    `is_command(word)` says whether a word is something a shell runs (keyword, builtin, program);
    the caller supplies it because that knowledge lives above the store. A timed format (zsh's
    EXTENDED_HISTORY, bash's `#<epoch>` lines, fish's `- cmd:`) is recognised by its own syntax;
    a plain list of lines is history only when most of them start with a command, which is what
    tells `~/.bash_history` from `/etc/passwd`."""
    if b"\0" in data[:65536]:
        return "it is a binary file"
    lines = [line for line in _decode(data).split("\n") if line.strip()]
    if not lines:
        return None  # an empty history imports nothing, which is right
    for other, signature in _SIGNATURES.items():
        if other != shell and sum(1 for line in lines if signature.match(line)) * 2 >= len(lines):
            return f"it looks like {other} history; use `parsec import {other}`"
    if not parsed.entries:
        return f"none of its {len(lines)} lines is a {shell} history entry"
    if shell == "fish":
        return (
            None
            if parsed.malformed * 2 <= len(parsed.entries)
            else (
                f"{parsed.malformed} of its lines are not fish history (line {parsed.examples[0][0]}: {parsed.examples[0][1]!r})"
            )
        )
    untimed = [entry for entry in parsed.entries if entry.timestamp is None]
    if len(untimed) * 2 <= len(parsed.entries):
        return None  # mostly in the shell's timed format
    strangers = [entry for entry in untimed if not _starts_with_command(entry.command, is_command)]
    if len(strangers) > len(untimed) * (1 - MIN_COMMAND_SHARE):
        first = strangers[0]
        return (
            f"only {len(untimed) - len(strangers)} of its {len(untimed)} lines start with a command "
            f"(line {first.line}: {first.command[:60]!r})"
        )
    return None


def _starts_with_command(command: str, is_command) -> bool:
    words = command.split()
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)  # NAME=value cmd …, or a bare assignment
        if not words:
            return True
    if not words:
        return False
    word = words[0]
    return word.startswith(("./", "~/", "../", "$", "(", "{")) or is_command(word)
