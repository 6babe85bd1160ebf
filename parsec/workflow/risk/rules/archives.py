"""Archive tools (tar, unzip): extracting writes every file the archive names, wherever -C points."""

from __future__ import annotations

import re

from ..path_danger import SYSTEM_DIRS, is_under
from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import option_values

TAR_SHORT_VALUED = "bCfFgHIKLNTVX"


class ArchiveRules(Walker):
    def _cmd_tar(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, "tar may change files or the system")
        bundled = rest[0] if rest and not rest[0].startswith("-") else ""  # tar xzf: old-style letters
        letters = bundled + "".join(a[1:] for a in rest if re.fullmatch(r"-[A-Za-z]+", a))
        if not ("x" in letters or any(a in ("--extract", "--get") for a in rest)):
            return
        if "P" in letters or "--absolute-names" in rest:
            verdict.raise_to(HIGH, "tar -P extracts to the absolute paths the archive names")
        for directory in option_values(rest, "C", "--directory", TAR_SHORT_VALUED.replace("C", "")):
            self._extracts_into(directory, "tar", verdict)

    def _cmd_unzip(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, "unzip may change files or the system")
        for i, arg in enumerate(rest[:-1]):
            if arg == "-d":
                self._extracts_into(rest[i + 1], "unzip", verdict)

    def _extracts_into(self, directory: str, how: str, verdict: RiskVerdict) -> None:
        """Extracting into /, the home directory or a system directory can replace what lives there."""
        path = self._resolve(directory)
        if path in ("/", self.home) or (path is not None and any(is_under(path, top) for top in SYSTEM_DIRS)):
            verdict.raise_to(HIGH, f"{how} extracts into {directory}, replacing files there")
