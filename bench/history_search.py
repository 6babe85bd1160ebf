"""The interactive search and `parsec history --search` against Atuin, on the same history.

Used by bench/history.py (`--search-only` runs just this part). Parsec's store is built by
history.build_store; the same commands (time, duration) are written as a zsh EXTENDED_HISTORY
file and imported into Atuin with `atuin import zsh` in a private HOME, so both hold the same rows.

Figures:
- open to first frame: a fresh `parsec search` (and `atuin search -i`) in a pseudo-terminal, from
  spawn until its first full frame is on the terminal; `python -c "print(...)"` (start-up plus one line) in the same run as baseline;
- keystroke to complete results: typing queries into the open search, one key at a time once the
  previous search finished, until the frame whose count is final (a large history first shows
  partial results, "… found"); measured inside (key read → that frame written, --trace) and
  outside (key sent → that frame read from the pty), against `atuin search -i` typed the same
  letters and backspaces in the same run (its query runs before it draws); the first frame after
  a key, partial or not, is printed too; `--key-rounds N` types them N times (a fresh search each
  round; with 100 keys, one round's p99 is its second-slowest key), `--baseline-tree DIR` types
  them into another checkout's search too, in the same rounds, and `--details N` prints the N
  slowest keys with what each searched (mode, filter presses, query);
- `parsec history --search X --limit 50` against `atuin search --limit 50 X`, end to end; with
  `--venv DIR` (repeatable) also with the Parsec installed in each venv, as a user installs it
  (installed_parsec), all in the same interleaved rounds.
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VENV_HELP = (
    "Also time the end-to-end search with the Parsec installed in this venv (made from this tree when"
    " missing, used as it is otherwise); repeatable, to compare trees in one run."
)
FRAME_END = "\x1b[?25h"  # parsec search ends every frame by showing the cursor again
TYPED = [
    "docker compose",
    "\x7f" * 14,
    "git push",
    "\x13",
    "\x13",
    "\x12",
    "\x7f" * 8,
    "README",
    "\x7f" * 6,
    "kubectl get pods",
    "\x7f" * 16,
    "-test ssh",
]


def key_labels() -> list[str]:
    """What each key of TYPED searches once it is read: `mode filter-presses 'query'`, for --details."""
    modes = ("fuzzy", "prefix", "fulltext")
    query, mode, filters, labels = "", 0, 0, []
    for key in "".join(TYPED):
        if key == "\x7f":
            query = query[:-1]
        elif key == "\x13":
            mode = (mode + 1) % len(modes)
        elif key == "\x12":
            filters += 1
        else:
            query += key
        shown = {"\x7f": "⌫", "\x13": "^S", "\x12": "^R"}.get(key, key)
        labels.append(f"{shown:>2} → {modes[mode]}{' ^R' * filters} {query!r}")
    return labels


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def write_zsh_history(db: Path, target: Path, rows: int | None = None) -> int:
    """The store's newest `rows` executions as zsh EXTENDED_HISTORY, oldest first."""
    with sqlite3.connect(db) as connection:
        sql = "SELECT command, executed_at, duration_ms FROM executions ORDER BY seq DESC"
        found = connection.execute(sql + (f" LIMIT {int(rows)}" if rows else "")).fetchall()
    found.reverse()
    with target.open("w") as handle:
        for command, at, duration in found:
            handle.write(f": {at // 1_000_000}:{(duration or 0) // 1000};{command}\n")
    return len(found)


def atuin_env(home: Path, histfile: Path | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ATUIN_", "XDG_"))}
    env.update(HOME=str(home), ATUIN_SESSION="0192f0c4a1b27000a000000000000000", TERM="xterm-256color")
    if histfile is not None:
        env["HISTFILE"] = str(histfile)
    return env


def import_atuin(home: Path, histfile: Path) -> float:
    home.mkdir(parents=True, exist_ok=True)
    begin = time.perf_counter()
    done = subprocess.run(["atuin", "import", "zsh"], env=atuin_env(home, histfile), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"atuin import failed: {done.stderr}")
    return time.perf_counter() - begin


def first_frame(argv: list[str], env: dict, marker: str, runs: int) -> list[float]:
    import pexpect

    samples = []
    for _ in range(runs):
        begin = time.perf_counter()
        child = pexpect.spawn(
            argv[0], argv[1:], env=env, dimensions=(30, 120), encoding="utf-8", timeout=60, codec_errors="replace"
        )
        child.expect_exact(marker)
        samples.append(time.perf_counter() - begin)
        child.sendcontrol("c")  # both cancel on Ctrl-C
        child.expect(pexpect.EOF)
        child.close()
    return samples


def keystrokes(parsec: list[str], env: dict, trace: Path) -> tuple[list[float], list[float], list[float]]:
    """(inside ms, first frame ms, complete ms) for every key of TYPED, each sent once the last
    search finished. Inside: key read → the frame with its complete results (--trace); through the
    pty: key sent → the first frame after it (which may still say "… found": partial results) and
    → the first frame whose count is final (complete results, what the user waits for)."""
    import pexpect

    child = pexpect.spawn(
        parsec[0],
        [*parsec[1:], "search", "--trace", str(trace)],
        env=env,
        dimensions=(30, 120),
        encoding="utf-8",
        timeout=120,
        codec_errors="replace",
    )
    child.delaybeforesend = None  # pexpect sleeps 50 ms before each send by default
    first, complete = [], []

    def settle() -> None:
        """Wait until a frame shows a finished search: its count without "…"."""
        while "… found" in child.before or " found" not in child.before:
            child.expect_exact(FRAME_END)

    child.expect_exact(FRAME_END)
    settle()
    for chunk in TYPED:
        for key in chunk:
            begin = time.perf_counter()
            child.send(key)
            child.expect_exact(FRAME_END)
            first.append((time.perf_counter() - begin) * 1000)
            settle()
            complete.append((time.perf_counter() - begin) * 1000)
    child.send("\x1b")
    child.expect(pexpect.EOF)
    inside = [float(line) for line in trace.read_text().split()]
    return inside, first, complete


# Atuin (ratatui) ends each frame by showing the cursor and moving it into the query line; it runs
# the query before it draws, so the first frame with the cursor after the new query holds the
# complete results. Atuin redraws on a 250 ms tick too: those frames leave the cursor where it was.
ATUIN_FRAME_END = r"\x1b\[\?25h\x1b\[(\d+);(\d+)H"


def atuin_keystrokes(env: dict) -> list[float]:
    """Key sent → Atuin's frame with that key's results, in ms, for the keys of TYPED that Atuin
    reads the same way (letters and backspace; Parsec's filter and mode keys are left out)."""
    import pexpect

    child = pexpect.spawn(
        "atuin", ["search", "-i"], env=env, dimensions=(30, 120), encoding="utf-8", timeout=120, codec_errors="replace"
    )
    child.delaybeforesend = None
    child.expect(ATUIN_FRAME_END)
    column = int(child.match.group(2))  # the cursor at the end of the empty query
    query = ""
    samples = []
    for chunk in TYPED:
        if any(not key.isprintable() and key != "\x7f" for key in chunk):
            continue
        for key in chunk:
            query = query[:-1] if key == "\x7f" else query + key
            begin = time.perf_counter()
            child.send(key)
            while True:
                child.expect(ATUIN_FRAME_END)
                if int(child.match.group(2)) == column + len(query):
                    break
            samples.append((time.perf_counter() - begin) * 1000)
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    return samples


def print_details(complete: dict[str, list[list[float]]], slowest: int) -> None:
    """The `slowest` keys of this tree (by their median over the rounds), each with what it searched
    and its median and slowest time (key sent → complete results), the baseline tree's beside it."""
    labels = key_labels()

    def figures(rounds: list[list[float]], i: int) -> str:
        times = [one[i] for one in rounds]
        return f"median {statistics.median(times):6.1f} max {max(times):6.1f}"

    ours = complete["parsec"]
    worst = sorted(range(len(labels)), key=lambda i: statistics.median(one[i] for one in ours), reverse=True)
    print(
        f"the {min(slowest, len(worst))} slowest keys of this tree (ms over {len(ours)} rounds, key sent → complete):"
    )
    for i in worst[:slowest]:
        line = f"  #{i:<3} {labels[i]:<40} {figures(ours, i)}"
        if "baseline" in complete:
            line += f"   baseline {figures(complete['baseline'], i)}"
        print(line)


def time_e2e(commands: dict[str, tuple[list[str], dict]], runs: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (argv, env) in commands.items():
            begin = time.perf_counter()
            done = subprocess.run(argv, env=env, capture_output=True, text=True)
            samples[name].append(time.perf_counter() - begin)
            if done.returncode != 0 or not done.stdout.strip():
                raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr[:500]}")
    return samples


def installed_parsec(venv: Path) -> Path:
    """`parsec` as a user installs it: a venv of its own (`pip install .`, not editable), so that
    neither the editable install's import hook nor this machine's site-packages `.pth` files (each
    costs every Python start here) are timed. Made from this tree when missing, used as it is
    otherwise (to time another tree, install it into a venv of its own first); returns its bin
    directory."""
    bin_dir = venv / "bin"
    if not (bin_dir / "parsec").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        root = Path(__file__).resolve().parent.parent
        subprocess.run([str(bin_dir / "pip"), "install", "-q", str(root)], check=True, capture_output=True)
    return bin_dir


def run(
    db: Path,
    env: dict,
    parsec: list[str],
    runs: int,
    e2e_rows: int,
    workdir: Path,
    atuin_home: Path | None = None,
    venvs: tuple[Path, ...] = (),
    key_rounds: int = 1,
    baseline_tree: Path | None = None,
    details: int = 0,
) -> None:  # e2e_rows 0: skip the end-to-end comparison
    """Print the three figures. `db` holds the large store (its size is the open/keystroke row count);
    the end-to-end search also runs Parsec installed in each of `venvs` (installed_parsec)."""
    # An installed Parsec runs from compiled bytecode; with PYTHONDONTWRITEBYTECODE set (as on the
    # shared machine) every run would compile the edited modules again (~80 ms under load).
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([*parsec, "history", "-n", "1"], env=env, capture_output=True)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parent.parent / "parsec")],
        env=env,
        capture_output=True,
    )
    with sqlite3.connect(db) as connection:
        total = connection.execute("SELECT count(*) FROM executions").fetchone()[0]
        newest = connection.execute("SELECT command FROM executions ORDER BY seq DESC LIMIT 1").fetchone()[0]

    # Atuin holds the same rows: all of them for the open, the newest e2e_rows for the search
    atuin_big = atuin_home or workdir / "atuin-big"
    if next(atuin_big.rglob("history.db"), None) is None:  # with --atuin-home: imported once, kept
        histfile = workdir / "zsh_history"
        write_zsh_history(db, histfile)
        seconds = import_atuin(atuin_big, histfile)
        print(f"atuin import zsh of {total:,} lines: {seconds:.1f} s")

    base = first_frame([sys.executable, "-c", "import sys; sys.stdout.write('ready\\n')"], env, "ready", runs)
    ours = first_frame([*parsec, "search"], env, "esc cancel", runs)
    theirs = first_frame(["atuin", "search", "-i"], atuin_env(atuin_big), newest, runs)
    print(
        f"open to first frame on {total:,} rows: parsec search median {statistics.median(ours) * 1000:.0f} ms "
        f"(p90 {pct(ours, 0.9) * 1000:.0f}), atuin search -i median {statistics.median(theirs) * 1000:.0f} ms, "
        f"python printing one line {statistics.median(base) * 1000:.0f} ms (parsec over python: "
        f"+{(statistics.median(ours) - statistics.median(base)) * 1000:.0f} ms)"
    )
    if baseline_tree is not None:
        # -P: `python -m` puts the working directory first on sys.path, which would run the
        # checkout the bench is started from instead of PYTHONPATH's
        baseline = [sys.executable, "-P", "-m", "parsec.cli.entry"]
        baseline_env = dict(env, PYTHONPATH=str(baseline_tree))
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(baseline_tree / "parsec")], env=env, capture_output=True
        )
        older = first_frame([*baseline, "search"], baseline_env, "esc cancel", runs)
        print(f"  the baseline tree's parsec search: median {statistics.median(older) * 1000:.0f} ms")

    # Each round types TYPED into a fresh search of each tree (this one, --baseline-tree) and of
    # Atuin, one after the other, so that the machine's load falls on all of them alike.
    trees = {"parsec": (parsec, env)}
    if baseline_tree is not None:
        trees["baseline"] = (baseline, baseline_env)
    timed: dict[str, list[tuple[list[float], list[float], list[float]]]] = {name: [] for name in trees}
    theirs_rounds: list[list[float]] = []
    for round_number in range(key_rounds):
        for name, (argv, tree_env) in trees.items():
            timed[name].append(keystrokes(argv, tree_env, workdir / f"trace-{name}-{round_number}"))
        theirs_rounds.append(atuin_keystrokes(atuin_env(atuin_big)))
    theirs_keys = [ms for one in theirs_rounds for ms in one]
    # The keys after the filter key (Ctrl-R) search the directory the bench runs in, which holds no
    # history; those before it search everywhere, as Atuin does: their figures on their own.
    everywhere = len("".join(TYPED[: TYPED.index("\x12")]).replace("\x13", ""))
    theirs_first = [ms for one in theirs_rounds for ms in one[:everywhere]]
    for name in trees:
        inside = [ms for one in timed[name] for ms in one[0]]
        first = [ms for one in timed[name] for ms in one[1]]
        complete = [ms for one in timed[name] for ms in one[2]]
        mine = [ms for one in timed[name] for ms in one[2][:everywhere]]
        tree = "this tree" if name == "parsec" else f"baseline {baseline_tree}"
        print(
            f"keystroke to complete results on {total:,} rows, {tree} ({len(complete)} keys in {key_rounds} "
            f"round(s), each once the last search finished): parsec search through the pty median "
            f"{statistics.median(complete):.1f} ms p99 {pct(complete, 0.99):.1f} ms max {max(complete):.1f} ms "
            f"(inside, key read to complete frame: median {statistics.median(inside):.1f} ms p99 "
            f"{pct(inside, 0.99):.1f} ms); atuin search -i ({len(theirs_keys)} keys: letters and backspace) median "
            f"{statistics.median(theirs_keys):.1f} ms p99 {pct(theirs_keys, 0.99):.1f} ms max {max(theirs_keys):.1f} "
            f"ms; ratio of medians {statistics.median(complete) / statistics.median(theirs_keys):.2f}x, of p99s "
            f"{pct(complete, 0.99) / pct(theirs_keys, 0.99):.2f}x"
        )
        print(
            f'  keystroke to the first frame after it (may still be partial, "… found"): parsec median '
            f"{statistics.median(first):.1f} ms p99 {pct(first, 0.99):.1f} ms"
        )
        print(
            f"  the first {everywhere} keys (filter everywhere, fuzzy; Atuin the same letters): parsec median "
            f"{statistics.median(mine):.1f} ms p99 {pct(mine, 0.99):.1f} ms, atuin median "
            f"{statistics.median(theirs_first):.1f} ms p99 {pct(theirs_first, 0.99):.1f} ms"
        )
    if details:
        print_details({name: [one[2] for one in rounds] for name, rounds in timed.items()}, details)

    if not e2e_rows:
        return
    # end to end search on the same e2e_rows history in both: a store built at that size (deleting
    # rows from the large one leaves a file and a full-text index shaped by a million rows)
    from history import build_store

    small = workdir / "small"
    build_store(small / "data", e2e_rows)
    small_db = small / "data" / "parsec" / "parsec.db"
    small_env = dict(env, XDG_DATA_HOME=str(small / "data"))
    write_zsh_history(small_db, workdir / "zsh_small", e2e_rows)
    atuin_small = workdir / "atuin-small"
    import_atuin(atuin_small, workdir / "zsh_small")
    bin_dirs = {str(venv): installed_parsec(venv) for venv in venvs}
    # Without PYTHONPATH, which points at this tree: a venv runs the Parsec installed in it.
    venv_env = {k: v for k, v in small_env.items() if k != "PYTHONPATH"}
    for term in ("docker compose", "README"):
        search = ["history", "--search", term, "--limit", "50", "--format", "{command}"]
        commands = {
            "parsec": ([*parsec, *search], small_env),
            "atuin": (["atuin", "search", "--limit", "50", term], atuin_env(atuin_small)),
            "python": ([sys.executable, "-c", "print(1)"], small_env),
        }
        for name, bin_dir in bin_dirs.items():
            commands[name] = ([str(bin_dir / "parsec"), *search], venv_env)
            commands[name + " python"] = ([str(bin_dir / "python"), "-c", "print(1)"], venv_env)
        timed = time_e2e(commands, runs)
        p, a, py = (statistics.median(timed[k]) * 1000 for k in ("parsec", "atuin", "python"))
        print(
            f"search {term!r} --limit 50 on {e2e_rows:,} rows, end to end: parsec history median {p:.0f} ms "
            f"(p99 {pct(timed['parsec'], 0.99) * 1000:.0f}), atuin search median {a:.0f} ms "
            f"(p99 {pct(timed['atuin'], 0.99) * 1000:.0f}), ratio {p / a:.2f}x; python -c print(1) {py:.0f} ms"
        )
        for name in bin_dirs:
            i, vpy = (statistics.median(timed[k]) * 1000 for k in (name, name + " python"))
            print(
                f"  the same, Parsec installed in {name}: median {i:.0f} ms (p99 "
                f"{pct(timed[name], 0.99) * 1000:.0f}), ratio {i / a:.2f}x; its python -c print(1) {vpy:.0f} ms"
            )


def main() -> None:
    """`python bench/history_search.py STORE_DIR` on a store built before (history.py --keep)."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("data_home", type=Path, help="XDG_DATA_HOME holding parsec/parsec.db")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--e2e-rows", type=int, default=200_000)
    parser.add_argument("--atuin-home", type=Path, help="Keep Atuin's copy of the history here (imported once).")
    parser.add_argument("--venv", type=Path, action="append", default=[], help=VENV_HELP)
    parser.add_argument(
        "--key-rounds", type=int, default=1, help="Type the keys this many times (a fresh search each round)."
    )
    parser.add_argument(
        "--baseline-tree",
        type=Path,
        help="Also type the keys into the search of this checkout (another tree of Parsec), in the same rounds.",
    )
    parser.add_argument(
        "--details", type=int, default=0, metavar="N", help="Print the N slowest keys, with what each searched."
    )
    args = parser.parse_args()
    if args.baseline_tree is not None and not (args.baseline_tree / "parsec" / "cli").is_dir():
        parser.error(f"--baseline-tree {args.baseline_tree}: not a checkout of Parsec (no parsec/cli in it)")
    if args.key_rounds < 1:
        parser.error("--key-rounds must be 1 or more")
    root = Path(__file__).resolve().parent.parent
    workdir = Path(tempfile.mkdtemp(prefix="parsec-bench-search-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    env.update(
        XDG_DATA_HOME=str(args.data_home),
        XDG_CONFIG_HOME=str(workdir / "config"),
        XDG_RUNTIME_DIR=str(workdir / "run"),
        PYTHONPATH=str(root),
        TERM="xterm-256color",
    )
    try:
        run(
            args.data_home / "parsec" / "parsec.db",
            env,
            [sys.executable, "-P", "-m", "parsec.cli.entry"],  # -P: this tree (PYTHONPATH), not the cwd's
            args.runs,
            args.e2e_rows,
            workdir,
            args.atuin_home,
            tuple(args.venv),
            args.key_rounds,
            args.baseline_tree,
            args.details,
        )
    finally:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
