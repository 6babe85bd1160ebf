"""What the first word is to the shell: alias, function, builtin, keyword, file on PATH, or nothing.

The hook sends the real answer (`type -t`); without it (batch mode, tests) the classifier looks
the word up itself: bash's keyword and builtin lists, then PATH (cached, refreshed when PATH
changes).
"""

from __future__ import annotations

import os

KEYWORDS = frozenset(
    "if then else elif fi case esac for select while until do done in function time coproc { } ! [[ ]]".split()
)
BUILTINS = frozenset(
    """. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare
    dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let
    local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source
    suspend test times trap true type typeset ulimit umask unalias unset wait""".split()
)
# Words that only hand the rest of the line to another command; the real command follows them.
WRAPPERS = frozenset("sudo doas env nohup nice ionice time command exec builtin stdbuf chronic xargs watch".split())


class PathIndex:
    """Executable names on PATH, listed once per distinct PATH value."""

    def __init__(self, path: str | None = None) -> None:
        self._path: str | None = None
        self._names: frozenset[str] = frozenset()
        self.refresh(path)

    def refresh(self, path: str | None = None) -> None:
        path = os.environ.get("PATH", "") if path is None else path
        if path == self._path:
            return
        names: set[str] = set()
        for directory in path.split(os.pathsep):
            try:
                with os.scandir(directory or ".") as entries:
                    for entry in entries:
                        names.add(entry.name)
            except OSError:
                continue
        self._path, self._names = path, frozenset(names)

    def __contains__(self, name: str) -> bool:
        return name in self._names


def resolve(word: str, path_index: PathIndex) -> str:
    """The `type -t`-style kind of `word`: keyword, builtin, file or none."""
    if word in KEYWORDS:
        return "keyword"
    if word in BUILTINS:
        return "builtin"
    if "/" in word:
        try:
            return "file" if os.access(os.path.expanduser(word), os.X_OK) else "none"
        except ValueError:  # an embedded NUL byte: no such file
            return "none"
    if word in path_index:
        return "file"
    return "none"
