"""The shell hook scripts, read from the installed package (standard library only)."""

from __future__ import annotations

import sys
from pathlib import Path

SHELLS = ("bash", "zsh", "fish")


def hook_path(shell: str) -> Path:
    here = Path(__file__).resolve().parent.parent
    return here / "hooks" / f"parsec.{shell}"


def print_hook(shell: str) -> int:
    if shell not in SHELLS:
        sys.stderr.write(f"parsec: unknown shell '{shell}' (choose one of: {', '.join(SHELLS)})\n")
        return 2
    try:
        text = hook_path(shell).read_text()
    except OSError as err:
        sys.stderr.write(f"parsec: hook script for {shell} is missing ({err.strerror}); reinstall parsec\n")
        return 1
    sys.stdout.write(text)
    return 0
