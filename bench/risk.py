"""Time the risk check per command over its table of forms, against the plain parse and the check
as it was before issue 25 (interpreters, destruction outside the tree, GTFOBins), in one process.

    python bench/risk.py [--rounds 7]

The forms are the ones the tests judge: tests/workflow/test_risk_forms.py (code handed to
interpreters, destruction outside the tree, benign forms) and tests/workflow/data/
gtfobins_forms.json (GTFOBins' examples). Three paths over the same lines, each the median of
`--rounds` passes, per command:
- parse: bashlex.parse alone (the floor: every verdict parses first);
- before: parsec/workflow/risk at 7fa8e41 (the last commit before issue 25's changes), read
  from git into a temporary package;
- now: parsec.workflow.risk.assess, what the gate and `parsec risk` run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BEFORE = "7fa8e41"  # main just before issue 25's risk work


def forms() -> list[str]:
    from tests.workflow.test_risk_forms import FORMS

    gtfobins = json.loads((ROOT / "tests" / "workflow" / "data" / "gtfobins_forms.json").read_text())["forms"]
    return [command for command, _ in FORMS] + [f["form"] for f in gtfobins]


def old_assess(directory: Path) -> Callable[..., object]:
    """The risk package at BEFORE, imported as `risk_before` from a copy out of git."""
    package = directory / "risk_before"
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", BEFORE, "parsec/workflow/risk/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in files:
        target = package / Path(name).relative_to("parsec/workflow/risk")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(
            subprocess.run(["git", "-C", str(ROOT), "show", f"{BEFORE}:{name}"], capture_output=True, check=True).stdout
        )
    sys.path.insert(0, str(directory))
    return importlib.import_module("risk_before").assess


def per_command(fn: Callable[[str], object], lines: list[str], rounds: int) -> float:
    """Median over `rounds` of the mean seconds per line of one pass of `fn` over `lines`."""
    passes = []
    for _ in range(rounds):
        start = time.perf_counter()
        for line in lines:
            fn(line)
        passes.append((time.perf_counter() - start) / len(lines))
    return statistics.median(passes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    from parsec.bashlex_tables import load_bashlex

    bashlex = load_bashlex()

    from parsec.workflow.risk import assess

    lines = forms()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        (home / "project").mkdir(parents=True)
        (home / ".bashrc").write_text("precious\n")
        cwd = str(home / "project")
        before = old_assess(Path(tmp) / "old")

        def parse_only(line: str) -> object:
            try:
                return bashlex.parse(line)
            except Exception:
                return None

        for fn in (
            parse_only,
            lambda c: before(c, cwd=cwd, home=str(home)),
            lambda c: assess(c, cwd=cwd, home=str(home)),
        ):
            per_command(fn, lines, 1)  # warm: imports, the GTFOBins table, regex compilation
        parse = per_command(parse_only, lines, args.rounds)
        old = per_command(lambda c: before(c, cwd=cwd, home=str(home)), lines, args.rounds)
        now = per_command(lambda c: assess(c, cwd=cwd, home=str(home)), lines, args.rounds)
    print(f"{len(lines)} forms, median of {args.rounds} passes, per command:")
    print(f"  parse only (bashlex)   {parse * 1e3:7.3f} ms")
    print(f"  risk check at {BEFORE}  {old * 1e3:7.3f} ms  ({old / parse:.2f}x parse)")
    print(f"  risk check now         {now * 1e3:7.3f} ms  ({now / parse:.2f}x parse, {now / old:.2f}x before)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
