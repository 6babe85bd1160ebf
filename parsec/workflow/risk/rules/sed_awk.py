"""sed and awk: in-place edits, and the scripts' own writes and commands (sed's w and e, awk's
print > file and system()), read from the script text by script_readers.py."""

from __future__ import annotations

from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import expand_braces


class TextRules(Walker):
    """Imports its script readers (script_readers.py) on first use: most lines run no sed or awk."""

    def _cmd_sed(self, rest: list[str], verdict: RiskVerdict) -> None:
        from .script_readers import sed_args

        args = sed_args(rest)
        if args.in_place:
            verdict.raise_to(MEDIUM, "sed -i edits files in place")
            for target in (path for file in args.files for path in expand_braces(file)):
                self._protected_write(target, "sed -i", verdict)
        if args.sandbox:
            return  # --sandbox refuses the e, r and w commands
        if args.script_files:
            verdict.raise_to(MEDIUM, "sed reads its script from a file (it may write files or run commands)")
        for script in args.scripts:
            self._sed_script(script, verdict)

    def _sed_script(self, script: str, verdict: RiskVerdict) -> None:
        from .script_readers import sed_actions

        actions = sed_actions(script)
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

    def _cmd_awk(self, rest: list[str], verdict: RiskVerdict) -> None:
        from .script_readers import AWK_COMMAND, AWK_OUTPUT, AWK_RUNS, awk_program

        program = awk_program(rest)
        if program is None:
            verdict.raise_to(MEDIUM, "awk loads its program or extensions from a file")
            return
        commands = ["".join(groups) for groups in AWK_COMMAND.findall(program)]
        if len(AWK_RUNS.findall(program)) > len(commands):  # system(cmd), cmd | getline: built at run time
            verdict.raise_to(HIGH, "awk runs a command built at run time: it cannot be read before it runs")
        elif commands:
            verdict.raise_to(MEDIUM, "awk program runs commands")
        for command in commands:
            self._nested(command, verdict)
        for operator, target in AWK_OUTPUT.findall(program):
            if target.startswith('"'):
                self._write_to(target.strip('"'), "awk", verdict, overwrite=operator == ">")
            else:
                verdict.raise_to(MEDIUM, "awk program writes to a file named at run time")
