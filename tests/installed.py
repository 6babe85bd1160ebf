"""The `parsec` command as a user runs it: the console script installed with the tests' Python."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def installed_parsec() -> Path:
    """Beside the interpreter in a virtualenv or pyenv; elsewhere (pip's /usr/local/bin) on PATH."""
    beside = Path(sys.executable).with_name("parsec")
    if beside.exists():
        return beside
    found = shutil.which("parsec")
    assert found, "the parsec command is not installed (pip install -e .)"
    return Path(found)
