"""Which code a process runs: a fingerprint of the package's source files (name, size, mtime).

An upgrade, or a `git pull` in an editable install, changes the code without always changing
`__version__`; a daemon started before it keeps running the old code. The daemon reports the
fingerprint it started with (`status`), and `parsec --version`, `parsec daemon status` and doctor
compare it with the CLI's own. Standard library only.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import parsec

STALE = "the daemon runs older code than this parsec (started before an upgrade)"
STALE_HINT = f"{STALE}: `parsec daemon restart`"


@functools.cache
def code_id() -> str:
    """12 hex digits; the same for the same source tree (~2 ms for the package's ~200 files)."""
    root = Path(parsec.__file__).parent
    digest = hashlib.sha256(parsec.__version__.encode())
    for directory, subdirs, files in sorted(os.walk(root)):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                info = os.stat(os.path.join(directory, name))
                relative = os.path.relpath(os.path.join(directory, name), root)
                digest.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:12]


def describe(version: str, code: str) -> str:
    return f"{version} (code {code})" if code else version


def stale(daemon_code_id: str) -> bool:
    """Whether the daemon whose `status` said `daemon_code_id` runs other code than this process."""
    return bool(daemon_code_id) and daemon_code_id != code_id()
