"""git: which subcommands and forms only read, which change the repository, and which are hard to
undo (push --force, reset --hard, clean -f, checkout .)."""

from __future__ import annotations

from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import flag_names, operands_of, option_values, word_roles

GIT_READ_ONLY = {
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "describe",
    "shortlog",
    "reflog",
    "grep",
    "cat-file",
    "remote",
    "branch",
    "tag",
    "config",
    "stash list",
}
# git's own options that take the next word as their value (git -C dir, git -c key=value).
GIT_VALUE_OPTIONS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
# `git branch` / `git tag` options whose value may be the next word: that word is neither a new
# branch's or tag's name nor flag letters (`--sort -committerdate` is not -d).
GIT_BRANCH_VALUE_OPTIONS = {
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--sort",
    "--format",
}
GIT_TAG_VALUE_OPTIONS = GIT_BRANCH_VALUE_OPTIONS | {
    "-m",
    "--message",
    "-F",
    "--file",
    "-u",
    "--local-user",
    "--cleanup",
    "--trailer",
}
GIT_CONFIG_VALUE_OPTIONS = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}
GIT_CONFIG_WRITES = {
    "--unset",
    "--unset-all",
    "--remove-section",
    "--rename-section",
    "-e",
    "--edit",
    "--add",
    "--replace-all",
}
GIT_CONFIG_READS = {
    "--get",
    "--get-all",
    "--get-regexp",
    "--get-urlmatch",
    "--get-color",
    "--get-colorbool",
    "-l",
    "--list",
}
# `git config SUBCOMMAND` (git 2.46+) that change settings or open an editor.
GIT_CONFIG_WRITE_SUBCOMMANDS = {"set", "unset", "rename-section", "remove-section", "edit"}
# git grep options whose value is the next word (so `-e -O` searches for "-O").
GIT_GREP_VALUED_LETTERS = "efABCm"


class GitRules(Walker):
    def _cmd_git(self, rest: list[str], verdict: RiskVerdict) -> None:
        options, sub, args = _git_split(rest)
        # core.pager, core.fsmonitor, diff.external, alias.* ... name programs git then runs.
        if any(o in ("-c", "--config-env") or o.startswith(("--config-env=", "--exec-path=")) for o in options):
            verdict.raise_to(MEDIUM, "git -c can run arbitrary commands")
        if sub is None:
            return
        for target in option_values(args, "", "--output"):  # git diff/log/show --output=FILE
            self._write_to(target, f"git {sub} --output", verdict)
        if sub == "push" and any(
            a in ("-f", "--force", "--force-with-lease", "--mirror")
            or a.startswith("--force")
            or (a.startswith("+") and len(a) > 1)
            for a in args
        ):
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
        elif sub == "grep" and option_values(
            args, "O", "--open-files-in-pager", GIT_GREP_VALUED_LETTERS, optional=True
        ):
            verdict.raise_to(MEDIUM, "git grep -O runs a pager program on the matching files")
        elif sub == "reflog" and args and not args[0].startswith("-") and args[0] != "show":
            verdict.raise_to(MEDIUM, f"git reflog {args[0]} can expire or delete reflog entries")
        elif sub == "stash" and args[:1] == ["list"]:
            return
        elif sub not in GIT_READ_ONLY or (sub == "remote" and operands_of(args)[:1] not in ([], ["-v"], ["show"])):
            verdict.raise_to(MEDIUM, f"git {sub} changes the repository")


def _git_split(rest: list[str]) -> tuple[list[str], str | None, list[str]]:
    """git's own options, the subcommand and its arguments."""
    i = sum(role != "operand" for _, role in word_roles(rest, GIT_VALUE_OPTIONS, permute=False))
    return rest[:i], (rest[i] if i < len(rest) else None), rest[i + 1 :]


def _git_branch_change(args: list[str]) -> str | None:
    """Why `git branch ARGS` changes the repository; None for a listing (git branch -a, -v, --list)."""
    letters, longs = flag_names(args, GIT_BRANCH_VALUE_OPTIONS)
    if letters & set("dDmMcC") or longs & {"--delete", "--move", "--copy"}:
        return "git branch deletes, renames or copies a branch"
    if "f" in letters or "--force" in longs:
        return "git branch -f moves a branch"
    if letters & set("ut") or longs & {"--set-upstream-to", "--unset-upstream", "--track", "--edit-description"}:
        return "git branch changes a branch's upstream or description"
    if "l" in letters or "--list" in longs:
        return None  # the operands are patterns to list
    if operands_of(args, GIT_BRANCH_VALUE_OPTIONS):
        return "git branch creates a branch"
    return None


def _git_tag_change(args: list[str]) -> str | None:
    """Why `git tag ARGS` changes the repository; None for a listing or check (git tag -l 'v*', -v)."""
    letters, longs = flag_names(args, GIT_TAG_VALUE_OPTIONS)
    if "d" in letters or "--delete" in longs:
        return "git tag deletes a tag"
    if letters & set("lv") or longs & {"--list", "--verify"}:
        return None  # the operands are patterns to list or tags to verify
    if operands_of(args, GIT_TAG_VALUE_OPTIONS):
        return "git tag creates or moves a tag"
    return None


def _git_config_change(args: list[str]) -> str | None:
    """Why `git config ARGS` changes settings (or opens an editor); None for a lookup or listing."""
    options = {word.split("=")[0] for word, role in word_roles(args, GIT_CONFIG_VALUE_OPTIONS) if role == "option"}
    operands = operands_of(args, GIT_CONFIG_VALUE_OPTIONS)
    if options & GIT_CONFIG_WRITES or operands[:1] and operands[0] in GIT_CONFIG_WRITE_SUBCOMMANDS:
        return "git config changes settings"
    if options & GIT_CONFIG_READS or operands[:1] in (["get"], ["list"]):
        return None
    if len(operands) > 1:  # git config KEY VALUE
        return "git config changes settings"
    return None


_GIT_CHANGES = {"branch": _git_branch_change, "tag": _git_tag_change, "config": _git_config_change}
