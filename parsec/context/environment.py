"""Facts about a working directory: files, git status, project type and tools on PATH.

Each probe is bounded (a listing cap, a git timeout) so a huge or slow directory never
holds a step up.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

MAX_LISTED_FILES = 40
GIT_TIMEOUT_S = 2.0

# Marker file -> project type (values of parsec.models.session.ProjectType).
PROJECT_MARKERS: list[tuple[str, str]] = [
    ("Cargo.toml", "rust"),
    ("pyproject.toml", "python"),
    ("setup.py", "python"),
    ("requirements.txt", "python"),
    ("package.json", "node"),
    ("go.mod", "go"),
    ("build.gradle.kts", "kotlin"),
    ("pom.xml", "java"),
    ("build.gradle", "java"),
    ("Gemfile", "ruby"),
    ("composer.json", "php"),
    ("mix.exs", "elixir"),
    ("stack.yaml", "haskell"),
    ("CMakeLists.txt", "c_cpp"),
    ("main.tf", "terraform"),
    ("Dockerfile", "docker"),
]

KNOWN_TOOLS = [
    "git", "docker", "podman", "kubectl", "make", "cargo", "go", "python3", "pip", "uv", "poetry",
    "node", "npm", "pnpm", "yarn", "bun", "rg", "fd", "jq", "terraform", "gh",
]


def detected_files(cwd: str) -> list[str]:
    """Names in `cwd` (directories end with /), sorted, hidden ones left out, at most 40."""
    try:
        with os.scandir(cwd) as entries:
            names = sorted(
                entry.name + ("/" if entry.is_dir(follow_symlinks=False) else "")
                for entry in entries
                if not entry.name.startswith(".")
            )
    except OSError:
        return []
    if len(names) > MAX_LISTED_FILES:
        return names[:MAX_LISTED_FILES] + [f"... {len(names) - MAX_LISTED_FILES} more"]
    return names


def project_type(cwd: str) -> str | None:
    for marker, kind in PROJECT_MARKERS:
        if os.path.exists(os.path.join(cwd, marker)):
            return kind
    return None


def repo_root(cwd: str) -> Path | None:
    """The nearest directory at or above `cwd` that holds a .git entry."""
    path = Path(cwd).resolve()
    for directory in (path, *path.parents):
        if (directory / ".git").exists():
            return directory
    return None


def git_status(cwd: str) -> str:
    """`not_a_repository`, `clean`, or a one-line summary such as `branch main: 2 modified, 1 untracked`."""
    if repo_root(cwd) is None:
        return "not_a_repository"
    try:
        result = subprocess.run(
            ["git", "status", "--porcelain=v1", "--branch"],
            cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    if result.returncode != 0:
        return "unknown"
    lines = result.stdout.splitlines()
    branch = ""
    if lines and lines[0].startswith("## "):
        branch = lines.pop(0)[3:].split("...")[0]
    counts = {"modified": 0, "added": 0, "deleted": 0, "untracked": 0}
    for line in lines:
        code = line[:2]
        if code == "??":
            counts["untracked"] += 1
        elif "A" in code:
            counts["added"] += 1
        elif "D" in code:
            counts["deleted"] += 1
        else:
            counts["modified"] += 1
    changes = ", ".join(f"{n} {name}" for name, n in counts.items() if n)
    prefix = f"branch {branch}: " if branch else ""
    return prefix + (changes or "clean")


def detected_tools() -> list[str]:
    return [tool for tool in KNOWN_TOOLS if shutil.which(tool)]


def snapshot(cwd: str) -> dict[str, object]:
    """The seed's `current_environment`: working directory, files, git status, project type."""
    return {
        "working_directory": cwd,
        "detected_files": detected_files(cwd),
        "git_status": git_status(cwd),
        "project_type": project_type(cwd),
    }
