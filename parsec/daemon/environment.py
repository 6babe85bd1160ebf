"""What a session's GlobalContext says about where the user works: project type and tools.

Both are looked up on the daemon's event loop, so results are cached per directory / PATH.
"""

from __future__ import annotations

import os
import shutil
from functools import lru_cache
from pathlib import Path

from ..models.session import ProjectType

# First match wins, so the more specific markers come first (a Rust crate may also ship a Dockerfile).
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

# Tools worth telling an LLM about when they are installed or used.
KNOWN_TOOLS = (
    "git", "cargo", "rustc", "npm", "pnpm", "yarn", "node", "deno", "bun", "python3", "pip", "uv",
    "poetry", "go", "java", "mvn", "gradle", "docker", "podman", "kubectl", "helm", "terraform",
    "make", "cmake", "gcc", "clang", "ruby", "bundle", "php", "composer", "dotnet", "mix", "stack",
    "aws", "gcloud", "az", "ansible", "psql", "sqlite3", "redis-cli", "gh", "jq", "tmux", "nix",
)
_KNOWN = frozenset(KNOWN_TOOLS)
_MAX_PARENTS = 12  # how far up from the cwd a project marker is looked for


@lru_cache(maxsize=512)
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


@lru_cache(maxsize=64)
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
