"""Shell-syntax evidence: the shape of each argument, and a real parse (bashlex) of lines whose
operators or keywords claim a shell structure."""

from __future__ import annotations

import re
from functools import lru_cache

from ..bashlex_tables import load_bashlex
from .lexer import Word

MAX_PARSE_CHARS = 1000  # bashlex is pure Python; past this the lexer's evidence is enough

_NUMBER = re.compile(r"^[+-]?\d[\d.,:%kKmMgGsx]*$")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://|^[\w.-]+@[\w.-]+:")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_FILE_NAME = re.compile(r"^[\w.+-]*\w\.[A-Za-z0-9]{1,6}$")  # README.md, main.c, a.tar.gz
_GLOB_CHARS = frozenset("*?[")


def arg_kind(word: Word) -> str:
    """flag, assignment, url, path, glob, number, quoted, placeholder, name (identifier-ish) or word."""
    text = word.text
    if word.quoted:
        return "quoted"
    if text[:1] == "<" and text[-1:] == ">" and len(text) > 2:
        return "placeholder"  # <name> in a usage line or a question
    if not text:
        return "name"
    if text[0] == "-" and len(text) > 1 and text != "--":
        return "flag" if not text[1:].isdigit() or len(text) == 2 else "number"  # `ls -1`, `telnet -4`
    if _ASSIGNMENT.match(text):
        return "assignment"
    if _URL.match(text):
        return "url"
    if text[0] in "/~." or "/" in text:
        return "path"
    if any(ch in _GLOB_CHARS for ch in text[:-1]) or (text.endswith("*")):
        return "glob"
    if _NUMBER.match(text):
        return "number"
    if _FILE_NAME.match(text) and not text.endswith("."):
        return "path"
    core = text.rstrip(",.;:!?")
    if len(core) == 1 and core.lower() not in ("a", "i"):
        return "name"  # `mv a b`, `tar x f`: single letters are names, not English
    if core.replace("'", "").replace("-", "").isalpha() and core.count("-") <= 1:
        return "word"
    return "name"  # foo_bar, v1.2, HEAD~3, user@host, {a,b}


_CASE = re.compile(r"\bcase\s.*?\besac\b", re.DOTALL)


def _bashlex(line: str) -> list | None:
    try:
        return load_bashlex().parse(line)
    except Exception:  # bashlex raises its own errors, and occasionally others, on bad input
        return None


@lru_cache(maxsize=4096)
def parses_as_shell(line: str) -> str | None:
    """The top bashlex node kind ("command", "pipeline", "list", "compound", ...) or None when the
    line is not valid shell (or too long to parse on the hot path)."""
    if len(line) > MAX_PARSE_CHARS:
        return None
    nodes = _bashlex(line)
    if nodes is None and "esac" in line:  # bashlex cannot parse `case`: judge the rest of the line
        nodes = _bashlex(_CASE.sub(":", line))
    if not nodes:
        return None
    kinds = {node.kind for node in nodes}
    for kind in ("compound", "pipeline", "list", "function", "command"):
        if kind in kinds:
            return kind
    return next(iter(kinds))
