"""What the --yes sandbox (parsec/workflow/execution/sandbox.py) costs: per command, and once per shell.

The same commands run through the workflow's persistent shell unconfined and inside the sandbox,
interleaved round by round in one process so machine noise hits both alike. Reported: the median
time per command (PersistentShell.run: write, eval, state file, marker), the difference (target:
at most 20 ms per command) and the ratio; the start of a shell (start + its first command); and,
for comparison, what a bwrap per command would cost (`bwrap … sh -c CMD` against `sh -c CMD`),
the design not taken.

    python bench/sandbox.py [--rounds 40] [--bwrap PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from parsec.workflow.execution.persistent_shell import PersistentShell  # noqa: E402
from parsec.workflow.execution.sandbox import Sandbox, confinement_flags, find_bwrap  # noqa: E402

COMMANDS = [
    "true",
    "echo built > out.txt",
    "ls /usr/bin > /dev/null",
    f"{sys.executable} -S -c pass",
    "cd . && export X=1",
]


def ms(seconds: float) -> float:
    return seconds * 1000.0


def per_command(bwrap: str, work: Path, env: dict[str, str], rounds: int) -> dict[str, dict[str, list[float]]]:
    times: dict[str, dict[str, list[float]]] = {c: {"plain": [], "sandbox": []} for c in COMMANDS}
    plain = PersistentShell(str(work), env, shell="/bin/bash")
    confined = PersistentShell(str(work), env, shell="/bin/bash", sandbox=Sandbox(bwrap, str(work)))
    with plain, confined:
        for shell in (plain, confined):  # warm both up
            shell.run("true")
        for _ in range(rounds):
            for command in COMMANDS:
                for label, shell in (("plain", plain), ("sandbox", confined)):
                    started = time.perf_counter()
                    result = shell.run(command)
                    times[command][label].append(ms(time.perf_counter() - started))
                    assert result.exit_status == 0, (label, command, result.output)
    return times


def shell_start(bwrap: str, work: Path, env: dict[str, str], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"plain": [], "sandbox": []}
    for _ in range(rounds):
        for label, sandbox in (("plain", None), ("sandbox", Sandbox(bwrap, str(work)))):
            started = time.perf_counter()
            with PersistentShell(str(work), env, shell="/bin/bash", sandbox=sandbox) as shell:
                shell.run("true")
                times[label].append(ms(time.perf_counter() - started))
    return times


def bwrap_per_command(bwrap: str, work: Path, rounds: int) -> dict[str, list[float]]:
    sh = shutil.which("sh") or "/bin/sh"
    wrapped = [bwrap, *confinement_flags(True), "--bind", str(work), str(work), "--", sh, "-c", "true"]
    times: dict[str, list[float]] = {"plain": [], "sandbox": []}
    for _ in range(rounds):
        for label, argv in (("plain", [sh, "-c", "true"]), ("sandbox", wrapped)):
            started = time.perf_counter()
            subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
            times[label].append(ms(time.perf_counter() - started))
    return times


def row(name: str, plain: list[float], sandbox: list[float]) -> str:
    a, b = statistics.median(plain), statistics.median(sandbox)
    return f"{name[:40]:<40} {a:9.2f} {b:9.2f} {b - a:+9.2f} {b / a:7.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--bwrap", default="", help="a bwrap to measure (default: the one Parsec would use)")
    args = parser.parse_args()
    bwrap, reason = find_bwrap(args.bwrap)
    if bwrap is None:
        sys.exit(f"no sandbox can start here: {reason}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    with tempfile.TemporaryDirectory(prefix="parsec-bench-sandbox-") as root:
        work = Path(root)
        print(f"bwrap: {bwrap}; kernel {os.uname().release}; load {os.getloadavg()[0]:.1f}; rounds {args.rounds}")
        print(f"{'median ms':<40} {'plain':>9} {'sandbox':>9} {'added':>9} {'ratio':>8}")
        times = per_command(bwrap, work, env, args.rounds)
        for command in COMMANDS:
            label = command.replace(sys.executable, "python")
            print(row(f"per command: {label}", times[command]["plain"], times[command]["sandbox"]))
        every_plain = [t for c in COMMANDS for t in times[c]["plain"]]
        every_sandbox = [t for c in COMMANDS for t in times[c]["sandbox"]]
        print(row("per command: all of the above", every_plain, every_sandbox))
        started = shell_start(bwrap, work, env, max(5, args.rounds // 4))
        print(row("once per shell: start + first", started["plain"], started["sandbox"]))
        fresh = bwrap_per_command(bwrap, work, args.rounds)
        print(row("not taken: bwrap per command", fresh["plain"], fresh["sandbox"]))


if __name__ == "__main__":
    main()
