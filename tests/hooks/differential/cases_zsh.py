"""zsh cases: the shared sh-like table, then what only zsh has (zle keymaps, precmd_functions,
options)."""

from __future__ import annotations

from . import cases_posix as posix
from .driver import Group, case

GROUPS = [
    Group("simple", posix.SIMPLE),
    Group("continuations", posix.CONTINUATIONS),
    Group("typing", posix.TYPING),
    Group("routed", posix.ROUTED),
]
