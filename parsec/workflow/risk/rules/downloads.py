"""Downloaders (curl, wget): the file a download writes is a write like `> FILE`."""

from __future__ import annotations

from ..verdict import MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import option_values

CURL_SHORT_VALUED = "AbcCdDeEFHKmoOQrTuUwXxYyz"  # curl's short options that take a value
WGET_SHORT_VALUED = "aABDeiIlOoPQtTUwXY"


class DownloadRules(Walker):
    def _cmd_curl(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, "curl downloads from the network")
        for target in option_values(rest, "o", "--output", CURL_SHORT_VALUED):
            if target != "-":
                self._write_to(target, "curl -o", verdict)

    def _cmd_wget(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, "wget downloads from the network")
        for target in option_values(rest, "O", "--output-document", WGET_SHORT_VALUED):
            if target != "-":
                self._write_to(target, "wget -O", verdict)
