"""Static checks run with the tests, so the README's one test command covers them too: ruff's
lint rules and formatting, and mypy on the package, as configured in pyproject.toml
(lint-imports: test_architecture.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHECKED = ["parsec", "tests", "bench", "scripts"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize(
    "check",
    [("ruff", "check", "--no-cache"), ("ruff", "format", "--check", "--no-cache")],
    ids=["ruff check", "ruff format"],
)
def test_ruff(check):
    result = _run(*check, *CHECKED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy():
    # Incremental, with the cache in .mypy_cache (cache_dir in pyproject.toml): a run after a few
    # edits re-checks those modules and the ones that depend on them, ~2 s instead of ~40 s cold
    # (a type error planted in one module, or a changed signature its callers break on, still fails).
    result = _run("mypy")  # files and settings: [tool.mypy] in pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr
