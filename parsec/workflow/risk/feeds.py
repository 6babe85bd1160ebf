"""What a command writes to its standard output, when another program runs that text as code
(`echo … | sh`, `eval "$(…)"`, `bash <<< …`): known text, decoded or downloaded text (which cannot
be read before it runs), the contents of files, or the output of some other program."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .command_names import DOWNLOADERS
from .syntax_tree import SUBSTITUTIONS, command_words, has_download_substitution
from .words import command_name, is_dynamic, operands_of, unwrapped

if TYPE_CHECKING:
    from .syntax_tree import Node

TEXT, DECODED, DOWNLOADED, FILES, PROGRAM = "text", "decoded", "downloaded", "files", "program"
# Programs whose output is their input transformed: code that passes through them is unreadable.
DECODERS = {
    "base64",
    "base32",
    "basenc",
    "xxd",
    "openssl",
    "gzip",
    "gunzip",
    "zcat",
    "bzcat",
    "bzip2",
    "xz",
    "xzcat",
    "unxz",
    "zstd",
    "zstdcat",
    "unzstd",
    "uudecode",
    "rev",
    "tr",
    "iconv",
}
_ESCAPES = re.compile(r"\\(x[0-9a-fA-F]|u[0-9a-fA-F]|U[0-9a-fA-F]|[0-7]{1,3}|c)")


@dataclass
class Output:
    kind: str  # one of TEXT, DECODED, DOWNLOADED, FILES, PROGRAM
    text: str = ""  # the text (TEXT); the program that decodes or prints it (DECODED, PROGRAM)
    files: list[str] = field(default_factory=list)  # FILES: the files read


def output_of(node: Node) -> Output:
    """What `node` (a command, a pipeline, or what else a substitution holds) prints."""
    kind = getattr(node, "kind", "")
    if kind == "command":
        return command_output(node)
    if kind == "pipeline":
        return piped_into([p for p in node.parts if getattr(p, "kind", "") == "command"], len(node.parts))
    return Output(PROGRAM, "a list of commands")


def piped_into(commands: list[Node], stages: int | None = None) -> Output:
    """What the pipeline `commands` prints into the command after it (a download anywhere in it counts)."""
    if not commands or (stages is not None and stages != 2 * len(commands) - 1):
        return Output(PROGRAM, "a compound command")  # { …; } | sh: a group we do not read
    if any(_is_download(c) for c in commands):
        return Output(DOWNLOADED)
    for i in range(len(commands) - 1, -1, -1):
        out = command_output(commands[i], piped=i > 0)
        if out.kind != "stdin":  # cat with no file passes its input on
            return out
    return Output(PROGRAM, "the terminal")


def _is_download(node: Node) -> bool:
    args = unwrapped(command_words(node))[0]
    return bool(args) and command_name(args[0]) in DOWNLOADERS or has_download_substitution(node)


def command_output(node: Node, piped: bool = False) -> Output:
    """What one simple command prints; kind "stdin" for `cat` passing on what it reads."""
    if _is_download(node):
        return Output(DOWNLOADED)
    args = unwrapped(command_words(node))[0]
    if not args:
        return Output(PROGRAM, "an assignment")
    name, rest = command_name(args[0]), args[1:]
    if name == "echo":
        return _echo(rest)
    if name == "printf":
        return _printf(rest)
    if name in DECODERS:
        return Output(DECODED, name)
    if name == "cat":
        files = [f for f in operands_of(rest) if f != "-"]
        if files:
            return Output(FILES, files=files)
        fed = stdin_of(node)
        return fed if fed is not None else Output("stdin" if piped else PROGRAM, "cat")
    return Output(PROGRAM, name)


def stdin_of(node: Node) -> Output | None:
    """The command's standard input when a redirection gives it: <<< text, a here-document, < file."""
    for redirect in (p for p in node.parts if getattr(p, "kind", "") == "redirect"):
        if redirect.type in ("<<", "<<-") and getattr(redirect, "heredoc", None) is not None:
            body = redirect.heredoc.value
            return Output(TEXT, body[: body.rfind("\n") + 1] if "\n" in body else "")
        target: Node = getattr(redirect, "output", None)
        if not hasattr(target, "word"):
            continue
        if redirect.type == "<<<":
            return _word_text(target)
        if redirect.type == "<":
            subs = [p for p in target.parts if getattr(p, "kind", "") == "processsubstitution"]
            return output_of(subs[0].command) if subs else Output(FILES, files=[target.word])
    return None


def _word_text(word: Node) -> Output:
    """A word used as text: its value, or what the substitution it consists of prints."""
    subs = [p for p in getattr(word, "parts", None) or [] if getattr(p, "kind", "") in SUBSTITUTIONS]
    if subs:
        return output_of(subs[0].command)
    if is_dynamic(word.word):
        return Output(PROGRAM, "a variable")
    return Output(TEXT, word.word)


def _echo(rest: list[str]) -> Output:
    flags = ""
    while rest and re.fullmatch(r"-[neE]+", rest[0]):
        flags, rest = flags + rest[0][1:], rest[1:]
    text = " ".join(rest)  # with $(…) or $VAR as written: checked as code, they are what runs
    if "e" in flags and _ESCAPES.search(text):
        return Output(DECODED, "echo -e")
    return Output(TEXT, text.replace("\\n", "\n") if "e" in flags else text)


def _printf(rest: list[str]) -> Output:
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if not rest or any(is_dynamic(w) for w in rest):
        return Output(PROGRAM, "printf of a value known only at run time")
    fmt, values = rest[0], rest[1:]
    if _ESCAPES.search(fmt) or ("%b" in fmt and any(_ESCAPES.search(v) for v in values)):
        return Output(DECODED, "printf")
    pieces = iter(values)
    text = re.sub(r"%[sb]", lambda _: next(pieces, ""), fmt)
    return Output(TEXT, text.replace("\\n", "\n").replace("\\t", "\t"))
