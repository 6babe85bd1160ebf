"""Commands that delete files, write raw data or change permissions (rm, dd, shred, chmod, chown,
chgrp, rsync --delete), and the output files of sort -o, tree -o, uniq and xxd."""

from __future__ import annotations

import os
import re

from ..path_danger import SYSTEM_DIRS, is_device, is_under
from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import operands_of, option_values, path_operands

UNIQ_VALUE_OPTIONS = {"-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"}
RSYNC_VALUE_OPTIONS = {
    "-e",
    "--rsh",
    "-f",
    "--filter",
    "--exclude",
    "--include",
    "-B",
    "--block-size",
    "-T",
    "--temp-dir",
}
XXD_VALUE_OPTIONS = {"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name"}


class FileRules(Walker):
    def _cmd_rm(self, rest: list[str], verdict: RiskVerdict) -> None:
        flags = "".join(a[1:] for a in rest if a.startswith("-") and not a.startswith("--"))
        long_flags = {a for a in rest if a.startswith("--")}
        recursive = bool(set(flags) & {"r", "R"}) or "--recursive" in long_flags
        forced = "f" in flags or "--force" in long_flags
        targets = path_operands(rest)
        verdict.raise_to(MEDIUM, "deletes files")
        if not (recursive or forced):
            for target in targets:
                self._protected_write(target, "rm", verdict)
            return
        kind = "recursive" if recursive else "forced"
        for target in targets:
            problem = self._deletion_problem(target)
            if problem is None and recursive and self._in_git_dir(target):  # .git/objects, .git/*
                problem = "a repository's history (.git), which nothing else holds"
            if problem:
                verdict.raise_to(HIGH, f"{kind} deletion of {target}: {problem}")

    def _cmd_dd(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, "dd copies raw data")
        for arg in rest:
            if arg.startswith("of="):
                path = self._resolve(arg[3:])
                if path and is_device(path):
                    verdict.raise_to(HIGH, f"dd writes to the block device {path}")
                else:
                    self._write_to(arg[3:], "dd", verdict)

    def _cmd_shred(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "shred destroys data irrecoverably")

    def _chmod_like(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        recursive = any(a in ("-R", "--recursive") or (a.startswith("-") and "R" in a) for a in rest)
        verdict.raise_to(MEDIUM, f"{name} changes permissions or ownership")
        for target in path_operands(rest)[1:]:  # the first operand is the mode or owner
            path = self._resolve(target)
            if recursive and self._system_or_home(target):
                verdict.raise_to(HIGH, f"recursive {name} on the system path {target}")
            elif self._system_or_home(target) or (path is not None and self._home_dotfile(path)):
                verdict.raise_to(HIGH, f"{name} changes who may use the system or home path {target}")
            elif name != "chmod" and path is not None and not is_under(path, self.tree):
                verdict.raise_to(HIGH, f"{name} gives away {target}, outside the working tree")
            else:
                self._protected_write(target, name, verdict)

    def _system_or_home(self, target: str) -> bool:
        """`/`, `~` or a system directory, or a glob of what is in one (`/*`, `~/*`, `/usr/*`)."""
        path = self._resolve(target)
        if path is not None and "*" in os.path.basename(path):
            path = os.path.dirname(path)
        return path is not None and (path in ("/", self.home) or any(is_under(path, top) for top in SYSTEM_DIRS))

    def _cmd_mv(self, rest: list[str], verdict: RiskVerdict) -> None:
        """Moving `~`, `/` or a system directory away breaks the account or the machine."""
        verdict.raise_to(MEDIUM, "mv may change files or the system")
        targets = option_values(rest, "t", "--target-directory", "S")
        sources = path_operands(rest) if targets else path_operands(rest)[:-1]
        for source in sources:
            path = self._resolve(source)
            if self._system_or_home(source) and (path in ("/", self.home) or path in SYSTEM_DIRS or "*" in source):
                verdict.raise_to(HIGH, f"moves the system or home directory {source}")

    def _cmd_chmod(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._chmod_like("chmod", rest, verdict)

    def _cmd_chown(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._chmod_like("chown", rest, verdict)

    def _cmd_chgrp(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._chmod_like("chgrp", rest, verdict)

    def _cmd_sort(self, rest: list[str], verdict: RiskVerdict) -> None:
        for target in option_values(rest, "o", "--output", "kStT"):
            self._write_to(target, "sort -o", verdict)

    def _cmd_tree(self, rest: list[str], verdict: RiskVerdict) -> None:
        for target in option_values(rest, "o", "", "LPIHT"):
            self._write_to(target, "tree -o", verdict)

    def _cmd_uniq(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._output_operand("uniq", operands_of(rest, UNIQ_VALUE_OPTIONS), verdict)

    def _cmd_xxd(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._output_operand("xxd", operands_of(rest, XXD_VALUE_OPTIONS), verdict)

    def _output_operand(self, name: str, operands: list[str], verdict: RiskVerdict) -> None:
        """`uniq IN OUT`, `xxd [-r] IN OUT`: the second operand is a file written like `> OUT`."""
        if len(operands) > 1 and operands[1] != "-":
            self._write_to(operands[1], name, verdict)

    def _cmd_rsync(self, rest: list[str], verdict: RiskVerdict) -> None:
        """rsync --delete removes what the source lacks from the destination: outside the tree
        (or on another host), that is data the working tree does not hold."""
        verdict.raise_to(MEDIUM, "rsync may change files or the system")
        if not any(a.startswith("--del") for a in rest):
            return
        destination = (operands_of(rest, RSYNC_VALUE_OPTIONS) or [""])[-1]
        if re.match(r"^[^/]*:", destination):  # host:path, rsync://host/path
            verdict.raise_to(HIGH, f"rsync --delete deletes files on {destination.split(':')[0]}")
            return
        problem = self._deletion_problem(destination) if destination else None
        if problem and problem != "the whole working directory":
            verdict.raise_to(HIGH, f"rsync --delete deletes files in {destination}: {problem}")
