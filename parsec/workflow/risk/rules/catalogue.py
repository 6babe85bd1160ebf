"""Programs GTFOBins lists as able to run a command, run code or write a file, read from the table
scripts/gen_gtfobins.py generates (data/gtfobins.json; the GTFOBins commit is recorded in it):

- an option that runs its value as a command (`tar --checkpoint-action=exec=CMD`, `rsync -e CMD`,
  `dhclient -sf CMD`, `gdb -ex '!CMD'`): the command is checked like any other;
- an option that takes code in the program's own language (`R -e`, `gnuplot -e`, `emacs --eval`,
  `latex --shell-escape`): high, as code we cannot read is (the languages with a reader of their
  own — python, perl, ruby, node, php, lua, awk, sed — are judged by it instead);
- operands that start a command (`chrt 1 CMD`, `flock LOCK CMD`, `ssh HOST CMD`): checked;
- an operand holding code that runs a command (`mawk 'BEGIN {system(…)}'`), or such code piped in
  (`echo 'esyscmd(…)' | m4`): high;
- an option naming a file the program writes (`pandoc -o FILE`, `openssl -out FILE`): a write.
"""

from __future__ import annotations

import functools
import json
import pathlib
import re
from typing import Any

from ..command_names import DISK_TOOLS, DOWNLOADERS, HANDLER_NAMES, HARMLESS_PAGERS, POWER, READ_ONLY, SHELLS, WRITERS
from ..feeds import DECODED, DOWNLOADED, TEXT, Output
from ..syntax_tree import assignment_words, command_words
from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import command_name, is_assignment, word_roles

_REMOTE = re.compile(r"^[^/]*:")  # host:path, URL: not a local file
TABLE = pathlib.Path(__file__).resolve().parent.parent / "data" / "gtfobins.json"
# Commands whose rules read their code themselves (walker, rules/): the table would only repeat them.
OWN_READERS = {"sh", "python", "perl", "ruby", "node", "php", "lua", "awk", "sed", "vim", "watch", "xargs"}
OWN_READERS |= {"su", "runuser", "psql", "mysql", "sqlite3", "find", "fd", "eval", "source", "git"}


@functools.cache
def catalogue() -> dict[str, Any]:
    return json.loads(TABLE.read_text())


@functools.cache
def _known_commands() -> frozenset[str]:
    """Names that start a command, to find where a launched command begins (`chrt -f 1 CMD`)."""
    table = catalogue()
    return frozenset(READ_ONLY | WRITERS | SHELLS | POWER | DISK_TOOLS | DOWNLOADERS) | frozenset(table["programs"])


def entry_for(name: str) -> dict[str, Any] | None:
    table = catalogue()
    return table["programs"].get(table["aliases"].get(name, name))


class CatalogueRules(Walker):
    def _catalogue(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        entry = entry_for(name)
        if entry is None:
            return
        self._catalogue_variables(name, entry, verdict)
        for option in entry.get("writes", []):
            for value in _values(rest, option):
                self._write_to(value, f"{name} {option}", verdict)
        operands = [w for w, role in word_roles(rest, (), permute=False) if role == "operand"]
        self._catalogue_operand_writes(name, entry, operands, verdict)
        if HANDLER_NAMES.get(name, name) in OWN_READERS or name in OWN_READERS:
            return  # its rule reads the code it runs
        for option, commands in entry.get("runs", {}).items():
            for value in _values(rest, option):
                self._runs_value(f"{name} {option}", value, commands, verdict)
        for option in entry.get("code", {}):
            if option in rest or _values(rest, option):
                verdict.raise_to(HIGH, f"{name} {option} runs {name} code, which can run any command (GTFOBins)")
        for operand in operands:
            self._runs_value(name, operand, [[p, end] for p, end in entry.get("operand_runs", {}).items()], verdict)
        if any(trigger in operand for trigger in entry.get("code_operand", []) for operand in operands):
            verdict.raise_to(HIGH, f"{name} runs code from its arguments that can run any command (GTFOBins)")
        if "launches" in entry:
            for words in _launched(operands, entry["launches"]):
                self._launch(name, words, verdict)

    def _catalogue_stdin(self, name: str, fed: Output, verdict: RiskVerdict) -> None:
        """echo 'esyscmd(CMD)' | m4: code read from stdin runs a command where GTFOBins says it does."""
        entry = entry_for(name)
        triggers = entry.get("stdin_code", []) if entry else []
        if not triggers:
            return
        if fed.kind in (DECODED, DOWNLOADED):
            verdict.raise_to(HIGH, f"{name} runs code it reads that cannot be read before it runs (GTFOBins)")
        elif fed.kind == TEXT and any(trigger in fed.text for trigger in triggers):
            verdict.raise_to(HIGH, f"{name} runs code it reads that can run any command (GTFOBins)")

    def _catalogue_variables(self, name: str, entry: dict[str, Any], verdict: RiskVerdict) -> None:
        """LESSOPEN='CMD' less, PAGER='CMD' git, PERL5DB='code' perl: the variable runs its value."""
        words = command_words(self.node)
        for assignment in assignment_words(self.node) + [w for w in words if is_assignment(w)]:
            variable, _, value = assignment.partition("=")
            if variable in entry.get("env", {}) and value not in HARMLESS_PAGERS:
                self._runs_value(f"{variable} for {name}", value, entry["env"][variable], verdict)
            elif variable in entry.get("env_code", {}):
                verdict.raise_to(HIGH, f"{variable} makes {name} run code, which can run any command (GTFOBins)")

    def _catalogue_operand_writes(
        self, name: str, entry: dict[str, Any], operands: list[str], verdict: RiskVerdict
    ) -> None:
        """socat open:FILE,creat; dos2unix -n IN OUT, lwp-download URL FILE: the file is written."""
        for prefix, end in entry.get("operand_writes", {}).items():
            for operand in (o for o in operands if o.startswith(prefix)):
                target = operand[len(prefix) :]
                self._write_to(target.split(end)[0] if end else target, name, verdict)
        if entry.get("writes_last") and len(operands) > 1 and not _REMOTE.match(operands[-1]):
            self._write_to(operands[-1], name, verdict)

    def _runs_value(self, how: str, value: str, commands: list[list[str]], verdict: RiskVerdict) -> None:
        """A value that runs a command after a known prefix (exec=CMD, ProxyCommand=;CMD, CMD,ARGS)."""
        for prefix, end in commands:
            if value.startswith(prefix):
                command = value[len(prefix) :]
                verdict.raise_to(MEDIUM, f"{how} runs a command (GTFOBins)")
                if self._nested(command.split(end)[0] if end else command, verdict).parse_error:
                    verdict.raise_to(HIGH, f"{how} runs a command that cannot be read before it runs")
                return

    def _launch(self, name: str, words: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, f"{name} runs a command")
        if any(c in words[0] for c in " ;|&"):  # a command line in one word (csvtool call 'CMD;false')
            self._nested(words[0], verdict)
        else:
            self._nested_words(words, verdict)


def _values(rest: list[str], option: str) -> list[str]:
    """The values given to `option`: the next word, after `=`, or attached to a two-letter option."""
    values = []
    for i, word in enumerate(rest):
        if word == option and i + 1 < len(rest):
            values.append(rest[i + 1])
        elif word.startswith(option + "="):
            values.append(word[len(option) + 1 :])
        elif len(option) == 2 and word.startswith(option) and len(word) > 2 and option != "--":
            values.append(word[2:])  # man -HCMD, ssh -oProxyCommand=CMD
    return values


def _launched(operands: list[str], index: int) -> list[list[str]]:
    """Where a launched command may start: at each word from where GTFOBins' example has it on that
    names a known command (`docker run IMG chroot /mnt CMD` holds two; `npm install` none)."""
    known = _known_commands()
    heads = [command_name(re.split(r"[\s;|&]", word, maxsplit=1)[0]) for word in operands]  # 'CMD ARGS;…'
    return [operands[j:] for j in range(index, len(operands)) if heads[j] in known]
