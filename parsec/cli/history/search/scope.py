"""Filter modes: which recorded commands the search looks at, as `parsec history` filters."""

from __future__ import annotations

import os
from collections import namedtuple

from ....store.history import HistoryQuery

# The order Ctrl-R steps through them (Ctrl-S steps through the match modes, store.search.MODES).
FILTERS = ("everywhere", "directory", "tree", "repo", "session", "host", "failed")


# Where the search was opened from. A namedtuple, not a dataclass: dataclasses imports inspect and
# ast, too slow for Ctrl-R's start-up.
Here = namedtuple("Here", ["cwd", "session_id", "host"])


def repo_root(cwd: str) -> str | None:
    """The git work tree holding `cwd` (a `.git` directory or file above it), without running git."""
    path = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def scope_query(mode: str, here: Here) -> HistoryQuery | None:
    """The filters of `mode`; None when it cannot apply here (no repository, no known session)."""
    if mode == "directory":
        return HistoryQuery(cwd=here.cwd)
    if mode == "tree":
        return HistoryQuery(cwd=here.cwd, cwd_subtree=True)
    if mode == "repo":
        root = repo_root(here.cwd)
        return HistoryQuery(cwd=root, cwd_subtree=True) if root else None
    if mode == "session":
        return HistoryQuery(session_id=here.session_id) if here.session_id else None
    if mode == "host":
        return HistoryQuery(host=here.host)
    if mode == "failed":
        return HistoryQuery(failed=True)
    return HistoryQuery()


def next_filter(mode: str, here: Here) -> str:
    """The next mode that applies here."""
    at = FILTERS.index(mode) if mode in FILTERS else 0
    for step in range(1, len(FILTERS) + 1):
        candidate = FILTERS[(at + step) % len(FILTERS)]
        if scope_query(candidate, here) is not None:
            return candidate
    return "everywhere"
