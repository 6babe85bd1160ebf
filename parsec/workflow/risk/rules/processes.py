"""Commands that run code as another user (su, runuser), set variables
for later commands (export), or signal processes (kill)."""

from __future__ import annotations

from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import after_options, is_assignment, operands_of, option_values

RUNUSER_VALUE_OPTIONS = {
    "-u",
    "--user",
    "-g",
    "--group",
    "-G",
    "--supp-group",
    "-s",
    "--shell",
    "-w",
    "--whitelist-environment",
}


class ProcessRules(Walker):
    def _cmd_export(self, rest: list[str], verdict: RiskVerdict) -> None:
        for assignment in filter(is_assignment, rest):
            self._assignment(assignment, verdict)

    def _cmd_su(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "su runs commands as another user (root by default)")
        for script in option_values(rest, "c", "--command", "sgGw"):
            self._nested(script, verdict)

    def _cmd_runuser(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "runuser runs commands as another user")
        for script in option_values(rest, "c", "--command", "sgGuw"):
            self._nested(script, verdict)
        if option_values(rest, "u", "--user", "sgGw"):  # runuser -u USER [--] COMMAND ...
            self._nested_words(after_options(rest, RUNUSER_VALUE_OPTIONS), verdict)

    def _cmd_kill(self, rest: list[str], verdict: RiskVerdict) -> None:
        if "-1" in operands_of(rest) or rest[-1:] == ["-1"]:
            verdict.raise_to(HIGH, "kill -1 signals every process you own")
        elif "1" in operands_of(rest):
            verdict.raise_to(HIGH, "kill 1 signals init, which stops the machine")
        else:
            verdict.raise_to(MEDIUM, "kill stops processes")
