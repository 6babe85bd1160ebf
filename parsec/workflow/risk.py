"""The risk check: a verdict (low / medium / high + reasons) for a shell command.

The command is parsed with bashlex and every simple command, pipeline, redirection, command
substitution and function definition in it is analysed. Nothing here greps substrings: `git log
--format=%h` is read-only, `format c:` is not; `rm -rf ./build` stays inside the working tree,
`rm -rf ~` does not. A `cd` earlier in the line moves where later relative paths point (`cd / &&
rm -rf usr`), but "inside the working tree" always means under the directory the line starts in.
Commands that run other commands (sh -c, eval, su -c, find -exec, fd -x, xargs, sed's e) have those
checked too. assess never raises: what cannot be parsed or analysed is at least medium.

Levels: `low` — read-only or only changes the shell's own state (cd, export); the gate runs it on
an empty answer and `--yes` approves it. `medium` — changes files or the system in an ordinary way;
needs a `y`. `high` — destructive or hard to undo; needs an explicit `yes`, never auto-approved.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

LOW, MEDIUM, HIGH = "low", "medium", "high"
_RANK = {LOW: 0, MEDIUM: 1, HIGH: 2}


@dataclass
class RiskVerdict:
    level: str = LOW
    reasons: list[str] = field(default_factory=list)

    def raise_to(self, level: str, reason: str | None) -> None:
        if _RANK[level] > _RANK[self.level]:
            self.level = level
        if reason and reason not in self.reasons:
            self.reasons.append(reason)

    @property
    def is_low(self) -> bool:
        return self.level == LOW

    @property
    def is_high(self) -> bool:
        return self.level == HIGH


# Commands that only read, or only change the shell's own state. (Not `source` / `.`: they run a script.)
READ_ONLY = {
    "ls", "ll", "la", "cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag",
    "pwd", "echo", "printf", "wc", "du", "df", "stat", "file", "which", "type", "whoami", "id",
    "uname", "date", "printenv", "tree", "sort", "uniq", "cut", "diff", "cmp", "comm", "test", "[",
    "true", "false", ":", "basename", "dirname", "realpath", "readlink", "ps", "jq", "sha256sum",
    "sha1sum", "md5sum", "hostname", "uptime", "free", "lsblk", "column", "nl", "tr", "fold",
    "seq", "sleep", "whereis", "locate", "help", "history", "env", "cd", "pushd", "popd",
    "export", "unset", "alias", "set", "hash", "command", "tac", "rev", "od", "xxd",
    "hexdump", "strings", "zcat", "bat", "fd", "dirs", "lsof", "nproc", "getconf", "locale", "tty",
    "git",  # git is refined below
}
# less, more, man and top are read-only too, but wait for keys: not auto-approved under --yes.
GIT_READ_ONLY = {
    "status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "ls-tree", "describe",
    "shortlog", "reflog", "grep", "cat-file", "remote", "branch", "tag", "config", "stash list",
}
# git's own options that take the next word as their value (git -C dir, git -c key=value).
GIT_VALUE_OPTIONS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
# `git branch` / `git tag` options whose value may be the next word: that word is neither a new
# branch's or tag's name nor flag letters (`--sort -committerdate` is not -d).
GIT_BRANCH_VALUE_OPTIONS = {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}
GIT_TAG_VALUE_OPTIONS = GIT_BRANCH_VALUE_OPTIONS | {
    "-m", "--message", "-F", "--file", "-u", "--local-user", "--cleanup", "--trailer",
}
GIT_CONFIG_VALUE_OPTIONS = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}
GIT_CONFIG_WRITES = {
    "--unset", "--unset-all", "--remove-section", "--rename-section", "-e", "--edit", "--add", "--replace-all",
}
GIT_CONFIG_READS = {
    "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "-l", "--list",
}
# `git config SUBCOMMAND` (git 2.46+) that change settings or open an editor.
GIT_CONFIG_WRITE_SUBCOMMANDS = {"set", "unset", "rename-section", "remove-section", "edit"}
# git grep options whose value is the next word (so `-e -O` searches for "-O").
GIT_GREP_VALUED_LETTERS = "efABCm"
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node"}
SH_LIKE = {"sh", "bash", "zsh", "dash", "ksh", "fish"}  # take a script with -c
EXECUTORS = SHELLS | {"eval", "source", "."}  # run their arguments as code
USER_SWITCHERS = {"su", "runuser"}  # start a shell as another user, reading commands from stdin
DOWNLOADERS = {"curl", "wget", "fetch"}
WRAPPERS = {
    "sudo", "doas", "pkexec", "env", "nohup", "time", "nice", "ionice", "command", "exec", "builtin",
    "stdbuf", "timeout",
}
ROOT_WRAPPERS = {"sudo", "doas", "pkexec"}
# Wrapper options that take the next word as their value (sudo -u root, nice -n 10, env -u VAR).
WRAPPER_VALUE_OPTIONS = {
    "sudo": {"-u", "-g", "-C", "-D", "-p", "-r", "-t", "-T", "-U"},
    "doas": {"-u", "-C"},
    "pkexec": {"--user"},
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "--class", "-n", "--classdata", "-p", "-P", "-u"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "stdbuf": {"-i", "-o", "-e"},
    "exec": {"-a"},
}
XARGS_VALUE_OPTIONS = {"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"}
RUNUSER_VALUE_OPTIONS = {"-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"}
FD_VALUE_OPTIONS = {
    "-e", "--extension", "-t", "--type", "-E", "--exclude", "-d", "--max-depth", "--min-depth", "--exact-depth",
    "-S", "--size", "--changed-within", "--changed-before", "-o", "--owner", "-j", "--threads", "-c", "--color",
    "--base-directory", "--search-path", "--max-results", "--ignore-file", "--path-separator", "--batch-size", "--format",
}
UNIQ_VALUE_OPTIONS = {"-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"}
XXD_VALUE_OPTIONS = {"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name"}
FIND_EXEC_FLAGS = {"-exec", "-execdir", "-ok", "-okdir"}
FD_EXEC_FLAGS = {"-x", "--exec", "-X", "--exec-batch"}
DELETERS = {"rm", "shred", "unlink"}  # an -exec running these deletes what find matched
DISK_TOOLS = {"mkfs", "wipefs", "fdisk", "sfdisk", "parted", "sgdisk", "gdisk", "format", "mkswap", "blkdiscard"}
POWER = {"shutdown", "reboot", "halt", "poweroff"}
SYSTEM_DIRS = ("/etc", "/usr", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/var", "/opt", "/sys", "/proc", "/dev")
PROTECTED_WRITE_DIRS = ("/etc", "/usr", "/boot")
HARMLESS_DEVICES = {
    "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom",
    "/dev/full",
}
WRITERS = {"cp", "mv", "tee", "touch", "install", "ln", "rm", "rmdir", "mkdir", "truncate", "rsync", "chmod", "chown", "chgrp"}
COPIERS = {"cp", "install", "ln", "rsync"}  # only the destination (last operand or -t DIR) is written
BROAD_GLOBS = {"*", ".*", "./*", "/*", "~/*", "*/"}
# Variables that make an ordinary (even read-only) command run another program.
CODE_VARIABLES = {
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PAGER", "GIT_PAGER",
    "MANPAGER", "LESSOPEN", "LESSCLOSE", "GIT_EXTERNAL_DIFF", "GIT_EXEC_PATH", "GIT_SSH_COMMAND", "GIT_SSH",
}
HARMLESS_PAGERS = {"", "cat", "less", "more"}
# Commands handled by another command's rule.
HANDLER_NAMES = {".": "source", "gawk": "awk", "mawk": "awk", "nawk": "awk", "fdfind": "fd"}
SUBSTITUTIONS = ("commandsubstitution", "processsubstitution")


UNANALYSED = "could not be analysed; check it by eye"


def assess(command: str, cwd: str | None = None, home: str | None = None) -> RiskVerdict:
    """The verdict for `command` as it would run in `cwd`. Never raises."""
    try:
        start = os.path.normpath(cwd or os.getcwd())
        return _Checker(start, start, os.path.normpath(home or os.path.expanduser("~"))).check(command)
    except Exception:  # a bug here must neither crash the gate nor let the command pass as low
        return RiskVerdict(MEDIUM, [UNANALYSED])


_FORK_BOMB = re.compile(r"(\S+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1\s*&")


def _looks_like_fork_bomb(command: str) -> bool:
    return bool(_FORK_BOMB.search(command))


class _Checker:
    def __init__(self, tree: str, cwd: str | None, home: str) -> None:
        self.tree = tree  # the original working directory: "inside the working tree" means under it
        self.cwd = cwd  # where the next command runs (a `cd` moves it); None once it is unknown
        self.home = home

    def check(self, command: str) -> RiskVerdict:
        verdict = RiskVerdict()
        if not command.strip():
            verdict.raise_to(MEDIUM, "empty command")
            return verdict
        if _looks_like_fork_bomb(command):
            verdict.raise_to(HIGH, "fork bomb: a function that spawns itself endlessly")
        try:
            import bashlex

            trees = bashlex.parse(command)
        except Exception:  # bashlex raises several error types, some not exported
            verdict.raise_to(MEDIUM, "could not be parsed; check it by eye")
            return verdict
        try:
            for tree in trees:
                self.visit(tree, verdict)
        except Exception:  # keep what was found so far (it may be high), but never stay low
            verdict.raise_to(MEDIUM, UNANALYSED)
        return verdict

    def _nested(self, command: str, verdict: RiskVerdict) -> None:
        """Check a command that this one runs (sh -c, su -c, find -exec), from where this one runs."""
        sub = _Checker(self.tree, self.cwd, self.home).check(command)
        for reason in sub.reasons:
            verdict.raise_to(sub.level, reason)
        verdict.raise_to(sub.level, None)

    def _nested_words(self, words: list[str], verdict: RiskVerdict) -> None:
        """Check words that form a command of their own (after xargs, find -exec, fd -x)."""
        words = [w for w in words if not _is_assignment(w)]
        if words:
            self._nested(" ".join(_quote(w) for w in words), verdict)

    def _run_on_each(self, words: list[str], item: str, what: str, verdict: RiskVerdict) -> None:
        """xargs CMD / find -exec CMD: CMD runs with `item` (a stand-in path for `what`) appended."""
        args = _unwrapped([w for w in words if not _is_assignment(w)])[0]
        if args and args not in (["eval"], ["xargs"]):
            self._nested_words(words + [item], verdict)
            return
        self._nested_words(words, verdict)  # xargs sudo / xargs eval: the item itself is run
        verdict.raise_to(MEDIUM, f"runs each {what} as a command")

    @contextmanager
    def _subshell(self) -> Iterator[None]:
        """A cd inside a subshell, pipeline or substitution does not move the commands after it."""
        saved = self.cwd
        try:
            yield
        finally:
            self.cwd = saved

    # --- walking the tree ------------------------------------------------------------------
    def visit(self, node: Any, verdict: RiskVerdict) -> None:
        kind = getattr(node, "kind", "")
        if kind == "command":
            for sub in _substitutions(node):  # they run before the command itself
                self.visit(sub, verdict)
            self._command(node, verdict)
            return
        if kind in SUBSTITUTIONS:
            if kind == "processsubstitution":
                self._process_substitution(node, verdict)
            with self._subshell():
                self.visit(node.command, verdict)
            return
        for redirect in getattr(node, "redirects", None) or []:  # { ...; } > file, (...) > file
            self._redirect(redirect, verdict)
            self.visit(redirect.output, verdict)
        if kind == "pipeline":
            self._pipeline(node, verdict)
        elif kind == "function":
            self._function(node, verdict)
        with self._subshell() if _runs_apart(node) else nullcontext():
            for child in _children(node):
                self.visit(child, verdict)

    def _function(self, node: Any, verdict: RiskVerdict) -> None:
        name = node.name.word
        calls = [n for n in _walk(node.body) if getattr(n, "kind", "") == "word" and n.word == name]
        if len(calls) >= 2:
            verdict.raise_to(HIGH, f"fork bomb: function {name!r} calls itself")

    def _pipeline(self, node: Any, verdict: RiskVerdict) -> None:
        downloaded = False  # an earlier part's output comes from the network
        commands = [p for p in node.parts if getattr(p, "kind", "") == "command"]
        for i, command in enumerate(commands):
            args = _unwrapped(_words(command))[0]
            head = _command_name(args[0]) if args else ""
            if downloaded and (head in SHELLS or head in USER_SWITCHERS or _feeds_a_shell(command)):
                verdict.raise_to(HIGH, "pipes a download straight into a shell")
            if i > 0 and head in SHELLS and len(args) == 1:
                verdict.raise_to(MEDIUM, f"feeds text into {head} to execute")
            downloaded = downloaded or head in DOWNLOADERS or _has_download_substitution(command)

    def _process_substitution(self, node: Any, verdict: RiskVerdict) -> None:
        if DOWNLOADERS & _heads(node.command):
            verdict.raise_to(HIGH, "runs a downloaded script")

    # --- one simple command ----------------------------------------------------------------
    def _command(self, node: Any, verdict: RiskVerdict) -> None:
        for redirect in (p for p in node.parts if getattr(p, "kind", "") == "redirect"):
            self._redirect(redirect, verdict)
        words = _words(node)
        args, wrappers = _unwrapped(words)
        wrapper_words = words[: len(words) - len(args)]  # env X=1, sudo -E ...
        for assignment in _assignments(node) + [w for w in wrapper_words if _is_assignment(w)]:
            self._assignment(assignment, verdict)
        for wrapper in wrappers:
            if wrapper in ROOT_WRAPPERS:
                verdict.raise_to(HIGH, f"runs as root ({wrapper})")
        if not args:
            return
        if _is_dynamic(args[0]):
            self._dynamic_command(node, verdict)
            return
        name, rest = _command_name(args[0]), args[1:]
        if not name:  # '' or "": no such command, but say so rather than name an empty word
            verdict.raise_to(MEDIUM, "the command's name is empty")
            return
        if name in EXECUTORS and _has_download_substitution(node):
            verdict.raise_to(HIGH, "runs a downloaded script")
        if name in DOWNLOADERS and _feeds_a_shell(node):  # curl x > >(sh)
            verdict.raise_to(HIGH, "pipes a download straight into a shell")
        handler = self._handler(name)
        if handler is not None:
            handler(rest, verdict)
        elif name.startswith("mkfs") or name in DISK_TOOLS:
            verdict.raise_to(HIGH, f"{name} formats or rewrites a disk")
        elif name in POWER or (name == "init" and rest[:1] in (["0"], ["6"])):
            verdict.raise_to(HIGH, f"{name} stops or restarts the machine")
        elif name in READ_ONLY:
            pass
        elif name in DOWNLOADERS:
            verdict.raise_to(MEDIUM, f"{name} downloads from the network")
        else:
            verdict.raise_to(MEDIUM, f"{name} may change files or the system")
        if name in WRITERS and name not in ("rm", "chmod", "chown", "chgrp"):
            self._writes(name, rest, verdict)
        script = _shell_script(name, rest)
        if script:
            self._nested(script, verdict)

    def _handler(self, name: str) -> Any:
        name = HANDLER_NAMES.get(name, name)
        if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
            return None
        return getattr(self, "_cmd_" + name.replace("-", "_"), None)

    def _dynamic_command(self, node: Any, verdict: RiskVerdict) -> None:
        # `$(curl x)` runs whatever the server sends; `$CMD` runs something we cannot name.
        if _has_download_substitution(node):
            verdict.raise_to(HIGH, "runs the output of a download as a command")
        else:
            verdict.raise_to(MEDIUM, "the command's name is only known at run time")

    def _assignment(self, assignment: str, verdict: RiskVerdict) -> None:
        name, _, value = assignment.partition("=")
        if (name in CODE_VARIABLES or name.startswith("GIT_CONFIG")) and _first_word(value) not in HARMLESS_PAGERS:
            verdict.raise_to(MEDIUM, f"setting {name} can make a command run another program")

    # --- writes ----------------------------------------------------------------------------
    def _redirect(self, node: Any, verdict: RiskVerdict) -> None:
        target = getattr(node, "output", None)
        if not hasattr(target, "word") or node.type not in (">", ">>", ">|", "&>", "&>>", ">&"):
            return
        if node.type == ">&" and _FD_TARGET.fullmatch(target.word):
            return  # 2>&1, >&2, >&3-: duplicates or closes a descriptor; `>& file` is `&> file`
        if any(getattr(p, "kind", "") in SUBSTITUTIONS for p in target.parts):
            return  # > >(cmd): the command is checked on its own
        self._write_to(target.word, "redirection", verdict, overwrite=node.type in (">", ">|", "&>", ">&"))

    def _write_to(self, target: str, how: str, verdict: RiskVerdict, overwrite: bool = True) -> None:
        """A write like `> target`: a device or protected dir is high, and so is overwriting a file."""
        path = self._resolve(target)
        if path and _harmless_device(path):
            return  # /dev/stderr may be a regular file underneath; writing it is still harmless
        if path and _is_device(path):
            verdict.raise_to(HIGH, f"{how} writes straight to the device {path}")
            return
        self._protected_write(target, how, verdict)
        if overwrite and path and os.path.isfile(path):
            verdict.raise_to(HIGH, f"overwrites the existing file {target}")
        else:
            verdict.raise_to(MEDIUM, f"writes to {target}")

    def _writes(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        """The targets of cp, tee, touch ...: devices and protected dirs are high."""
        for target in _write_targets(name, rest):
            path = self._resolve(target)
            if path and _is_device(path):
                verdict.raise_to(HIGH, f"{name} writes straight to the device {path}")
            else:
                self._protected_write(target, name, verdict)

    def _protected_write(self, target: str, how: str, verdict: RiskVerdict) -> None:
        path = self._resolve(target)
        if path is None:
            return
        if _under(path, os.path.join(self.home, ".ssh")):
            verdict.raise_to(HIGH, f"{how} writes under ~/.ssh")
        for top in PROTECTED_WRITE_DIRS:
            if _under(path, top):
                verdict.raise_to(HIGH, f"{how} writes under {top}")

    # --- per-command rules -----------------------------------------------------------------
    def _cmd_cd(self, rest: list[str], verdict: RiskVerdict) -> None:
        targets = _operands(rest)
        self.cwd = self._cd_target(targets[0] if targets else "~")

    def _cmd_pushd(self, rest: list[str], verdict: RiskVerdict) -> None:
        targets = _operands(rest)
        rotates = not targets or targets[0][:1] in ("+", "-")  # pushd, pushd +1: a stack entry we did not see
        self.cwd = None if rotates else self._cd_target(targets[0])

    def _cmd_popd(self, rest: list[str], verdict: RiskVerdict) -> None:
        self.cwd = None  # back to a directory on the stack we did not see

    def _cd_target(self, target: str) -> str | None:
        # cd - (the previous directory), cd $DIR or cd b* lead somewhere we cannot know.
        if target == "-" or _is_dynamic(target) or any(c in target for c in "*?["):
            return None
        return self._resolve(target)

    def _cmd_source(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, "sourcing runs a script in the current shell")

    def _cmd_export(self, rest: list[str], verdict: RiskVerdict) -> None:
        for assignment in filter(_is_assignment, rest):
            self._assignment(assignment, verdict)

    def _cmd_su(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "su runs commands as another user (root by default)")
        for script in _option_values(rest, "c", "--command", "sgGw"):
            self._nested(script, verdict)

    def _cmd_runuser(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "runuser runs commands as another user")
        for script in _option_values(rest, "c", "--command", "sgGuw"):
            self._nested(script, verdict)
        if _option_values(rest, "u", "--user", "sgGw"):  # runuser -u USER [--] COMMAND ...
            self._nested_words(_after_options(rest, RUNUSER_VALUE_OPTIONS), verdict)

    def _cmd_rm(self, rest: list[str], verdict: RiskVerdict) -> None:
        flags = "".join(a[1:] for a in rest if a.startswith("-") and not a.startswith("--"))
        long_flags = {a for a in rest if a.startswith("--")}
        recursive = bool(set(flags) & {"r", "R"}) or "--recursive" in long_flags
        forced = "f" in flags or "--force" in long_flags
        targets = _paths(rest)
        verdict.raise_to(MEDIUM, "deletes files")
        if not (recursive or forced):
            for target in targets:
                self._protected_write(target, "rm", verdict)
            return
        kind = "recursive" if recursive else "forced"
        for target in targets:
            problem = self._deletion_problem(target)
            if problem:
                verdict.raise_to(HIGH, f"{kind} deletion of {target}: {problem}")

    def _deletion_problem(self, target: str) -> str | None:
        if _is_dynamic(target):
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
        if not _under(path, self.tree):
            return "outside the working directory"
        if "*" in target and os.path.dirname(path) == self.tree and os.path.basename(target) == "*":
            return "a broad glob"
        return None

    def _deleted_roots(self, roots: list[str], how: str, verdict: RiskVerdict) -> None:
        """Deleting what a search matches: its roots are checked like rm -rf's targets."""
        for root in roots:
            problem = self._deletion_problem(root)
            if problem and problem != "the whole working directory":
                verdict.raise_to(HIGH, f"{how} on {root}: {problem}")

    def _cmd_dd(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, "dd copies raw data")
        for arg in rest:
            if arg.startswith("of="):
                path = self._resolve(arg[3:])
                if path and _is_device(path):
                    verdict.raise_to(HIGH, f"dd writes to the block device {path}")
                else:
                    self._protected_write(arg[3:], "dd", verdict)

    def _cmd_shred(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "shred destroys data irrecoverably")

    def _chmod_like(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        recursive = any(a in ("-R", "--recursive") or (a.startswith("-") and "R" in a) for a in rest)
        verdict.raise_to(MEDIUM, f"{name} changes permissions or ownership")
        for target in _paths(rest)[1:]:  # the first operand is the mode or owner
            path = self._resolve(target)
            system = path is not None and (path in ("/", self.home) or any(_under(path, top) for top in SYSTEM_DIRS))
            if recursive and system:
                verdict.raise_to(HIGH, f"recursive {name} on the system path {target}")
            else:
                self._protected_write(target, name, verdict)

    def _cmd_chmod(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._chmod_like("chmod", rest, verdict)

    def _cmd_chown(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._chmod_like("chown", rest, verdict)

    def _cmd_chgrp(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._chmod_like("chgrp", rest, verdict)

    def _cmd_git(self, rest: list[str], verdict: RiskVerdict) -> None:
        options, sub, args = _git_split(rest)
        # core.pager, core.fsmonitor, diff.external, alias.* ... name programs git then runs.
        if any(o in ("-c", "--config-env") or o.startswith(("--config-env=", "--exec-path=")) for o in options):
            verdict.raise_to(MEDIUM, "git -c can run arbitrary commands")
        if sub is None:
            return
        for target in _option_values(args, "", "--output"):  # git diff/log/show --output=FILE
            self._write_to(target, f"git {sub} --output", verdict)
        if sub == "push" and any(a in ("-f", "--force", "--force-with-lease", "--mirror") or a.startswith("--force") or (a.startswith("+") and len(a) > 1) for a in args):
            verdict.raise_to(HIGH, "git push --force rewrites the remote's history")
        elif sub == "reset" and "--hard" in args:
            verdict.raise_to(HIGH, "git reset --hard discards uncommitted work")
        elif sub == "clean" and any(a.startswith("-") and "f" in a for a in args):
            verdict.raise_to(HIGH, "git clean -f deletes untracked files")
        elif sub in ("checkout", "restore") and ("." in args or "--" in args and args[-1:] == ["."]):
            verdict.raise_to(HIGH, f"git {sub} . discards uncommitted changes")
        elif sub in _GIT_CHANGES:  # branch, tag, config: some forms only list or look up
            change = _GIT_CHANGES[sub](args)
            if change:
                verdict.raise_to(MEDIUM, change)
        elif sub == "grep" and _option_values(
            args, "O", "--open-files-in-pager", GIT_GREP_VALUED_LETTERS, optional=True
        ):
            verdict.raise_to(MEDIUM, "git grep -O runs a pager program on the matching files")
        elif sub == "reflog" and args and not args[0].startswith("-") and args[0] != "show":
            verdict.raise_to(MEDIUM, f"git reflog {args[0]} can expire or delete reflog entries")
        elif sub == "stash" and args[:1] == ["list"]:
            return
        elif sub not in GIT_READ_ONLY or (sub == "remote" and _operands(args)[:1] not in ([], ["-v"], ["show"])):
            verdict.raise_to(MEDIUM, f"git {sub} changes the repository")

    def _cmd_find(self, rest: list[str], verdict: RiskVerdict) -> None:
        roots = _find_roots(rest)
        if "-delete" in rest:
            verdict.raise_to(MEDIUM, "find -delete deletes files")
            self._deleted_roots(roots, "find -delete", verdict)
        for flag, inner in _exec_clauses(rest, FIND_EXEC_FLAGS):
            verdict.raise_to(MEDIUM, f"find {flag} runs a command on every match")
            self._exec_on_matches(flag, inner, roots, "find", verdict)
        if any(a in ("-fprint", "-fprintf", "-fls") for a in rest):
            verdict.raise_to(MEDIUM, "find writes to a file")

    def _cmd_fd(self, rest: list[str], verdict: RiskVerdict) -> None:
        before_exec = list(itertools.takewhile(lambda a: a not in FD_EXEC_FLAGS, rest))
        roots = _operands(before_exec, FD_VALUE_OPTIONS)[1:] + _option_values(before_exec, "", "--search-path")
        for flag, inner in _exec_clauses(rest, FD_EXEC_FLAGS):
            verdict.raise_to(MEDIUM, f"fd {flag} runs a command on every match")
            self._exec_on_matches(flag, inner, roots or ["."], "fd", verdict)

    def _exec_on_matches(self, flag: str, inner: list[str], roots: list[str], tool: str, verdict: RiskVerdict) -> None:
        """find -exec / fd -x: the command runs on each match; a deleter deletes the search roots' contents."""
        self._run_on_each(inner, "./matched-file", "matched file", verdict)
        args = _unwrapped(inner)[0]
        head = _command_name(args[0]) if args else ""
        if head in DELETERS:
            self._deleted_roots(roots, f"{tool} {flag} {head}", verdict)

    def _cmd_rg(self, rest: list[str], verdict: RiskVerdict) -> None:
        if any(a == "--pre" or a.startswith("--pre=") for a in rest):
            verdict.raise_to(MEDIUM, "rg --pre runs a command on every file it searches")

    def _cmd_sort(self, rest: list[str], verdict: RiskVerdict) -> None:
        for target in _option_values(rest, "o", "--output", "kStT"):
            self._write_to(target, "sort -o", verdict)

    def _cmd_tree(self, rest: list[str], verdict: RiskVerdict) -> None:
        for target in _option_values(rest, "o", "", "LPIHT"):
            self._write_to(target, "tree -o", verdict)

    def _cmd_xargs(self, rest: list[str], verdict: RiskVerdict) -> None:
        command = _after_options(rest, XARGS_VALUE_OPTIONS)
        if command:  # without one, xargs runs echo
            self._run_on_each(command, "./each-input", "input", verdict)

    def _cmd_kill(self, rest: list[str], verdict: RiskVerdict) -> None:
        if "-1" in _operands(rest) or rest[-1:] == ["-1"]:
            verdict.raise_to(HIGH, "kill -1 signals every process you own")
        else:
            verdict.raise_to(MEDIUM, "kill stops processes")

    def _cmd_sed(self, rest: list[str], verdict: RiskVerdict) -> None:
        args = _sed_args(rest)
        if args.in_place:
            verdict.raise_to(MEDIUM, "sed -i edits files in place")
            for target in (path for file in args.files for path in _expand_braces(file)):
                self._protected_write(target, "sed -i", verdict)
        if args.sandbox:
            return  # --sandbox refuses the e, r and w commands
        if args.script_files:
            verdict.raise_to(MEDIUM, "sed reads its script from a file (it may write files or run commands)")
        for script in args.scripts:
            self._sed_script(script, verdict)

    def _sed_script(self, script: str, verdict: RiskVerdict) -> None:
        actions = _sed_actions(script)
        if actions is None:
            verdict.raise_to(MEDIUM, "sed script could not be read; check it by eye")
            return
        for action, argument in actions:
            if action == "w":
                if argument:  # without a file name sed refuses the script
                    self._write_to(argument, "sed w", verdict)  # sed empties the file when it starts
            elif argument:
                verdict.raise_to(MEDIUM, "sed e runs a command")
                self._nested(argument, verdict)
            else:
                verdict.raise_to(MEDIUM, "sed e runs the text it reads as a command")

    def _cmd_uniq(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._output_operand("uniq", _operands(rest, UNIQ_VALUE_OPTIONS), verdict)

    def _cmd_xxd(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._output_operand("xxd", _operands(rest, XXD_VALUE_OPTIONS), verdict)

    def _output_operand(self, name: str, operands: list[str], verdict: RiskVerdict) -> None:
        """`uniq IN OUT`, `xxd [-r] IN OUT`: the second operand is a file written like `> OUT`."""
        if len(operands) > 1 and operands[1] != "-":
            self._write_to(operands[1], name, verdict)

    def _cmd_awk(self, rest: list[str], verdict: RiskVerdict) -> None:
        program = _awk_program(rest)
        if program is None:
            verdict.raise_to(MEDIUM, "awk loads its program or extensions from a file")
            return
        if "system(" in program or re.search(r"(?<!\|)\|(?!\|)", program):
            verdict.raise_to(MEDIUM, "awk program runs commands")
        for operator, target in _AWK_OUTPUT.findall(program):
            if target.startswith('"'):
                self._write_to(target.strip('"'), "awk", verdict, overwrite=operator == ">")
            else:
                verdict.raise_to(MEDIUM, "awk program writes to a file named at run time")

    # --- paths -----------------------------------------------------------------------------
    def _resolve(self, target: str) -> str | None:
        """`target` as an absolute path; None when it hangs off a directory we cannot know."""
        text = _HOME_VARIABLE.sub(lambda _: self.home, target)
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
        return bool(tilde) and tilde.group(1) != os.path.basename(self.home)


_HOME_VARIABLE = re.compile(r"^\$(HOME|\{HOME\})(?=/|$)")
_FD_TARGET = re.compile(r"\d+-?|-")  # the word after >& that names a file descriptor, not a file
# print > "file", printf ... >> file: the target is a quoted name or an expression.
_AWK_OUTPUT = re.compile(r'\bprintf?\b[^;}>|]*(>>?)\s*("[^"]*"|[^\s;}]+)')
_PLACEHOLDER = re.compile(r"\{[/.]*\}")  # find's {}, fd's {} {/} {//} {.} {/.}


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _harmless_device(path: str) -> bool:
    return path in HARMLESS_DEVICES or path.startswith(("/dev/fd/", "/dev/pts/"))


def _is_device(path: str) -> bool:
    """A device file that a write could damage (a disk), not /dev/null or the terminal."""
    return path.startswith("/dev/") and not _harmless_device(path) and not path.startswith("/dev/shm/")


# --- the syntax tree ---------------------------------------------------------------------------
def _children(node: Any) -> list[Any]:
    out: list[Any] = []
    for attr in ("parts", "list"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            out.extend(value)
    return out


def _walk(node: Any) -> Iterator[Any]:
    """Every node under `node`, including substitutions' commands and redirections' targets."""
    yield node
    for child in _children(node):
        yield from _walk(child)
    for attr in ("command", "output"):
        child = getattr(node, attr, None)
        if hasattr(child, "kind"):
            yield from _walk(child)
    for redirect in getattr(node, "redirects", None) or []:
        yield from _walk(redirect)


def _runs_apart(node: Any) -> bool:
    """Whether `node` runs in a subshell (or, a function body, not now): a cd there does not last."""
    kind = getattr(node, "kind", "")
    if kind in ("pipeline", "function"):
        return True
    first = (getattr(node, "list", None) or [None])[0]
    return kind == "compound" and getattr(first, "word", "") == "("


def _words(node: Any) -> list[str]:
    return [p.word for p in getattr(node, "parts", []) if getattr(p, "kind", "") == "word"]


def _assignments(node: Any) -> list[str]:
    """The X=1 words before a command (bashlex keeps them apart from the words)."""
    return [p.word for p in node.parts if getattr(p, "kind", "") == "assignment"]


def _substitutions(node: Any) -> list[Any]:
    """The $(...) and <(...) directly in a command's words, assignments and redirections."""
    holders = [p.output if getattr(p, "kind", "") == "redirect" else p for p in node.parts]
    return [s for h in holders for s in getattr(h, "parts", None) or [] if getattr(s, "kind", "") in SUBSTITUTIONS]


def _heads(node: Any) -> set[str]:
    """The names of all commands anywhere under `node`, wrappers stripped."""
    heads = set()
    for command in (n for n in _walk(node) if getattr(n, "kind", "") == "command"):
        args = _unwrapped(_words(command))[0]
        if args:
            heads.add(_command_name(args[0]))
    return heads


def _has_download_substitution(node: Any) -> bool:
    """Whether a $(...) or <(...) in the command runs curl/wget: its text is a download."""
    return any(DOWNLOADERS & _heads(sub.command) for sub in _substitutions(node))


def _feeds_a_shell(node: Any) -> bool:
    """Whether the command writes into a shell through a process substitution (tee >(sh))."""
    return any(
        SHELLS & _heads(sub.command) for sub in _substitutions(node) if sub.kind == "processsubstitution"
    )


# --- words and arguments -----------------------------------------------------------------------
def _command_name(word: str) -> str:
    """The name a command word runs: /bin/bash -> bash."""
    return os.path.basename(word.rstrip("/")) or word


def _is_assignment(word: str) -> bool:
    return bool(re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word))


def _is_dynamic(word: str) -> bool:
    """Whether the word's value is only known at run time ($VAR, $(...), `...`); $HOME is known."""
    return "$" in _HOME_VARIABLE.sub("", word) or "`" in word


def _first_word(text: str) -> str:
    words = text.split()
    return _command_name(words[0]) if words else ""


def _unwrapped(words: list[str]) -> tuple[list[str], list[str]]:
    """Strip leading assignments and wrappers (sudo -E, nohup, env -i X=1 ...); return (rest, wrappers)."""
    wrappers: list[str] = []
    i = 0
    while i < len(words):
        name = _command_name(words[i])
        if _is_assignment(words[i]):
            i += 1
        elif name in WRAPPERS:
            wrappers.append(name)
            start, i = i + 1, _skip_wrapper_options(name, words, i + 1)
            if name == "command" and {"-v", "-V"} & set(words[start:i]):
                return [], wrappers  # command -v only looks the name up
            if name == "env":  # env -S 'cmd args', -S'cmd args', --split-string='cmd args'
                words = words[:i] + [w for s in _env_split_strings(words[start:i]) for w in _split(s)] + words[i:]
        else:
            break
    return words[i:], wrappers


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # unbalanced quotes: keep it as one word
        return [text]


def _skip_wrapper_options(name: str, words: list[str], i: int) -> int:
    """The index of the word after the wrapper's options (and timeout's duration)."""
    valued = WRAPPER_VALUE_OPTIONS.get(name, set())
    if name == "env":  # a cluster ending in a letter that takes a value (-iS 'cmd') takes the next word
        valued = valued | {w for w in words if re.fullmatch(r"-[^-]*[SuC]", w)}
    i += sum(role != "operand" for _, role in _scan(words[i:], valued, permute=False))
    if name == "timeout" and i < len(words):
        i += 1  # the duration
    return i


def _env_split_strings(options: list[str]) -> list[str]:
    """The values of env's -S / --split-string among its options: env splits each into words."""
    return _option_values(options, "S", "--split-string", "uC")


def _shell_script(name: str, rest: list[str]) -> str:
    """The script a shell runs from -c (sh -c, bash -lc), or eval's words; "" if none."""
    if name == "eval":
        return " ".join(rest)
    if name in SH_LIKE:
        for i, arg in enumerate(rest[:-1]):
            if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", arg):
                return rest[i + 1]
    return ""


def _scan(args: list[str], valued: Collection[str] = (), permute: bool = True) -> Iterator[tuple[str, str]]:
    """Each word with its role: "option", "value" (the word after an option in `valued`), "--" or
    "operand". Everything after `--` is an operand; with permute=False so is everything from the
    first operand on (the command that sudo or xargs runs), as getopt does without GNU permutation.
    """
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            yield arg, "--"
            yield from ((a, "operand") for a in args[i + 1 :])
            return
        if not _is_option(arg):
            if not permute:
                yield from ((a, "operand") for a in args[i:])
                return
            yield arg, "operand"
        else:
            yield arg, "option"
            if arg in valued and i + 1 < len(args):
                i += 1
                yield args[i], "value"
        i += 1


def _is_option(word: str) -> bool:
    return word.startswith("-") and word != "-"


def _operands(args: list[str], valued: Collection[str] = ()) -> list[str]:
    """The operands, skipping each option in `valued` and the word after it."""
    return [word for word, role in _scan(args, valued) if role == "operand"]


def _flag_names(args: list[str], valued: Collection[str] = ()) -> tuple[set[str], set[str]]:
    """The short option letters and long option names given: `--sort -date` is not -d -a -t -e."""
    options = [word for word, role in _scan(args, valued) if role == "option"]
    letters = {c for o in options if not o.startswith("--") for c in o[1:]}
    return letters, {o.split("=")[0] for o in options if o.startswith("--")}


def _paths(args: list[str]) -> list[str]:
    """The operands as paths, after the shell's brace expansion."""
    return [path for arg in _operands(args) for path in _expand_braces(arg)]


_BRACES = re.compile(r"(?<!\$)\{([^{}]*,[^{}]*)\}")


def _expand_braces(word: str, limit: int = 64) -> list[str]:
    """Simple brace alternatives, as the shell expands them: `{~,/}` is `~` and `/`."""
    match = _BRACES.search(word)
    if not match:
        return [word]
    out: list[str] = []
    for alternative in match.group(1).split(","):
        out.extend(_expand_braces(word[: match.start()] + alternative + word[match.end() :], limit))
    return out[:limit]


def _after_options(args: list[str], valued: set[str]) -> list[str]:
    """The words from the first operand on: the command that xargs or runuser -u runs."""
    return [word for word, role in _scan(args, valued, permute=False) if role == "operand"]


def _option_values(args: list[str], short: str, long: str, other_valued: str = "", optional: bool = False) -> list[str]:
    """The values given to -X or --long (attached, after `=`, or as the next word).

    `other_valued` are the command's other short options that take a value: in `-kSo` the rest of
    the word after k is k's value, not an -o. An `optional` value can only be attached (git grep
    -O[pager]); then a bare -X counts too, as an empty value.
    """
    values: list[str] = []
    i = 0
    while i < len(args) and args[i] != "--":
        arg = args[i]
        name, equals, attached = arg.partition("=")
        if long and arg.startswith("--") and len(name) > 3 and long.startswith(name):  # getopt takes prefixes
            takes_next = not (equals or optional)
            values.append(_at(args, i + 1) if takes_next else attached)
            i += takes_next
        elif _is_option(arg) and not arg.startswith("--"):
            for j, letter in enumerate(arg[1:], start=1):
                if letter == short or letter in other_valued:
                    takes_next = not (arg[j + 1 :] or (optional and letter == short))
                    value = _at(args, i + 1) if takes_next else arg[j + 1 :]
                    i += takes_next
                    if letter == short:
                        values.append(value)
                    break
        i += 1
    return values if optional else [v for v in values if v]


def _at(args: list[str], i: int) -> str:
    return args[i] if i < len(args) else ""


def _write_targets(name: str, rest: list[str]) -> list[str]:
    paths = _paths(rest)
    if name in COPIERS:  # cp a b /dest: only /dest is written
        directory = _option_values(rest, "t", "--target-directory", "S") if name != "rsync" else []
        return directory or paths[-1:]
    return paths


def _git_split(rest: list[str]) -> tuple[list[str], str | None, list[str]]:
    """git's own options, the subcommand and its arguments."""
    i = sum(role != "operand" for _, role in _scan(rest, GIT_VALUE_OPTIONS, permute=False))
    return rest[:i], (rest[i] if i < len(rest) else None), rest[i + 1 :]


def _git_branch_change(args: list[str]) -> str | None:
    """Why `git branch ARGS` changes the repository; None for a listing (git branch -a, -v, --list)."""
    letters, longs = _flag_names(args, GIT_BRANCH_VALUE_OPTIONS)
    if letters & set("dDmMcC") or longs & {"--delete", "--move", "--copy"}:
        return "git branch deletes, renames or copies a branch"
    if "f" in letters or "--force" in longs:
        return "git branch -f moves a branch"
    if letters & set("ut") or longs & {"--set-upstream-to", "--unset-upstream", "--track", "--edit-description"}:
        return "git branch changes a branch's upstream or description"
    if "l" in letters or "--list" in longs:
        return None  # the operands are patterns to list
    if _operands(args, GIT_BRANCH_VALUE_OPTIONS):
        return "git branch creates a branch"
    return None


def _git_tag_change(args: list[str]) -> str | None:
    """Why `git tag ARGS` changes the repository; None for a listing or check (git tag -l 'v*', -v)."""
    letters, longs = _flag_names(args, GIT_TAG_VALUE_OPTIONS)
    if "d" in letters or "--delete" in longs:
        return "git tag deletes a tag"
    if letters & set("lv") or longs & {"--list", "--verify"}:
        return None  # the operands are patterns to list or tags to verify
    if _operands(args, GIT_TAG_VALUE_OPTIONS):
        return "git tag creates or moves a tag"
    return None


def _git_config_change(args: list[str]) -> str | None:
    """Why `git config ARGS` changes settings (or opens an editor); None for a lookup or listing."""
    options = {word.split("=")[0] for word, role in _scan(args, GIT_CONFIG_VALUE_OPTIONS) if role == "option"}
    operands = _operands(args, GIT_CONFIG_VALUE_OPTIONS)
    if options & GIT_CONFIG_WRITES or operands[:1] and operands[0] in GIT_CONFIG_WRITE_SUBCOMMANDS:
        return "git config changes settings"
    if options & GIT_CONFIG_READS or operands[:1] in (["get"], ["list"]):
        return None
    if len(operands) > 1:  # git config KEY VALUE
        return "git config changes settings"
    return None


_GIT_CHANGES = {"branch": _git_branch_change, "tag": _git_tag_change, "config": _git_config_change}


def _find_roots(args: list[str]) -> list[str]:
    """The paths find searches: the words before its first test or action (default .)."""
    i = 0
    while i < len(args) and (args[i] in ("-H", "-L", "-P", "-D") or re.fullmatch(r"-O\d*", args[i])):
        i += 2 if args[i] == "-D" else 1
    roots: list[str] = []
    for arg in args[i:]:
        if arg.startswith("-") or arg in ("(", "\\(", "!", ","):
            break
        roots.extend(_expand_braces(arg))
    return roots or ["."]


def _exec_clauses(args: list[str], flags: set[str]) -> list[tuple[str, list[str]]]:
    """(flag, command words) for each `-exec CMD ... ;` clause (find -exec, fd -x), placeholders dropped."""
    clauses = []
    i = 0
    while i < len(args):
        if args[i] in flags:
            end = next((j for j in range(i + 1, len(args)) if args[j] in (";", "+", "\\;")), len(args))
            clauses.append((args[i], [w for w in args[i + 1 : end] if not _PLACEHOLDER.fullmatch(w)]))
            i = end
        i += 1
    return clauses


def _awk_program(args: list[str]) -> str | None:
    """The awk program text; None when it comes from a file (-f) or loads code (-i, -l)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return _at(args, i + 1)
        if arg.startswith(("-f", "-E", "-i", "-l", "--file", "--exec", "--include", "--load")):
            return None
        if arg in ("-e", "--source"):
            return _at(args, i + 1)
        if arg in ("-F", "-v", "--field-separator", "--assign"):
            i += 2
        elif arg.startswith("-") and arg != "-":
            i += 1
        else:
            return arg
    return ""


@dataclass
class _SedArgs:
    in_place: bool = False
    sandbox: bool = False
    scripts: list[str] = field(default_factory=list)
    script_files: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def _sed_args(args: list[str]) -> _SedArgs:
    """sed's options, scripts (-e or the first operand) and input files; -ri and -ni are -r -i, -n -i."""
    out = _SedArgs()
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg, i = args[i], i + 1
        name, equals, attached = arg.partition("=")
        if arg == "--":
            operands += args[i:]
            break
        if not _is_option(arg):
            operands.append(arg)
        elif arg.startswith("--"):
            long = next((o for o in _SED_LONG if len(name) > 3 and o.startswith(name)), "")
            if long in ("--expression", "--file", "--line-length") and not equals:
                attached, i = _at(args, i), i + 1
            if long == "--in-place":
                out.in_place = True
            elif long == "--sandbox":
                out.sandbox = True
            elif long in ("--expression", "--file"):
                (out.scripts if long == "--expression" else out.script_files).append(attached)
        else:
            for j, letter in enumerate(arg[1:], start=1):
                if letter == "i":  # -i[SUFFIX]: the rest of the word is the backup suffix
                    out.in_place = True
                    break
                if letter in "efl":  # the rest of the word, or the next word, is the value
                    value = arg[j + 1 :]
                    if not value:
                        value, i = _at(args, i), i + 1
                    if letter != "l":
                        (out.scripts if letter == "e" else out.script_files).append(value)
                    break
    if not (out.scripts or out.script_files) and operands:
        out.scripts.append(operands.pop(0))
    out.files = operands
    return out


_SED_LONG = ("--in-place", "--sandbox", "--expression", "--file", "--line-length")


def _sed_actions(script: str) -> list[tuple[str, str]] | None:
    """What a sed script does beyond printing: ("e", command) for each command it executes ("" for
    the pattern space) and ("w", file) for each file it writes; None if the script could not be read.

    A small reader of sed's grammar: [address[,address]][!]command, separated by ; or newlines.
    """
    actions: list[tuple[str, str]] = []
    i = 0
    while i < len(script):
        c = script[i]
        if c in " \t\n;{}!" or c.isdigit() or c in "$,~+":  # separators, blocks, line addresses
            i += 1
        elif c == "#":
            i = _sed_line_end(script, i)
        elif c in "/\\":  # /regex/ or \%regex% address, then its I and M flags
            end = _sed_delimited(script, i + 1) if c == "/" else _sed_delimited(script, i + 2, script[i + 1 : i + 2])
            if end is None:
                return None
            i = _sed_skip(script, end, lambda ch: ch in "IM")
        elif c in "sy":  # s/regex/replacement/flags, y/abc/xyz/
            end = _sed_delimited(script, i + 2, script[i + 1 : i + 2], parts=2)
            if end is None:
                return None
            i = end
            if c == "s":  # flags: e executes the result, w FILE writes it
                i = _sed_skip(script, end, lambda ch: ch in "gpiImMe" or ch.isdigit())
                if "e" in script[end:i]:
                    actions.append(("e", ""))
                if script[i : i + 1] == "w":
                    i = _sed_argument(script, i + 1, actions, "w")
        elif c in "wWe":
            i = _sed_argument(script, i + 1, actions, "w" if c in "wW" else "e")
        elif c in "aicrR":  # text or a file to read, to the end of the line
            i = _sed_line_end(script, i)
        elif c in "btT:v":  # a label (or version), to ; or the end of the line
            i = _sed_skip(script, i, lambda ch: ch not in ";\n")
        elif c in "=dDFgGhHlLnNpPqQxz":
            i += 1
        else:
            return None
    return actions


def _sed_delimited(script: str, start: int, delimiter: str = "/", parts: int = 1) -> int | None:
    """The index after `parts` delimiter-ended sections from `start` (a regex, or an s command's two)."""
    if not delimiter or delimiter in "\n\\":
        return None
    i = start
    for _ in range(parts):
        while i < len(script) and script[i] != delimiter:
            i += 2 if script[i] == "\\" else 1
        if i >= len(script):
            return None
        i += 1
    return i


def _sed_skip(script: str, i: int, keep: Callable[[str], bool]) -> int:
    """The index of the first character from `i` on that `keep` does not accept."""
    while i < len(script) and keep(script[i]):
        i += 1
    return i


def _sed_line_end(script: str, i: int) -> int:
    """The end of the line from `i`; a line ending in a backslash continues (a, i and c's text)."""
    while i < len(script) and script[i] != "\n":
        i += 2 if script[i] == "\\" else 1
    return i


def _sed_argument(script: str, i: int, actions: list[tuple[str, str]], action: str) -> int:
    """Record the rest of the line (w's file, e's command) as `action`; return the line's end."""
    end = _sed_skip(script, i, lambda ch: ch != "\n")
    actions.append((action, script[i:end].strip()))
    return end


def _quote(word: str) -> str:
    return shlex.quote(word) if word not in ("~",) and not word.startswith("~/") else word
