"""The real-model bench's task suite: what a user types, how its directory is seeded, and the check
that decides success from the resulting state or the output (bench/realmodel.py runs them)."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Task:
    name: str
    prompt: str
    seed: Callable[[Path], None]
    check: Callable[[Path, str], bool]  # (the task's directory, all output seen) -> success


def write(files: dict[str, str | bytes]) -> Callable[[Path], None]:
    def seed(root: Path) -> None:
        for name, content in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)

    return seed


def git_repo(commits: int = 3, branch: str = "main", dirty: str = "") -> Callable[[Path], None]:
    def seed(root: Path) -> None:
        env = {**os.environ, "GIT_AUTHOR_NAME": "Bench Author", "GIT_AUTHOR_EMAIL": "bench@example.com"}
        env.update(GIT_COMMITTER_NAME="Bench Author", GIT_COMMITTER_EMAIL="bench@example.com")

        def git(*args: str) -> None:
            subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

        git("init", "-q", "-b", branch)
        for number in range(commits):
            (root / f"file{number}.txt").write_text(f"version {number}\n")
            git("add", ".")
            git("commit", "-q", "-m", f"change {number}")
        if dirty:
            (root / dirty).write_text("edited\n")

    return seed


def both(*seeds: Callable[[Path], None]) -> Callable[[Path], None]:
    def seed(root: Path) -> None:
        for one in seeds:
            one(root)

    return seed


def says(*needles: str, not_: tuple[str, ...] = ()) -> Callable[[Path, str], bool]:
    """The output names every needle as a word, and none of `not_` (a listing of everything is
    not an answer that picks some)."""

    def named(text: str, out: str) -> bool:
        return re.search(rf"(?<![\w.]){re.escape(text)}(?![\w])", out) is not None

    return lambda root, out: all(named(n, out) for n in needles) and not any(named(n, out) for n in not_)


def exists(*names: str, absent: tuple[str, ...] = ()) -> Callable[[Path, str], bool]:
    return lambda root, out: all((root / n).exists() for n in names) and not any((root / n).exists() for n in absent)


def _aged(name: str, days: float) -> Callable[[Path], None]:
    def seed(root: Path) -> None:
        stamp = time.time() - days * 86400
        os.utime(root / name, (stamp, stamp))

    return seed


def _archive_without_git(root: Path, out: str) -> bool:
    path = root / "out.tar.gz"
    if not path.exists():
        return False
    try:
        with tarfile.open(path) as tar:
            names = tar.getnames()
    except (tarfile.TarError, OSError):
        return False
    return any(n.endswith("main.py") for n in names) and not any("/.git/" in f"/{n}/" for n in names)


def _tarball(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "inside.txt").write_text("packed\n")
    with tarfile.open(root / "archive.tar.gz", "w:gz") as tar:
        tar.add(root / "pkg" / "inside.txt", arcname="inside.txt")
    (root / "pkg" / "inside.txt").unlink()
    (root / "pkg").rmdir()


LOG = "".join(
    f'10.0.0.{i % 7} - - [01/Jan/2026] "GET /p{i} HTTP/1.1" {404 if i % 5 == 0 else 200} 512\n' for i in range(40)
)
SALES = "region,amount\nnorth,120\nsouth,80\neast,45\nwest,55\n"

TASKS: list[Task] = [
    Task(
        "biggest-files",
        "show the three biggest files in this directory",
        write({"huge.bin": b"x" * 90000, "large.bin": b"x" * 60000, "medium.bin": b"x" * 30000, "tiny.txt": "t"}),
        says("huge.bin", "large.bin", "medium.bin", not_=("tiny.txt",)),
    ),
    Task(
        "lines-python",
        "count the lines of all python files here, in total",
        write({"a.py": "a\n" * 10, "b.py": "b\n" * 5, "notes.txt": "n\n" * 3}),
        says("15"),
    ),
    Task(
        "archive-no-git",
        "make a tar.gz archive of this directory named out.tar.gz without the .git folder",
        both(git_repo(1), write({"main.py": "print(1)\n"})),
        _archive_without_git,
    ),
    Task(
        "rename-ext",
        "rename every .txt file here to .md",
        write({"a.txt": "a", "b.txt": "b"}),
        exists("a.md", "b.md", absent=("a.txt", "b.txt")),
    ),
    Task(
        "changed-files",
        "which files have uncommitted changes in this git repository",
        git_repo(2, dirty="file1.txt"),
        says("file1.txt"),
    ),
    Task(
        "listening-ports",
        "which TCP ports are listening on this machine",
        write({}),
        lambda root, out: bool(re.search(r"(LISTEN|:\d{2,5}\b)", out)),
    ),
    Task("venv", "create a python virtual environment in .venv", write({}), exists(".venv/bin/python")),
    Task("commit-count", "how many commits are in this git repository", git_repo(3), says("3")),
    Task("last-author", "who made the last commit in this repository", git_repo(2), says("Bench Author")),
    Task("csv-total", "what is the sum of the amount column in sales.csv", write({"sales.csv": SALES}), says("300")),
    Task(
        "count-files", "how many files are in this directory", write({f"f{i}.dat": str(i) for i in range(7)}), says("7")
    ),
    Task("mkdir", "make a directory called build", write({}), exists("build")),
    Task(
        "write-file",
        "create a file notes.txt containing the text hello world",
        write({}),
        lambda root, out: (root / "notes.txt").exists() and "hello world" in (root / "notes.txt").read_text(),
    ),
    Task(
        "delete-logs",
        "delete all .log files in this directory",
        write({"a.log": "1", "b.log": "2", "keep.txt": "k"}),
        exists("keep.txt", absent=("a.log", "b.log")),
    ),
    Task(
        "grep-todo",
        "find the files that contain the word TODO",
        write({"one.py": "# TODO fix\n", "two.py": "done\n", "three.md": "TODO: docs\n"}),
        lambda root, out: "one.py" in out and "three.md" in out and "two.py" not in out,
    ),
    Task(
        "disk-usage",
        "how much disk space does this directory use",
        write({"blob.bin": b"x" * 200000}),
        lambda root, out: bool(re.search(r"\d+(\.\d+)?\s*[KMG]", out)),
    ),
    Task(
        "replace-text",
        "replace foo with bar in config.ini",
        write({"config.ini": "name=foo\npath=/foo/x\n"}),
        lambda root, out: (root / "config.ini").read_text() == "name=bar\npath=/bar/x\n",
    ),
    Task(
        "sort-file",
        "sort the lines of names.txt alphabetically into sorted.txt",
        write({"names.txt": "carol\nalice\nbob\n"}),
        lambda root, out: (
            (root / "sorted.txt").exists() and (root / "sorted.txt").read_text().split() == ["alice", "bob", "carol"]
        ),
    ),
    Task("count-404", "how many lines in access.log contain a 404 status", write({"access.log": LOG}), says("8")),
    Task(
        "head-csv",
        "show the first 3 lines of sales.csv",
        write({"sales.csv": SALES}),
        says("region,amount", "south,80"),
    ),
    Task(
        "recent-files",
        "which python files were modified in the last day",
        both(write({"old.py": "o", "new.py": "n"}), _aged("old.py", 5)),
        lambda root, out: "new.py" in out and "old.py" not in out,
    ),
    Task(
        "chmod",
        "make script.sh executable",
        write({"script.sh": "#!/bin/sh\necho hi\n"}),
        lambda root, out: os.access(root / "script.sh", os.X_OK),
    ),
    Task("git-init", "turn this directory into a git repository", write({"a.txt": "a"}), exists(".git")),
    Task("branch", "what is the current git branch", git_repo(1, branch="feature-x"), says("feature-x")),
    Task(
        "gzip",
        "compress report.txt with gzip",
        write({"report.txt": "report\n" * 50}),
        lambda root, out: (
            (root / "report.txt.gz").exists()
            and gzip.decompress((root / "report.txt.gz").read_bytes()).startswith(b"report")
        ),
    ),
    Task("extract", "extract archive.tar.gz here", _tarball, exists("inside.txt")),
    Task("unique-ips", "how many unique IP addresses are in access.log", write({"access.log": LOG}), says("7")),
    Task(
        "largest-in-src",
        "find the largest file under src, recursively",
        write({"src/a/small.c": "x" * 10, "src/b/c/biggest.c": "x" * 5000, "src/mid.c": "x" * 900}),
        says("biggest.c"),
    ),
    Task(
        "copy-jpg",
        "copy all .jpg files into a folder called images",
        write({"a.jpg": b"\xff\xd8a", "b.jpg": b"\xff\xd8b", "c.png": b"p"}),
        lambda root, out: (
            (root / "images/a.jpg").exists() and (root / "images/b.jpg").exists() and (root / "a.jpg").exists()
        ),
    ),
    Task(
        "word-count",
        "how many words are in essay.txt",
        write({"essay.txt": "one two three four five six\nseven eight nine\n"}),
        says("9"),
    ),
    Task(
        "duplicates",
        "which lines appear more than once in list.txt",
        write({"list.txt": "apple\npear\napple\nplum\npear\nfig\n"}),
        lambda root, out: "apple" in out and "pear" in out and "plum" not in out.replace("list.txt", ""),
    ),
    Task(
        "python-version",
        "which version of python is installed",
        write({}),
        lambda root, out: "Python 3" in out or bool(re.search(r"\b3\.\d+\.\d+", out)),
    ),
    Task(
        "version-dir",
        "read the version number in VERSION, then create a directory named release-<that version>",
        write({"VERSION": "1.4.2\n"}),
        exists("release-1.4.2"),
    ),
    Task(
        "env-count",
        "count the lines in every .txt file and write the total to total.txt",
        write({"x.txt": "1\n2\n", "y.txt": "3\n4\n5\n"}),
        lambda root, out: (root / "total.txt").exists() and "5" in (root / "total.txt").read_text(),
    ),
]
