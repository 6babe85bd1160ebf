"""Facts about a working directory: files, git status, project type and tools on PATH.

Each probe is bounded (a listing cap, a git timeout) so a huge or slow directory never
holds a step up.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .models.session import ProjectType

MAX_LISTED_FILES = 40
GIT_TIMEOUT_S = 2.0

# First match wins, so the more specific markers come first: a Go module that ships a
# pyproject.toml for its tooling is a Go project, a Rust crate with a Dockerfile a Rust one.
PROJECT_MARKERS: list[tuple[str, ProjectType]] = [
    ("Cargo.toml", ProjectType.rust),
    ("go.mod", ProjectType.go),
    ("pyproject.toml", ProjectType.python),
    ("setup.py", ProjectType.python),
    ("setup.cfg", ProjectType.python),
    ("requirements.txt", ProjectType.python),
    ("Pipfile", ProjectType.python),
    ("package.json", ProjectType.node),
    ("build.gradle.kts", ProjectType.kotlin),
    ("pom.xml", ProjectType.java),
    ("build.gradle", ProjectType.java),
    ("Gemfile", ProjectType.ruby),
    ("composer.json", ProjectType.php),
    ("mix.exs", ProjectType.elixir),
    ("stack.yaml", ProjectType.haskell),
    ("CMakeLists.txt", ProjectType.c_cpp),
    ("meson.build", ProjectType.c_cpp),
    ("main.tf", ProjectType.terraform),
    ("Dockerfile", ProjectType.docker),
    ("docker-compose.yml", ProjectType.docker),
    ("compose.yaml", ProjectType.docker),
]
_SUFFIX_MARKERS = [(".csproj", ProjectType.dotnet), (".sln", ProjectType.dotnet), (".cabal", ProjectType.haskell)]
_MAX_PARENTS = 12  # how far up from the cwd a project marker is looked for

# Tools worth telling an LLM about when they are installed or used.
KNOWN_TOOLS = (
    "git",
    "cargo",
    "rustc",
    "npm",
    "pnpm",
    "yarn",
    "node",
    "deno",
    "bun",
    "python3",
    "pip",
    "uv",
    "poetry",
    "go",
    "java",
    "mvn",
    "gradle",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "make",
    "cmake",
    "gcc",
    "clang",
    "ruby",
    "bundle",
    "php",
    "composer",
    "dotnet",
    "mix",
    "stack",
    "aws",
    "gcloud",
    "az",
    "ansible",
    "psql",
    "sqlite3",
    "redis-cli",
    "gh",
    "jq",
    "tmux",
    "nix",
    "rg",
    "fd",
)
_KNOWN = frozenset(KNOWN_TOOLS)


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


def detect_project_type(cwd: str) -> ProjectType | None:
    """The project type from marker files in `cwd` or its nearest ancestor that has one."""
    if not cwd or not os.path.isabs(cwd):
        return None
    home = os.path.expanduser("~")
    directory = Path(cwd)
    for _ in range(_MAX_PARENTS):
        found = _markers_in(directory)
        if found is not None:
            return found
        if str(directory) in (home, directory.anchor) or directory.parent == directory:
            return None
        directory = directory.parent
    return None


def _markers_in(directory: Path) -> ProjectType | None:
    try:
        names = set(os.listdir(directory))
    except OSError:
        return None
    for marker, kind in PROJECT_MARKERS:
        if marker in names:
            return kind
    for name in names:
        for suffix, kind in _SUFFIX_MARKERS:
            if name.endswith(suffix):
                return kind
    return None


def project_type(cwd: str) -> str | None:
    """`detect_project_type` as the plain string the model's context carries."""
    found = detect_project_type(cwd)
    return found.value if found is not None else None


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
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
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
    return list(tools_on_path(os.environ.get("PATH", "")))


def tools_on_path(path_value: str) -> tuple[str, ...]:
    """The known tools that `PATH=path_value` finds."""
    return tuple(tool for tool in KNOWN_TOOLS if shutil.which(tool, path=path_value or None))


def tool_of(command: str) -> str | None:
    """The known tool a command line starts with (`sudo`/`env` prefixes skipped), if any."""
    for word in command.split()[:4]:
        if "=" in word or word in ("sudo", "env", "time", "command", "exec", "nohup"):
            continue
        name = os.path.basename(word)
        return name if name in _KNOWN else None
    return None


def snapshot(cwd: str) -> dict[str, object]:
    """The seed's `current_environment`: working directory, files, git status, project type."""
    return {
        "working_directory": cwd,
        "detected_files": detected_files(cwd),
        "git_status": git_status(cwd),
        "project_type": project_type(cwd),
    }
