"""What a step changed: files (git status in a repository, a bounded snapshot otherwise) and the
shell's environment (cwd, exported variables, PATH)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field

from ...models.context import ArtifactInfo, EnvironmentChange

SNAPSHOT_LIMIT = 5000  # files; a step in a huge tree outside git reports what it can
SNAPSHOT_DEPTH = 4
_NOISY_VARIABLES = {"PWD", "OLDPWD", "_", "SHLVL", "COLUMNS", "LINES", "PS1", "PS2", "PROMPT_COMMAND"}
_SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", "target"}


@dataclass
class FileSnapshot:
    root: str
    files: dict[str, tuple[float, int]] = field(default_factory=dict)  # path → (mtime, size)
    git: dict[str, str] | None = None  # path → porcelain status, inside a repository


def take_snapshot(root: str) -> FileSnapshot:
    snapshot = FileSnapshot(root=root)
    snapshot.git = _git_status(root)
    count = 0
    base_depth = root.rstrip("/").count("/")
    for directory, dirs, names in os.walk(root):
        # .venv, node_modules ...: recorded (a new one is an artifact), never walked into.
        unwalked = [d for d in dirs if d in _SKIP_DIRS]
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        if directory.count("/") - base_depth >= SNAPSHOT_DEPTH:
            dirs[:] = []
        for name in names + dirs + unwalked:  # new directories are artifacts too
            path = os.path.join(directory, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            # A directory's mtime changes with its content; only its existence matters.
            is_dir = name not in names and os.path.isdir(path)
            snapshot.files[path] = (0.0, 0) if is_dir else (info.st_mtime, info.st_size)
            count += 1
            if count >= SNAPSHOT_LIMIT:
                return snapshot
    return snapshot


def artifacts_between(before: FileSnapshot, after: FileSnapshot, step_index: int) -> list[ArtifactInfo]:
    if before.git is not None and after.git is not None and before.root == after.root:
        return _git_artifacts(before, after, step_index)
    out: list[ArtifactInfo] = []
    for path, (mtime, size) in after.files.items():
        previous = before.files.get(path)
        if previous is None:
            out.append(ArtifactInfo(path=path, change="created", size_bytes=size, step_index=step_index))
        elif previous != (mtime, size):
            out.append(ArtifactInfo(path=path, change="modified", size_bytes=size, step_index=step_index))
    for path in before.files.keys() - after.files.keys():
        if before.root == after.root or not os.path.exists(path):
            out.append(ArtifactInfo(path=path, change="deleted", step_index=step_index))
    return sorted(out, key=lambda a: a.path)


def _git_artifacts(before: FileSnapshot, after: FileSnapshot, step_index: int) -> list[ArtifactInfo]:
    out: list[ArtifactInfo] = []
    assert before.git is not None and after.git is not None
    for path, status in after.git.items():
        changed = before.git.get(path) != status or before.files.get(path) != after.files.get(path)
        if not changed:
            continue
        if "D" in status:
            change = "deleted"
        elif status.startswith("??") or "A" in status:
            change = "created"
        else:
            change = "modified"
        size = after.files.get(path, (0, None))[1]
        out.append(ArtifactInfo(path=path, change=change, size_bytes=size, step_index=step_index))
    for path in after.files.keys() - before.files.keys():  # git names files, never a new directory
        if path not in after.git and os.path.isdir(path):
            out.append(ArtifactInfo(path=path, change="created", step_index=step_index))
    return sorted(out, key=lambda a: a.path)


def _git_status(root: str) -> dict[str, str] | None:
    """Each changed path's porcelain status (absolute paths), or None outside a work tree."""
    toplevel = _work_tree_top(root)
    if toplevel is None:
        return None
    try:
        result = subprocess.run(
            ["git", "-C", root, "status", "--porcelain=v1", "-z", "--untracked-files=all"],
            capture_output=True,
            timeout=5,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
        if result.returncode != 0:  # not a work tree after all (a bare repository, an unsafe owner…)
            return None
        if not toplevel:
            top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True, timeout=5)
            if top.returncode != 0:
                return None
            toplevel = top.stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    entries: dict[str, str] = {}
    fields = result.stdout.decode("utf-8", "replace").split("\0")
    i = 0
    while i < len(fields):
        item = fields[i]
        if len(item) > 3:
            status, path = item[:2], item[3:]
            entries[os.path.join(toplevel, path)] = status
            if "R" in status or "C" in status:
                i += 1  # the next field is the rename's source
        i += 1
    return entries


def _work_tree_top(root: str) -> str | None:
    """The directory holding the `.git` that git would find from `root` (its porcelain paths are
    relative to it), None when there is none, "" when only git can tell ($GIT_DIR or
    $GIT_WORK_TREE set). Looked up here, not by git: a snapshot is taken before and after every
    command, and outside a repository this spares both git processes."""
    if "GIT_DIR" in os.environ or "GIT_WORK_TREE" in os.environ:
        return ""
    path = os.path.realpath(root)
    while True:
        if os.path.lexists(os.path.join(path, ".git")):  # a directory, or a worktree's or submodule's file
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def environment_changes(
    before_cwd: str,
    after_cwd: str,
    before_env: dict[str, str],
    after_env: dict[str, str],
    step_index: int,
    mask=lambda value: value,
) -> list[EnvironmentChange]:
    out: list[EnvironmentChange] = []
    # A session masker also hides (and remembers) the whole value of a secret-named variable.
    shown = getattr(mask, "value", None) or (lambda name, value: mask(value))
    if before_cwd != after_cwd:
        out.append(EnvironmentChange(kind="cwd", old_value=before_cwd, new_value=after_cwd, step_index=step_index))
    for name in sorted(before_env.keys() | after_env.keys()):
        if name in _NOISY_VARIABLES or name.startswith("PARSEC_SHELL"):
            continue
        old, new = before_env.get(name), after_env.get(name)
        if old != new:
            kind = "path" if name == "PATH" else "env_var"
            out.append(
                EnvironmentChange(
                    kind=kind,
                    name=name,
                    old_value=None if old is None else shown(name, old),
                    new_value=None if new is None else shown(name, new),
                    step_index=step_index,
                )
            )
    return out
