"""Commands that run a command on every match or input (find -exec, fd -x, xargs, rg --pre), and
find -delete: the command is checked as if run on one item, and deleting matches checks the roots."""

from __future__ import annotations

import itertools
import re

from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import after_options, command_name, expand_braces, is_assignment, operands_of, option_values, unwrapped

XARGS_VALUE_OPTIONS = {
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-E",
    "-I",
    "-L",
    "-n",
    "--max-args",
    "-P",
    "--max-procs",
    "-s",
    "--max-chars",
    "--process-slot-var",
}
FD_VALUE_OPTIONS = {
    "-e",
    "--extension",
    "-t",
    "--type",
    "-E",
    "--exclude",
    "-d",
    "--max-depth",
    "--min-depth",
    "--exact-depth",
    "-S",
    "--size",
    "--changed-within",
    "--changed-before",
    "-o",
    "--owner",
    "-j",
    "--threads",
    "-c",
    "--color",
    "--base-directory",
    "--search-path",
    "--max-results",
    "--ignore-file",
    "--path-separator",
    "--batch-size",
    "--format",
}
FIND_EXEC_FLAGS = {"-exec", "-execdir", "-ok", "-okdir"}
FD_EXEC_FLAGS = {"-x", "--exec", "-X", "--exec-batch"}
DELETERS = {"rm", "shred", "unlink"}  # an -exec running these deletes what find matched
_PLACEHOLDER = re.compile(r"\{[/.]*\}")  # find's {}, fd's {} {/} {//} {.} {/.}


class SearchRules(Walker):
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
        roots = operands_of(before_exec, FD_VALUE_OPTIONS)[1:] + option_values(before_exec, "", "--search-path")
        for flag, inner in _exec_clauses(rest, FD_EXEC_FLAGS):
            verdict.raise_to(MEDIUM, f"fd {flag} runs a command on every match")
            self._exec_on_matches(flag, inner, roots or ["."], "fd", verdict)

    def _exec_on_matches(self, flag: str, inner: list[str], roots: list[str], tool: str, verdict: RiskVerdict) -> None:
        """find -exec / fd -x: the command runs on each match; a deleter deletes the search roots' contents."""
        self._run_on_each(inner, "./matched-file", "matched file", verdict)
        args = unwrapped(inner)[0]
        head = command_name(args[0]) if args else ""
        if head in DELETERS:
            self._deleted_roots(roots, f"{tool} {flag} {head}", verdict)

    def _deleted_roots(self, roots: list[str], how: str, verdict: RiskVerdict) -> None:
        """Deleting what a search matches: its roots are checked like rm -rf's targets."""
        for root in roots:
            problem = self._deletion_problem(root)
            if problem and problem != "the whole working directory":
                verdict.raise_to(HIGH, f"{how} on {root}: {problem}")

    def _cmd_xargs(self, rest: list[str], verdict: RiskVerdict) -> None:
        command = after_options(rest, XARGS_VALUE_OPTIONS)
        if command:  # without one, xargs runs echo
            self._run_on_each(command, "./each-input", "input", verdict)

    def _run_on_each(self, words: list[str], item: str, what: str, verdict: RiskVerdict) -> None:
        """xargs CMD / find -exec CMD: CMD runs with `item` (a stand-in path for `what`) appended."""
        args = unwrapped([w for w in words if not is_assignment(w)])[0]
        if args and args not in (["eval"], ["xargs"]):
            self._nested_words(words + [item], verdict)
            return
        self._nested_words(words, verdict)  # xargs sudo / xargs eval: the item itself is run
        verdict.raise_to(MEDIUM, f"runs each {what} as a command")

    def _cmd_rg(self, rest: list[str], verdict: RiskVerdict) -> None:
        if any(a == "--pre" or a.startswith("--pre=") for a in rest):
            verdict.raise_to(MEDIUM, "rg --pre runs a command on every file it searches")


def _find_roots(args: list[str]) -> list[str]:
    """The paths find searches: the words before its first test or action (default .)."""
    i = 0
    while i < len(args) and (args[i] in ("-H", "-L", "-P", "-D") or re.fullmatch(r"-O\d*", args[i])):
        i += 2 if args[i] == "-D" else 1
    roots: list[str] = []
    for arg in args[i:]:
        if arg.startswith("-") or arg in ("(", "\\(", "!", ","):
            break
        roots.extend(expand_braces(arg))
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
