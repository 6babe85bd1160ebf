"""Where a path in the command points, and whether writing to it or deleting it is dangerous."""

from __future__ import annotations

import os
import re

from .command_names import COPIERS
from .verdict import HIGH, MEDIUM, RiskVerdict
from .words import HOME_VARIABLE, expand_braces, is_dynamic, operands_of, option_values, path_operands

TRUNCATE_VALUE_OPTIONS = {"-s", "--size", "-r", "--reference"}

SYSTEM_DIRS = ("/etc", "/usr", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/var", "/opt", "/sys", "/proc", "/dev")
PROTECTED_WRITE_DIRS = ("/etc", "/usr", "/boot")
HARMLESS_DEVICES = {
    "/dev/null",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
}
BROAD_GLOBS = {"*", ".*", "./*", "/*", "~/*", "*/"}
# Files in the home directory that run in every new shell or session: writing one (even appending)
# makes code run later, unasked (persistence). System-wide ones are under /etc (protected anyway).
START_UP_FILES = {
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".xprofile",
    ".xinitrc",
    ".xsession",
    ".pam_environment",
}
START_UP_DIRS = (".config/fish", ".config/autostart", ".config/systemd/user", ".config/environment.d", ".bashrc.d")


def is_under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _harmless_device(path: str) -> bool:
    return path in HARMLESS_DEVICES or path.startswith(("/dev/fd/", "/dev/pts/"))


def is_device(path: str) -> bool:
    """A device file that a write could damage (a disk), not /dev/null or the terminal."""
    return path.startswith("/dev/") and not _harmless_device(path) and not path.startswith("/dev/shm/")


class PathChecks:
    """Paths resolved from where the line starts (`tree`), where the next command runs (`cwd`) and
    the home directory; the checks every rule shares for what a command writes or deletes."""

    def __init__(self, tree: str, cwd: str | None, home: str) -> None:
        self.tree = tree  # the original working directory: "inside the working tree" means under it
        self.cwd = cwd  # where the next command runs (a `cd` moves it); None once it is unknown
        self.home = home
        self.written: set[str] = set()  # the files an earlier command on the line writes

    def _resolve(self, target: str) -> str | None:
        """`target` as an absolute path; None when it hangs off a directory we cannot know."""
        text = HOME_VARIABLE.sub(lambda _: self.home, target)
        tilde = re.match(r"~([^/]*)", text)
        if tilde:
            base = self._tilde(tilde.group(1))
            if base is None:
                return None
            text = base + text[tilde.end() :]
        if not os.path.isabs(text):
            if self.cwd is None:
                return None
            text = os.path.join(self.cwd, text)
        return os.path.normpath(text)

    def _tilde(self, user: str) -> str | None:
        if user in ("", os.path.basename(self.home)):
            return self.home
        if user in ("+", "-"):  # ~+ is $PWD, ~- is $OLDPWD
            return self.cwd if user == "+" else None
        return "/root" if user == "root" else os.path.join(os.path.dirname(self.home), user)

    def _other_users_home(self, target: str) -> bool:
        tilde = re.match(r"~([^/+-][^/]*)", target)
        return tilde is not None and tilde.group(1) != os.path.basename(self.home)

    def _write_to(self, target: str, how: str, verdict: RiskVerdict, overwrite: bool = True) -> None:
        """A write like `> target`: a device or protected dir is high, and so is overwriting a file."""
        path = self._resolve(target)
        if path:
            self.written.add(path)
        if path and _harmless_device(path):
            return  # /dev/stderr may be a regular file underneath; writing it is still harmless
        if path and is_device(path):
            verdict.raise_to(HIGH, f"{how} writes straight to the device {path}")
            return
        self._protected_write(target, how, verdict)
        if overwrite and path and os.path.isfile(path):
            self._overwrite(target, path, verdict)
        else:
            verdict.raise_to(MEDIUM, f"writes to {target}")

    def _overwrite(self, target: str, path: str, verdict: RiskVerdict) -> None:
        """Emptying or replacing an existing file: ordinary in the working tree, destruction outside it."""
        if is_under(path, self.tree):
            verdict.raise_to(MEDIUM, f"overwrites the existing file {target}")
        else:
            verdict.raise_to(HIGH, f"overwrites the existing file {target}, outside the working tree")

    def _writes(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        """The targets of cp, tee, touch ...: devices and protected dirs are high."""
        for target in _write_targets(name, rest):
            path = self._resolve(target)
            if path:
                self.written.add(path)
            if path and is_device(path):
                verdict.raise_to(HIGH, f"{name} writes straight to the device {path}")
                continue
            self._protected_write(target, name, verdict)
            for shown, replaced in self._replaced_files(name, rest, target, path):
                self._overwrite(shown, replaced, verdict)

    def _replaced_files(self, name: str, rest: list[str], target: str, path: str | None) -> list[tuple[str, str]]:
        """The existing files `name` empties or replaces: the target itself, or in a target
        directory the files named like its sources (`cp .bashrc ~/`)."""
        if path is None or not _replaces(name, rest):
            return []
        if os.path.isfile(path):
            return [(target, path)]
        if name in ("cp", "mv", "install") and os.path.isdir(path):
            names = [os.path.basename(s.rstrip("/")) for s in path_operands(rest) if s != target]
            pairs = [(os.path.join(target, n), os.path.join(path, n)) for n in names]
            return [(shown, file) for shown, file in pairs if os.path.isfile(file)]
        return []

    def _protected_write(self, target: str, how: str, verdict: RiskVerdict) -> None:
        path = self._resolve(target)
        if path is None:
            return
        if is_under(path, os.path.join(self.home, ".ssh")):
            verdict.raise_to(HIGH, f"{how} writes under ~/.ssh")
        if self._starts_up(path) or is_under(path, "/var/spool/cron"):
            verdict.raise_to(HIGH, f"{how} writes to {target}, which runs code in every new shell or session")
        for top in PROTECTED_WRITE_DIRS:
            if is_under(path, top):
                verdict.raise_to(HIGH, f"{how} writes under {top}")

    def _starts_up(self, path: str) -> bool:
        if os.path.dirname(path) == self.home and os.path.basename(path) in START_UP_FILES:
            return True
        return any(is_under(path, os.path.join(self.home, d)) for d in START_UP_DIRS)

    def _home_dotfile(self, path: str) -> bool:
        """~/.bashrc, ~/.ssh, ~/.config …: a file or directory the user's setup lives in."""
        return os.path.dirname(path) == self.home and os.path.basename(path).startswith(".")

    def _in_git_dir(self, target: str) -> bool:
        """Whether `target` is inside a directory named .git (`rm -f .git/index.lock` is ordinary;
        a recursive deletion there takes history with it)."""
        path = self._resolve(target)
        return path is not None and ".git" in path.split(os.sep)

    def _deletion_problem(self, target: str) -> str | None:
        if is_dynamic(target):
            return "the target depends on a variable (empty, it could mean /)"
        if target in BROAD_GLOBS or re.fullmatch(r"(\.\./)*\*", target):
            return "a broad glob"
        if self._other_users_home(target):
            return "another user's home directory"
        path = self._resolve(target)
        if path is None:
            return "a relative path after a cd to an unknown directory"
        if path in ("/", self.home) or path in SYSTEM_DIRS:
            return "a system or home directory"
        if path == self.tree:
            return "the whole working directory"
        if os.path.basename(path) == ".git":  # what a small model offered to "archive without .git"
            return "a repository's history (.git), which nothing else holds"
        if not is_under(path, self.tree):
            return "outside the working directory"
        if "*" in target and os.path.dirname(path) == self.tree and os.path.basename(target) == "*":
            return "a broad glob"
        return None


def _replaces(name: str, rest: list[str]) -> bool:
    """Whether `name rest…` empties or replaces an existing target (tee -a appends, ln needs -f)."""
    letters = {c for a in rest if a.startswith("-") and not a.startswith("--") for c in a[1:]}
    if name == "tee":
        return not ("a" in letters or "--append" in rest)
    if name == "ln":
        return "f" in letters or "--force" in rest
    if name == "truncate":  # -s +1M or -s '>1M' only grow the file
        return not any(v.startswith(("+", ">")) for v in option_values(rest, "s", "--size", "r"))
    return name in ("cp", "mv", "install")


def _write_targets(name: str, rest: list[str]) -> list[str]:
    if name == "truncate":
        return [p for o in operands_of(rest, TRUNCATE_VALUE_OPTIONS) for p in expand_braces(o)]
    paths = path_operands(rest)
    if name in COPIERS:  # cp a b /dest: only /dest is written
        directory = option_values(rest, "t", "--target-directory", "S") if name != "rsync" else []
        return directory or paths[-1:]
    return paths
