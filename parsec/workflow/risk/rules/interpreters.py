"""Shells and language interpreters, and the programs that hand them code (eval, watch, source, an
editor's `-c ':!…'`): the code is judged as what it is. Shell code is checked as a command line of
its own; code in another language is high unless it is plainly harmless (plain_code.py); code that
cannot be read before it runs (a script this line writes, a download) is high."""

from __future__ import annotations

import re

from ..runners import code_source, shell_start_file
from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import after_options, operands_of

WATCH_VALUE_OPTIONS = {"-n", "--interval", "-q", "--equexit"}
VIM_CODE = re.compile(
    r"^\s*:*\s*(?:sy(?:stem)?|call?|py(?:thon)?3?|pyx|lua|perl|rub(?:y)?|exe(?:cute)?|ter(?:minal)?|sh(?:ell)?)\b"
    r"|\bshell\s*="  # :set shell=CMD | shell
)


class InterpreterRules(Walker):
    def _cmd_sh(self, rest: list[str], verdict: RiskVerdict) -> None:
        name = self.name
        start = shell_start_file(rest)
        if start:
            self._run_script(start, f"{name} --rcfile", verdict)
        source = code_source("sh", rest)
        if source is None:
            return
        for code in source.code:
            self._nested(code, verdict)
        if source.script:
            self._run_file(source.script, "sh", name, verdict)
        elif source.reads_stdin and id(self.node) not in self.fed:
            verdict.raise_to(MEDIUM, f"{name} may change files or the system")  # an interactive shell

    def _cmd_eval(self, rest: list[str], verdict: RiskVerdict) -> None:
        if rest:
            self._nested(" ".join(rest), verdict)

    def _cmd_source(self, rest: list[str], verdict: RiskVerdict) -> None:
        files = operands_of(rest)
        if files:
            self._run_file(files[0], "sh", "source", verdict)
        verdict.raise_to(MEDIUM, "sourcing runs a script in the current shell")

    def _cmd_watch(self, rest: list[str], verdict: RiskVerdict) -> None:
        """watch runs its words joined by spaces through `sh -c` (with -x, as words)."""
        words = after_options(rest, WATCH_VALUE_OPTIONS)
        verdict.raise_to(MEDIUM, "watch runs a command again and again")
        if any(a in ("-x", "--exec") for a in rest):
            self._nested_words(words, verdict)
        elif words:
            self._nested(" ".join(words), verdict)

    def _interpreter(self, language: str, rest: list[str], verdict: RiskVerdict) -> None:
        source = code_source(language, rest)
        if source is None:
            return
        for code in source.code:
            self._foreign_code(language, code, self.name, verdict)
        if source.module:
            verdict.raise_to(MEDIUM, f"{self.name} -m runs the module {source.module}")
        elif source.script:
            self._run_file(source.script, language, self.name, verdict)
        elif source.reads_stdin and id(self.node) not in self.fed:
            verdict.raise_to(MEDIUM, f"{self.name} may change files or the system")
        if language == "perl" and any(re.fullmatch(r"-[a-zA-Z]*i\S*", a) for a in rest):
            verdict.raise_to(MEDIUM, "perl -i edits files in place")

    def _cmd_python(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._interpreter("python", rest, verdict)

    def _cmd_perl(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._interpreter("perl", rest, verdict)

    def _cmd_ruby(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._interpreter("ruby", rest, verdict)

    def _cmd_node(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._interpreter("node", rest, verdict)

    def _cmd_php(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._interpreter("php", rest, verdict)

    def _cmd_lua(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._interpreter("lua", rest, verdict)

    def _cmd_vim(self, rest: list[str], verdict: RiskVerdict) -> None:
        """vim -c CMD, --cmd CMD, +CMD: `:!cmd` runs a shell command; system(), :py, :lua run code."""
        verdict.raise_to(MEDIUM, f"{self.name} may change files or the system")
        commands = [a[1:] for a in rest if a.startswith("+") and len(a) > 1]
        commands += [rest[i + 1] for i, a in enumerate(rest[:-1]) if a in ("-c", "--cmd")]
        for command in commands:
            text = command.lstrip(": ")
            if text.startswith("!"):
                verdict.raise_to(MEDIUM, f"{self.name} runs a shell command")
                self._nested(text[1:], verdict)
            elif VIM_CODE.search(text) or "system(" in text:
                verdict.raise_to(HIGH, f"{self.name} runs code from its command line: {command}")
