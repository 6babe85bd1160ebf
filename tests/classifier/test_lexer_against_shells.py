"""The lexer's `substitution` and `truncates` against what bash and zsh actually do before they
find that a command is missing: run each line in the real shell, in a directory holding a file F,
and see whether a command inside the line ran (MARK appears) or F was emptied. The danger rules
(danger.could_do_harm) rest on these two flags, so the shells, not our reading, are the truth."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from parsec.routing.lexer import lex

LINES = [
    "nosuchcmd `touch MARK`",
    'nosuchcmd "`touch MARK`"',
    'nosuchcmd "\\`touch MARK\\`"',
    "nosuchcmd '`touch MARK`'",
    "nosuchcmd \\`touch MARK\\`",
    "nosuchcmd $(touch MARK)",
    'nosuchcmd "$(touch MARK)"',
    "nosuchcmd $((1+2))",
    "nosuchcmd > F",
    "nosuchcmd >> F",
    "nosuchcmd 2> F",
    "nosuchcmd &> F",
    "nosuchcmd &>> F",
    "nosuchcmd >| F",
    "nosuchcmd 2>&1",
    "nosuchcmd >&2",
    "nosuchcmd < F",
]


def what_the_shell_did(shell: str, line: str, where: Path) -> tuple[bool, bool]:
    """(a command inside the line ran, F was emptied) when `shell` ran `line` in `where`."""
    (where / "F").write_text("keep\n")
    (where / "MARK").unlink(missing_ok=True)
    subprocess.run([shell, "-c", line], cwd=where, capture_output=True, timeout=10)
    return (where / "MARK").exists(), "keep" not in (where / "F").read_text()


@pytest.mark.parametrize("shell", ["bash", "zsh"])
@pytest.mark.parametrize("line", LINES)
def test_the_lexer_sees_what_the_shell_does_first(shell: str, line: str, tmp_path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    ran, emptied = what_the_shell_did(shell, line, tmp_path)
    lexed = lex(line)
    assert (lexed.substitution, lexed.truncates) == (ran, emptied)
