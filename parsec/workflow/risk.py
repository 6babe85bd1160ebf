"""The risk check: a verdict (low / medium / high + reasons) for a shell command.

The command is parsed with bashlex and every simple command, pipeline, redirection, command
substitution and function definition in it is analysed. Nothing here greps substrings: `git log
--format=%h` is read-only, `format c:` is not; `rm -rf ./build` stays inside the working tree,
`rm -rf ~` does not.

Levels: `low` — read-only or only changes the shell's own state (cd, export); the gate runs it on
an empty answer and `--yes` approves it. `medium` — changes files or the system in an ordinary way;
needs a `y`. `high` — destructive or hard to undo; needs an explicit `yes`, never auto-approved.
"""

from __future__ import annotations

import os
import re
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


# Commands that only read, or only change the shell's own state.
READ_ONLY = {
    "ls", "ll", "la", "cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag",
    "pwd", "echo", "printf", "wc", "du", "df", "stat", "file", "which", "type", "whoami", "id",
    "uname", "date", "printenv", "tree", "sort", "uniq", "cut", "diff", "cmp", "comm", "test", "[",
    "true", "false", ":", "basename", "dirname", "realpath", "readlink", "ps", "jq", "sha256sum",
    "sha1sum", "md5sum", "hostname", "uptime", "free", "lsblk", "column", "nl", "tr", "fold",
    "seq", "sleep", "whereis", "locate", "help", "history", "env", "cd", "pushd", "popd",
    "export", "unset", "alias", "source", ".", "set", "hash", "command", "tac", "rev", "od", "xxd",
    "hexdump", "strings", "zcat", "bat", "fd", "dirs", "lsof", "nproc", "getconf", "locale", "tty",
    "git",  # git is refined below
}
# less, more, man and top are read-only too, but wait for keys: not auto-approved under --yes.
GIT_READ_ONLY = {
    "status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "ls-tree", "describe",
    "shortlog", "reflog", "grep", "cat-file", "remote", "branch", "tag", "config", "stash list",
}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node"}
DOWNLOADERS = {"curl", "wget", "fetch"}
WRAPPERS = {"sudo", "doas", "nohup", "time", "nice", "ionice", "command", "exec", "builtin", "stdbuf", "timeout"}
DISK_TOOLS = {"mkfs", "wipefs", "fdisk", "sfdisk", "parted", "sgdisk", "gdisk", "format", "mkswap", "blkdiscard"}
POWER = {"shutdown", "reboot", "halt", "poweroff"}
SYSTEM_DIRS = ("/etc", "/usr", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/var", "/opt", "/sys", "/proc", "/dev")
PROTECTED_WRITE_DIRS = ("/etc", "/usr", "/boot")
HARMLESS_DEVICES = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom"}
WRITERS = {"cp", "mv", "tee", "touch", "install", "ln", "rm", "rmdir", "mkdir", "truncate", "rsync", "chmod", "chown", "chgrp"}


def assess(command: str, cwd: str | None = None, home: str | None = None) -> RiskVerdict:
    """The verdict for `command` as it would run in `cwd`."""
    checker = _Checker(cwd or os.getcwd(), home or os.path.expanduser("~"))
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
    for tree in trees:
        checker.visit(tree, verdict)
    return verdict


_FORK_BOMB = re.compile(r"(\S+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1\s*&")


def _looks_like_fork_bomb(command: str) -> bool:
    return bool(_FORK_BOMB.search(command))


class _Checker:
    def __init__(self, cwd: str, home: str) -> None:
        self.cwd = os.path.normpath(cwd)
        self.home = os.path.normpath(home)

    # --- walking the tree ------------------------------------------------------------------
    def visit(self, node: Any, verdict: RiskVerdict) -> None:
        kind = getattr(node, "kind", "")
        if kind == "command":
            self._command(node, verdict)
            for part in node.parts:  # command substitutions inside words run too
                for inner in getattr(part, "parts", None) or []:
                    self.visit(inner, verdict)
            return
        if kind == "pipeline":
            self._pipeline(node, verdict)
        elif kind == "function":
            self._function(node, verdict)
        elif kind == "processsubstitution":
            self._process_substitution(node, verdict)
            self.visit(node.command, verdict)
        for child in _children(node):
            self.visit(child, verdict)

    def _function(self, node: Any, verdict: RiskVerdict) -> None:
        name = node.parts[0].word if node.parts else ""
        calls = [w for w in _words_anywhere(node.parts[1:]) if w == name]
        if name and len(calls) >= 2:
            verdict.raise_to(HIGH, f"fork bomb: function {name!r} calls itself")

    def _pipeline(self, node: Any, verdict: RiskVerdict) -> None:
        commands = [p for p in node.parts if getattr(p, "kind", "") == "command"]
        names = [_unwrapped(_words(c))[0] for c in commands if _words(c)]
        heads = [n[0] if n else "" for n in names]
        for i, head in enumerate(heads):
            if head in DOWNLOADERS and any(h in SHELLS or h in ("sudo", "doas") for h in heads[i + 1 :]):
                verdict.raise_to(HIGH, "pipes a download straight into a shell")
            if i > 0 and head in SHELLS and len(names[i]) == 1:
                verdict.raise_to(MEDIUM, f"feeds text into {head} to execute")

    def _process_substitution(self, node: Any, verdict: RiskVerdict) -> None:
        inner = [w for w in _words_anywhere([node.command])]
        if inner and inner[0] in DOWNLOADERS:
            verdict.raise_to(HIGH, "runs a downloaded script")

    # --- one simple command ----------------------------------------------------------------
    def _command(self, node: Any, verdict: RiskVerdict) -> None:
        words = _words(node)
        for redirect in (p for p in node.parts if getattr(p, "kind", "") == "redirect"):
            self._redirect(redirect, verdict)
        if not words:
            return
        args, wrappers = _unwrapped(words)
        if {"sudo", "doas"} & set(wrappers):
            verdict.raise_to(HIGH, "runs as root (sudo)")
        if not args:
            return
        name = os.path.basename(args[0])
        rest = args[1:]
        handler = getattr(self, f"_cmd_{name.replace('-', '_').replace('.', '_')}", None)
        if handler is not None:
            handler(rest, verdict)
        elif name.startswith("mkfs") or name in DISK_TOOLS:
            verdict.raise_to(HIGH, f"{name} formats or rewrites a disk")
        elif name in POWER or (name == "init" and rest[:1] in (["0"], ["6"])):
            verdict.raise_to(HIGH, f"{name} stops or restarts the machine")
        elif name in READ_ONLY:
            if name == "env" and rest:
                self._command_words(rest, verdict)
        elif name in DOWNLOADERS:
            verdict.raise_to(MEDIUM, f"{name} downloads from the network")
        else:
            verdict.raise_to(MEDIUM, f"{name} may change files or the system")
        if name in WRITERS and name not in ("rm", "chmod", "chown", "chgrp"):
            for target in _operands(rest):
                self._protected_write(target, name, verdict)
        self._inline_scripts(name, rest, verdict)

    def _command_words(self, words: list[str], verdict: RiskVerdict) -> None:
        """Analyse words that form a command of their own (after env, xargs, find -exec)."""
        words = [w for w in words if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
        if not words:
            return
        sub = assess(" ".join(_quote(w) for w in words), self.cwd, self.home)
        for reason in sub.reasons:
            verdict.raise_to(sub.level, reason)
        if not sub.reasons:
            verdict.raise_to(sub.level, None)

    def _inline_scripts(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        if name in ("sh", "bash", "zsh", "dash", "eval") and rest:
            script = " ".join(rest) if name == "eval" else (rest[rest.index("-c") + 1] if "-c" in rest[:-1] else "")
            if script:
                sub = assess(script, self.cwd, self.home)
                for reason in sub.reasons:
                    verdict.raise_to(sub.level, reason)

    def _redirect(self, node: Any, verdict: RiskVerdict) -> None:
        target = getattr(node, "output", None)
        if not hasattr(target, "word") or node.type not in (">", ">>", ">|", "&>", "&>>"):
            return
        path = self._resolve(target.word)
        if path.startswith("/dev/") and path not in HARMLESS_DEVICES:
            verdict.raise_to(HIGH, f"writes straight to the device {path}")
            return
        self._protected_write(target.word, "redirection", verdict)
        if node.type in (">", ">|", "&>") and os.path.isfile(path):
            verdict.raise_to(HIGH, f"overwrites the existing file {target.word}")
        elif path not in HARMLESS_DEVICES:
            verdict.raise_to(MEDIUM, f"writes to {target.word}")

    def _protected_write(self, target: str, how: str, verdict: RiskVerdict) -> None:
        path = self._resolve(target)
        ssh = os.path.join(self.home, ".ssh")
        if _under(path, ssh):
            verdict.raise_to(HIGH, f"{how} writes under ~/.ssh")
        for top in PROTECTED_WRITE_DIRS:
            if _under(path, top):
                verdict.raise_to(HIGH, f"{how} writes under {top}")

    # --- per-command rules -----------------------------------------------------------------
    def _cmd_rm(self, rest: list[str], verdict: RiskVerdict) -> None:
        flags = "".join(a[1:] for a in rest if a.startswith("-") and not a.startswith("--"))
        long_flags = {a for a in rest if a.startswith("--")}
        recursive = bool(set(flags) & {"r", "R"}) or "--recursive" in long_flags
        forced = "f" in flags or "--force" in long_flags
        targets = _operands(rest)
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
        if re.sub(r"^(~|\$\{?HOME\}?)(?=/|$)", "", target).count("$") or "`" in target:
            return "the target depends on a variable (empty, it could mean /)"
        if target in ("*", ".*", "./*", "/*", "~/*", "*/") or re.fullmatch(r"(\.\./)*\*", target):
            return "a broad glob"
        path = self._resolve(target)
        if path in ("/", self.home) or path in SYSTEM_DIRS:
            return "a system or home directory"
        if path == self.cwd:
            return "the whole working directory"
        if not _under(path, self.cwd):
            return "outside the working directory"
        if "*" in target and os.path.dirname(path) == self.cwd and os.path.basename(target) == "*":
            return "a broad glob"
        return None

    def _cmd_dd(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, "dd copies raw data")
        for arg in rest:
            if arg.startswith("of="):
                path = self._resolve(arg[3:])
                if path.startswith("/dev/") and path not in HARMLESS_DEVICES:
                    verdict.raise_to(HIGH, f"dd writes to the block device {path}")
                else:
                    self._protected_write(arg[3:], "dd", verdict)

    def _cmd_shred(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "shred destroys data irrecoverably")

    def _chmod_like(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        recursive = any(a in ("-R", "--recursive") or (a.startswith("-") and "R" in a) for a in rest)
        verdict.raise_to(MEDIUM, f"{name} changes permissions or ownership")
        operands = _operands(rest)[1:]  # the first operand is the mode or owner
        for target in operands:
            path = self._resolve(target)
            system = path in ("/", self.home) or any(_under(path, top) for top in SYSTEM_DIRS)
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
        sub_index = next((i for i, a in enumerate(rest) if not a.startswith("-")), None)
        if sub_index is None:
            return
        if sub_index > 0 and rest[sub_index - 1] in ("-C", "-c"):
            sub_index = next((i for i, a in enumerate(rest) if i > sub_index and not a.startswith("-")), None)
            if sub_index is None:
                return
        sub, args = rest[sub_index], rest[sub_index + 1 :]
        if sub == "push" and any(a in ("-f", "--force", "--force-with-lease", "--mirror") or a.startswith("--force") or (a.startswith("+") and len(a) > 1) for a in args):
            verdict.raise_to(HIGH, "git push --force rewrites the remote's history")
        elif sub == "reset" and "--hard" in args:
            verdict.raise_to(HIGH, "git reset --hard discards uncommitted work")
        elif sub == "clean" and any(a.startswith("-") and "f" in a for a in args):
            verdict.raise_to(HIGH, "git clean -f deletes untracked files")
        elif sub in ("checkout", "restore") and ("." in args or "--" in args and args[-1:] == ["."]):
            verdict.raise_to(HIGH, f"git {sub} . discards uncommitted changes")
        elif sub == "branch" and any(a in ("-D", "-d", "--delete", "-m", "-M") for a in args):
            verdict.raise_to(MEDIUM, "git branch deletes or renames a branch")
        elif sub == "config" and args and not any(a in ("--get", "--list", "-l", "--get-all") for a in args) and len(_operands(args)) > 1:
            verdict.raise_to(MEDIUM, "git config changes settings")
        elif sub == "stash" and args[:1] == ["list"]:
            return
        elif sub not in GIT_READ_ONLY or (sub in ("remote", "tag") and _operands(args)[:1] not in ([], ["-v"], ["show"])):
            verdict.raise_to(MEDIUM, f"git {sub} changes the repository")

    def _cmd_find(self, rest: list[str], verdict: RiskVerdict) -> None:
        if "-delete" in rest:
            verdict.raise_to(MEDIUM, "find -delete deletes files")
            roots = [a for a in rest if not a.startswith("-")][:1]
            for root in roots:
                problem = self._deletion_problem(root)
                if problem and problem != "the whole working directory":
                    verdict.raise_to(HIGH, f"find -delete on {root}: {problem}")
        for flag in ("-exec", "-execdir", "-ok", "-okdir"):
            if flag in rest:
                start = rest.index(flag) + 1
                end = next((i for i in range(start, len(rest)) if rest[i] in (";", "+", "\\;")), len(rest))
                inner = [w for w in rest[start:end] if w != "{}"]
                verdict.raise_to(MEDIUM, f"find {flag} runs a command on every match")
                self._command_words(inner + ["./matched-file"], verdict)
        if any(a in ("-fprint", "-fprintf", "-fls") for a in rest):
            verdict.raise_to(MEDIUM, "find writes to a file")

    def _cmd_xargs(self, rest: list[str], verdict: RiskVerdict) -> None:
        operands = [a for a in rest if not a.startswith("-")]
        if operands:
            start = rest.index(operands[0])
            self._command_words(rest[start:] + ["./each-input"], verdict)
        else:
            verdict.raise_to(LOW, None)

    def _cmd_kill(self, rest: list[str], verdict: RiskVerdict) -> None:
        if "-1" in _operands(rest) or rest[-1:] == ["-1"]:
            verdict.raise_to(HIGH, "kill -1 signals every process you own")
        else:
            verdict.raise_to(MEDIUM, "kill stops processes")

    def _cmd_sed(self, rest: list[str], verdict: RiskVerdict) -> None:
        if any(a == "-i" or a.startswith("-i") or a.startswith("--in-place") for a in rest):
            verdict.raise_to(MEDIUM, "sed -i edits files in place")
            for target in _operands(rest)[1:]:
                self._protected_write(target, "sed -i", verdict)

    def _cmd_awk(self, rest: list[str], verdict: RiskVerdict) -> None:
        program = " ".join(rest)
        if "system(" in program or re.search(r"print[^|]*>", program) or "|" in program:
            verdict.raise_to(MEDIUM, "awk program runs commands or writes files")

    # --- paths -----------------------------------------------------------------------------
    def _resolve(self, target: str) -> str:
        text = target
        if text == "~" or text.startswith("~/"):
            text = self.home + text[1:]
        text = re.sub(r"^\$\{?HOME\}?", self.home, text)
        if not os.path.isabs(text):
            text = os.path.join(self.cwd, text)
        return os.path.normpath(text)


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _children(node: Any) -> list[Any]:
    out: list[Any] = []
    for attr in ("parts", "list"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            out.extend(value)
    command = getattr(node, "command", None)
    if command is not None and getattr(node, "kind", "") in ("commandsubstitution",):
        out.append(command)
    return out


def _words(node: Any) -> list[str]:
    return [p.word for p in getattr(node, "parts", []) if getattr(p, "kind", "") == "word"]


def _words_anywhere(nodes: list[Any]) -> list[str]:
    out: list[str] = []
    for node in nodes:
        if getattr(node, "kind", "") == "word":
            out.append(node.word)
        out.extend(_words_anywhere(_children(node)))
        command = getattr(node, "command", None)
        if command is not None and getattr(node, "kind", "") == "processsubstitution":
            out.extend(_words_anywhere([command]))
    return out


def _unwrapped(words: list[str]) -> tuple[list[str], list[str]]:
    """Strip leading assignments and wrappers (sudo, nohup, env X=1 ...); return (rest, wrappers)."""
    wrappers: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            i += 1
        elif os.path.basename(word) in WRAPPERS:
            wrappers.append(os.path.basename(word))
            i += 1
            # Skip the wrapper's own options (sudo -u root, timeout 5, nice -n 10).
            while i < len(words) and (words[i].startswith("-") or (wrappers[-1] in ("timeout",) and words[i][:1].isdigit())):
                if words[i] in ("-u", "-g", "-n") and i + 1 < len(words):
                    i += 1
                i += 1
        elif word == "env" and i + 1 < len(words) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[i + 1]):
            wrappers.append("env")
            i += 1
        else:
            break
    return words[i:], wrappers


def _operands(args: list[str]) -> list[str]:
    out: list[str] = []
    after_dashdash = False
    for arg in args:
        if arg == "--" and not after_dashdash:
            after_dashdash = True
        elif after_dashdash or not arg.startswith("-") or arg == "-":
            out.append(arg)
    return out


def _quote(word: str) -> str:
    import shlex

    return shlex.quote(word) if word not in ("~",) and not word.startswith("~/") else word
