"""Readers for the scripts sed and awk run: sed's options, scripts and files, and what a sed script
does beyond printing; awk's program text and where it prints to."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..words import is_option, word_at

# print > "file", printf ... >> file: the target is a quoted name or an expression.
AWK_OUTPUT = re.compile(r'\bprintf?\b[^;}>|]*(>>?)\s*("[^"]*"|[^\s;}]+)')
# Where an awk program runs a command: system(…), "cmd" | getline, print … | "cmd".
AWK_RUNS = re.compile(r"\bsystem\s*\(|(?<!\|)\|(?!\|)")
AWK_COMMAND = re.compile(
    r'\bsystem\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)|"((?:[^"\\]|\\.)*)"\s*\|(?!\|)|(?<!\|)\|\s*"((?:[^"\\]|\\.)*)"'
)


def awk_program(args: list[str]) -> str | None:
    """The awk program text; None when it comes from a file (-f) or loads code (-i, -l)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return word_at(args, i + 1)
        if arg.startswith(("-f", "-E", "-i", "-l", "--file", "--exec", "--include", "--load")):
            return None
        if arg in ("-e", "--source"):
            return word_at(args, i + 1)
        if arg in ("-F", "-v", "--field-separator", "--assign"):
            i += 2
        elif arg.startswith("-") and arg != "-":
            i += 1
        else:
            return arg
    return ""


@dataclass
class SedArgs:
    in_place: bool = False
    sandbox: bool = False
    scripts: list[str] = field(default_factory=list)
    script_files: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def sed_args(args: list[str]) -> SedArgs:
    """sed's options, scripts (-e or the first operand) and input files; -ri and -ni are -r -i, -n -i."""
    out = SedArgs()
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg, i = args[i], i + 1
        name, equals, attached = arg.partition("=")
        if arg == "--":
            operands += args[i:]
            break
        if not is_option(arg):
            operands.append(arg)
        elif arg.startswith("--"):
            long = next((o for o in _SED_LONG if len(name) > 3 and o.startswith(name)), "")
            if long in ("--expression", "--file", "--line-length") and not equals:
                attached, i = word_at(args, i), i + 1
            if long == "--in-place":
                out.in_place = True
            elif long == "--sandbox":
                out.sandbox = True
            elif long in ("--expression", "--file"):
                (out.scripts if long == "--expression" else out.script_files).append(attached)
        else:
            for j, letter in enumerate(arg[1:], start=1):
                if letter == "i":  # -i[SUFFIX]: the rest of the word is the backup suffix
                    out.in_place = True
                    break
                if letter in "efl":  # the rest of the word, or the next word, is the value
                    value = arg[j + 1 :]
                    if not value:
                        value, i = word_at(args, i), i + 1
                    if letter != "l":
                        (out.scripts if letter == "e" else out.script_files).append(value)
                    break
    if not (out.scripts or out.script_files) and operands:
        out.scripts.append(operands.pop(0))
    out.files = operands
    return out


_SED_LONG = ("--in-place", "--sandbox", "--expression", "--file", "--line-length")


def sed_actions(script: str) -> list[tuple[str, str]] | None:
    """What a sed script does beyond printing: ("e", command) for each command it executes ("" for
    the pattern space) and ("w", file) for each file it writes; None if the script could not be read.

    A small reader of sed's grammar: [address[,address]][!]command, separated by ; or newlines.
    """
    actions: list[tuple[str, str]] = []
    i = 0
    while i < len(script):
        c = script[i]
        if c in " \t\n;{}!" or c.isdigit() or c in "$,~+":  # separators, blocks, line addresses
            i += 1
        elif c == "#":
            i = _sed_line_end(script, i)
        elif c in "/\\":  # /regex/ or \%regex% address, then its I and M flags
            end = _sed_delimited(script, i + 1) if c == "/" else _sed_delimited(script, i + 2, script[i + 1 : i + 2])
            if end is None:
                return None
            i = _sed_skip(script, end, lambda ch: ch in "IM")
        elif c in "sy":  # s/regex/replacement/flags, y/abc/xyz/
            end = _sed_delimited(script, i + 2, script[i + 1 : i + 2], parts=2)
            if end is None:
                return None
            i = end
            if c == "s":  # flags: e executes the result, w FILE writes it
                i = _sed_skip(script, end, lambda ch: ch in "gpiImMe" or ch.isdigit())
                if "e" in script[end:i]:
                    actions.append(("e", ""))
                if script[i : i + 1] == "w":
                    i = _sed_argument(script, i + 1, actions, "w")
        elif c in "wWe":
            i = _sed_argument(script, i + 1, actions, "w" if c in "wW" else "e")
        elif c in "aicrR":  # text or a file to read, to the end of the line
            i = _sed_line_end(script, i)
        elif c in "btT:v":  # a label (or version), to ; or the end of the line
            i = _sed_skip(script, i, lambda ch: ch not in ";\n")
        elif c in "=dDFgGhHlLnNpPqQxz":
            i += 1
        else:
            return None
    return actions


def _sed_delimited(script: str, start: int, delimiter: str = "/", parts: int = 1) -> int | None:
    """The index after `parts` delimiter-ended sections from `start` (a regex, or an s command's two)."""
    if not delimiter or delimiter in "\n\\":
        return None
    i = start
    for _ in range(parts):
        while i < len(script) and script[i] != delimiter:
            i += 2 if script[i] == "\\" else 1
        if i >= len(script):
            return None
        i += 1
    return i


def _sed_skip(script: str, i: int, keep: Callable[[str], bool]) -> int:
    """The index of the first character from `i` on that `keep` does not accept."""
    while i < len(script) and keep(script[i]):
        i += 1
    return i


def _sed_line_end(script: str, i: int) -> int:
    """The end of the line from `i`; a line ending in a backslash continues (a, i and c's text)."""
    while i < len(script) and script[i] != "\n":
        i += 2 if script[i] == "\\" else 1
    return i


def _sed_argument(script: str, i: int, actions: list[tuple[str, str]], action: str) -> int:
    """Record the rest of the line (w's file, e's command) as `action`; return the line's end."""
    end = _sed_skip(script, i, lambda ch: ch != "\n")
    actions.append((action, script[i:end].strip()))
    return end
