"""Every hook passes its shell's own checks: shellcheck for bash, `zsh -n`, and for fish both
`fish --no-execute` and `fish_indent --check` (the file is already in fish's own layout)."""

from __future__ import annotations

import subprocess

import pytest

from .conftest import need
from .harness import REPO

HOOKS = REPO / "shell-hooks"


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def test_shellcheck_bash():
    result = _run("shellcheck", "--shell=bash", "--severity=style", str(HOOKS / "parsec.bash"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_zsh_parses():
    need("zsh")
    result = _run("zsh", "-n", str(HOOKS / "parsec.zsh"))
    assert result.returncode == 0 and not result.stderr, result.stderr


@pytest.mark.parametrize("check", [["fish", "--no-execute"], ["fish_indent", "--check"]], ids=["no-execute", "indent"])
def test_fish(check):
    need(check[0])
    result = _run(*check, str(HOOKS / "parsec.fish"))
    assert result.returncode == 0 and not result.stderr, result.stdout + result.stderr
