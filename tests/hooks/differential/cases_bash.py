"""bash cases: the shared sh-like table, then what only bash has (readline modes, PROMPT_COMMAND,
bash-preexec, shadowed builtins)."""

from __future__ import annotations

from . import cases_posix as posix
from .driver import Group, case

GROUPS = [
    Group("simple", posix.SIMPLE),
    Group("continuations", posix.CONTINUATIONS),
    Group("typing", posix.TYPING),
    Group("routed", posix.ROUTED),
]
