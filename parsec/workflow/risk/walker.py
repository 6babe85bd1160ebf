"""The walk over a command line's syntax tree: every simple command, pipeline, redirection, command
substitution and function definition, with `cd` followed along the way. A simple command goes to
its rule (a `_cmd_NAME` method, see rules/) or else is judged by its name (command_names.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING

from ...bashlex_tables import load_bashlex
from .command_names import (
    CODE_VARIABLES,
    DISK_TOOLS,
    DOWNLOADERS,
    EXECUTORS,
    HANDLER_NAMES,
    HARMLESS_PAGERS,
    POWER,
    READ_ONLY,
    ROOT_WRAPPERS,
    SHELLS,
    USER_SWITCHERS,
    WRITERS,
)
from .feeds import DECODED, DOWNLOADED, FILES, TEXT, Output, output_of, piped_into, stdin_of
from .path_danger import PathChecks
from .runners import code_source
from .syntax_tree import (
    SUBSTITUTIONS,
    assignment_words,
    child_nodes,
    command_names_under,
    command_words,
    feeds_a_shell,
    has_download_substitution,
    nodes_under,
    runs_apart,
    substitutions_in,
)
from .verdict import HIGH, MEDIUM, RiskVerdict
from .words import command_name, first_word, is_assignment, is_dynamic, operands_of, quote_word, unwrapped

if TYPE_CHECKING:
    from .syntax_tree import Node

UNANALYSED = "could not be analysed; check it by eye"
_FORK_BOMB = re.compile(r"(\S+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1\s*&")


def _looks_like_fork_bomb(command: str) -> bool:
    return bool(_FORK_BOMB.search(command))


_FD_TARGET = re.compile(r"\d+-?|-")  # the word after >& that names a file descriptor, not a file
_WHOLE_SUBSTITUTION = re.compile(r'"?(\$\(.*\)|`.*`)"?', re.DOTALL)  # a word that is one $(…)
_LEADING_TIME = re.compile(r"^\s*time(?:\s+-p)?\s+")
_QUOTED_HEREDOC = re.compile(r"""(<<-?\s*)(['"])(\w+)\2""")  # <<'EOF': bashlex only reads <<EOF


def parse(command: str) -> list[Node]:
    """bashlex's trees for `command`; raises what bashlex raises when it cannot be parsed."""
    bashlex = load_bashlex()
    try:
        return bashlex.parse(command)
    except Exception:
        # A quoted delimiter only stops expansion in the body; the body is read as code either way.
        # `time` (a keyword bashlex does not know) only measures the pipeline after it.
        readable = _LEADING_TIME.sub("", _QUOTED_HEREDOC.sub(r"\1\3", command))
        if readable == command:
            raise
        return bashlex.parse(readable)


class Walker(PathChecks):
    """Checks one command line: walks its tree and hands each simple command to its rule."""

    def __init__(self, tree: str, cwd: str | None, home: str) -> None:
        super().__init__(tree, cwd, home)
        self.fed: set[int] = set()  # the commands whose standard input was already judged as code

    def check(self, command: str) -> RiskVerdict:
        verdict = RiskVerdict()
        if not command.strip():
            verdict.raise_to(MEDIUM, "empty command")
            return verdict
        if _looks_like_fork_bomb(command):
            verdict.raise_to(HIGH, "fork bomb: a function that spawns itself endlessly")
        try:
            trees = parse(command)
        except Exception as err:  # bashlex raises several error types, some not exported
            verdict.raise_to(MEDIUM, "could not be parsed; check it by eye")
            verdict.parse_error = str(err).splitlines()[0] if str(err) else type(err).__name__
            return verdict
        try:
            for tree in trees:
                self.visit(tree, verdict)
        except Exception:  # keep what was found so far (it may be high), but never stay low
            verdict.raise_to(MEDIUM, UNANALYSED)
        return verdict

    def _nested(self, command: str, verdict: RiskVerdict) -> RiskVerdict:
        """Check a command that this one runs (sh -c, su -c, find -exec), from where this one runs."""
        walker = type(self)(self.tree, self.cwd, self.home)
        walker.written = self.written
        sub = walker.check(command)
        for reason in sub.reasons:
            verdict.raise_to(sub.level, reason)
        verdict.raise_to(sub.level, None)
        return sub

    def _nested_words(self, words: list[str], verdict: RiskVerdict) -> None:
        """Check words that form a command of their own (after xargs, find -exec, fd -x)."""
        words = [w for w in words if not is_assignment(w)]
        if words:
            self._nested(" ".join(quote_word(w) for w in words), verdict)

    @contextmanager
    def _subshell(self) -> Iterator[None]:
        """A cd inside a subshell, pipeline or substitution does not move the commands after it."""
        saved = self.cwd
        try:
            yield
        finally:
            self.cwd = saved

    # --- walking the tree ------------------------------------------------------------------
    def visit(self, node: Node, verdict: RiskVerdict) -> None:
        kind = getattr(node, "kind", "")
        if kind == "command":
            for sub in substitutions_in(node):  # they run before the command itself
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
        with self._subshell() if runs_apart(node) else nullcontext():
            for child in child_nodes(node):
                self.visit(child, verdict)

    def _function(self, node: Node, verdict: RiskVerdict) -> None:
        name = node.name.word
        calls = [n for n in nodes_under(node.body) if getattr(n, "kind", "") == "word" and n.word == name]
        if len(calls) >= 2:
            verdict.raise_to(HIGH, f"fork bomb: function {name!r} calls itself")

    def _pipeline(self, node: Node, verdict: RiskVerdict) -> None:
        downloaded = False  # an earlier part's output comes from the network
        commands = [p for p in node.parts if getattr(p, "kind", "") == "command"]
        for i, command in enumerate(commands):
            args = unwrapped(command_words(command))[0]
            head = command_name(args[0]) if args else ""
            if downloaded and (head in SHELLS or head in USER_SWITCHERS or feeds_a_shell(command)):
                verdict.raise_to(HIGH, "pipes a download straight into a shell")
            source = code_source(head, args[1:]) if i > 0 and head else None
            if source and source.reads_stdin and stdin_of(command) is None:
                self.fed.add(id(command))
            if source and id(command) in self.fed and not downloaded:
                self._run_code(source.language, piped_into(commands[:i]), head, verdict)
            elif i > 0 and head and not source:
                self._catalogue_stdin(head, piped_into(commands[:i]), verdict)
            downloaded = downloaded or head in DOWNLOADERS or has_download_substitution(command)

    def _run_code(self, language: str, code: Output, runner: str, verdict: RiskVerdict) -> None:
        """`runner` runs `code` (known text, or where it comes from) as `language`."""
        if code.kind == DOWNLOADED:
            verdict.raise_to(HIGH, f"{runner} runs code downloaded from the network: it cannot be read before it runs")
        elif code.kind == DECODED:
            verdict.raise_to(HIGH, f"{runner} runs code decoded by {code.text}: it cannot be read before it runs")
        elif code.kind == FILES:
            for file in code.files:
                self._run_script(file, runner, verdict)
        elif code.kind == TEXT and language == "sh":
            self._nested(code.text, verdict)
        elif code.kind == TEXT:
            self._foreign_code(language, code.text, runner, verdict)
        else:
            verdict.raise_to(MEDIUM, f"{runner} runs the code that {code.text} prints")

    def _run_file(self, word: str, language: str, runner: str, verdict: RiskVerdict) -> None:
        """`runner` runs the file `word` as `language`: a script, or a <(…) that prints the code."""
        subs = [s for s in substitutions_in(self.node) if s.kind == "processsubstitution"]
        if word.startswith("<(") and subs:
            self._run_code(language, output_of(subs[0].command), runner, verdict)
        else:
            self._run_script(word, runner, verdict)

    def _foreign_code(self, language: str, code: str, runner: str, verdict: RiskVerdict) -> None:
        from .plain_code import plainly_harmless

        if language == "sql":
            from .sql import sql_effect

            verdict.raise_to(*sql_effect(code))
        elif not plainly_harmless(language, code):
            verdict.raise_to(HIGH, f"{runner} runs {language} code that may run commands or change files")

    def _run_script(self, script: str, runner: str, verdict: RiskVerdict) -> None:
        """`runner` runs the file `script`: one this line writes cannot be read before it runs."""
        if self._resolve(script) in self.written:
            verdict.raise_to(HIGH, f"{runner} runs {script}, which this line writes: it cannot be read before it runs")
        else:
            verdict.raise_to(MEDIUM, f"{runner} runs the script {script}")

    def _process_substitution(self, node: Node, verdict: RiskVerdict) -> None:
        if DOWNLOADERS & command_names_under(node.command):
            verdict.raise_to(HIGH, "runs a downloaded script")

    # --- one simple command ----------------------------------------------------------------
    def _command(self, node: Node, verdict: RiskVerdict) -> None:
        for redirect in (p for p in node.parts if getattr(p, "kind", "") == "redirect"):
            self._redirect(redirect, verdict)
        words = command_words(node)
        args, wrappers = unwrapped(words)
        wrapper_words = words[: len(words) - len(args)]  # env X=1, sudo -E ...
        for assignment in assignment_words(node) + [w for w in wrapper_words if is_assignment(w)]:
            self._assignment(assignment, verdict)
        for wrapper in wrappers:
            if wrapper in ROOT_WRAPPERS:
                verdict.raise_to(HIGH, f"runs as root ({wrapper})")
        if not args:
            return
        if is_dynamic(args[0]):
            self._dynamic_command(node, verdict)
            return
        name, rest = command_name(args[0]), args[1:]
        if not name:  # '' or "": no such command, but say so rather than name an empty word
            verdict.raise_to(MEDIUM, "the command's name is empty")
            return
        if "/" in args[0] and self._resolve(args[0]) in self.written:
            self._run_script(args[0], "the line", verdict)
        source = code_source(name, rest)
        fed = stdin_of(node) if source and source.reads_stdin else None
        if source and fed is not None:
            self.fed.add(id(node))
            self._run_code(source.language, fed, name, verdict)
        if name in EXECUTORS and has_download_substitution(node):
            verdict.raise_to(HIGH, "runs a downloaded script")
        if name in DOWNLOADERS and feeds_a_shell(node):  # curl x > >(sh)
            verdict.raise_to(HIGH, "pipes a download straight into a shell")
        handler = self._handler(name)
        self.node, self.name = node, name  # for rules that need more than the words (a <(…) operand)
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
        self._catalogue(name, rest, verdict)

    def _catalogue(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        """What GTFOBins says `name` can run or write (rules/catalogue.py)."""

    def _catalogue_stdin(self, name: str, fed: Output, verdict: RiskVerdict) -> None:
        """What GTFOBins says `name` runs of the text piped into it (rules/catalogue.py)."""

    def _handler(self, name: str) -> Callable[[list[str], RiskVerdict], None] | None:
        name = HANDLER_NAMES.get(name, name)
        if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
            return None
        return getattr(self, "_cmd_" + name.replace("-", "_"), None)

    def _dynamic_command(self, node: Node, verdict: RiskVerdict) -> None:
        # `$(curl x)` runs whatever the server sends; `$(echo rm -rf ~)` runs `rm -rf ~`;
        # `$CMD` runs something we cannot name.
        head = next(p for p in node.parts if getattr(p, "kind", "") == "word")
        subs = [p for p in getattr(head, "parts", None) or [] if getattr(p, "kind", "") in SUBSTITUTIONS]
        if has_download_substitution(node):
            verdict.raise_to(HIGH, "runs the output of a download as a command")
        elif len(subs) == 1 and _WHOLE_SUBSTITUTION.fullmatch(head.word):
            self._run_code("sh", output_of(subs[0].command), "the line", verdict)
        else:
            verdict.raise_to(MEDIUM, "the command's name is only known at run time")

    def _assignment(self, assignment: str, verdict: RiskVerdict) -> None:
        name, _, value = assignment.partition("=")
        if (name in CODE_VARIABLES or name.startswith("GIT_CONFIG")) and first_word(value) not in HARMLESS_PAGERS:
            verdict.raise_to(MEDIUM, f"setting {name} can make a command run another program")

    def _redirect(self, node: Node, verdict: RiskVerdict) -> None:
        target: Node = getattr(node, "output", None)
        if not hasattr(target, "word") or node.type not in (">", ">>", ">|", "&>", "&>>", ">&"):
            return
        if node.type == ">&" and _FD_TARGET.fullmatch(target.word):
            return  # 2>&1, >&2, >&3-: duplicates or closes a descriptor; `>& file` is `&> file`
        if any(getattr(p, "kind", "") in SUBSTITUTIONS for p in target.parts):
            return  # > >(cmd): the command is checked on its own
        self._write_to(target.word, "redirection", verdict, overwrite=node.type in (">", ">|", "&>", ">&"))

    # --- where the next command runs -------------------------------------------------------
    def _cmd_cd(self, rest: list[str], verdict: RiskVerdict) -> None:
        targets = operands_of(rest)
        self.cwd = self._cd_target(targets[0] if targets else "~")

    def _cmd_pushd(self, rest: list[str], verdict: RiskVerdict) -> None:
        targets = operands_of(rest)
        rotates = not targets or targets[0][:1] in ("+", "-")  # pushd, pushd +1: a stack entry we did not see
        self.cwd = None if rotates else self._cd_target(targets[0])

    def _cmd_popd(self, rest: list[str], verdict: RiskVerdict) -> None:
        self.cwd = None  # back to a directory on the stack we did not see

    def _cd_target(self, target: str) -> str | None:
        # cd - (the previous directory), cd $DIR or cd b* lead somewhere we cannot know.
        if target == "-" or is_dynamic(target) or any(c in target for c in "*?["):
            return None
        return self._resolve(target)
