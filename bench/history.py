"""History at scale: queries, prune under a live writer, and import.

    python bench/history.py [--rows 1000000] [--runs 15] [--import-lines 200000] [--only import|prune] [--keep DIR]

On a SQLite store of --rows executions (spread evenly over 60 days, 2,000 sessions, 200
directories, ~12% failures) it measures:
- `parsec history --cwd D --exit fail` (newest 50) and `parsec history --search "…"`: median wall
  time of the whole command (a fresh process each run) next to `python -c pass` in the same run,
  and the median of the query alone (in process, raw sqlite3 fast path and through the store);
- `parsec sessions` end to end;
- `parsec prune` removing the older half (retention 30 days) while another process keeps
  recording one command every 10 ms: the prune's total time and the writer's longest stall;
- `parsec import zsh` of --import-lines lines of EXTENDED_HISTORY into a fresh store, end to end,
  and `atuin import zsh` of the same file in the same rounds (median of 3, wall and the CPU of
  each process tree);
- the interactive search and `parsec history --search` against Atuin on the same history
  (bench/history_search.py: open to first frame, keystroke to redraw, search end to end; skip
  with --no-search; `python bench/history_search.py DATA_HOME` runs it alone on a kept store).
The queries alone can be compared across source trees on a kept store with
bench/history_queries.py.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from history_search import VENV_HELP  # the --venv option is history_search's (this directory)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = [
    "git",
    "status",
    "push",
    "origin",
    "main",
    "docker",
    "compose",
    "up",
    "-d",
    "make",
    "test",
    "cargo",
    "build",
    "--release",
    "pytest",
    "-x",
    "ls",
    "-la",
    "cd",
    "src",
    "rg",
    "TODO",
    "kubectl",
    "get",
    "pods",
    "npm",
    "run",
    "dev",
    "vim",
    "README.md",
    "ssh",
    "prod",
    "tail",
    "-f",
    "log",
    "grep",
    "ERROR",
]
DAY_US = 86_400 * 1_000_000


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def build_store(directory: Path, rows: int) -> tuple[str, list[str]]:
    """A store with `rows` executions written straight through sqlite3 (the store's own FTS triggers
    index them). Returns the URL and the directory list."""
    from ulid import ULID

    from parsec.store import open_store

    db = directory / "parsec" / "parsec.db"
    url = f"sqlite:///{db}"
    open_store(url).close()  # schema, FTS table and triggers
    rng = random.Random(42)
    now_us = int(time.time() * 1_000_000)
    start_us = now_us - 60 * DAY_US
    dirs = [f"/home/me/proj{i // 20}/sub{i % 20}" for i in range(200)]
    sessions = []
    for s in range(2000):  # session s covers its 1/2000 of the 60 days
        first = start_us + s * (60 * DAY_US // 2000)
        sessions.append((str(ULID.from_timestamp(first / 1e6)), first, first + 60 * DAY_US // 2000 - 1))
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.executemany(
        "INSERT INTO sessions (id, created_at, last_active, ended_at, shell, pid, tty, user, host, data) "
        "VALUES (?, ?, ?, ?, 'bash', NULL, '', 'me', 'laptop', '{}')",
        [(sid, first, last, last) for sid, first, last in sessions],
    )
    step = (60 * DAY_US) // rows

    def generate():
        for i in range(rows):
            at = start_us + i * step
            sid = sessions[min(len(sessions) - 1, i * len(sessions) // rows)][0]
            command = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))) + f" {rng.randint(0, 999)}"
            status = 1 if rng.random() < 0.12 else 0
            yield (
                str(ULID.from_timestamp(at / 1e6)),
                sid,
                command,
                at,
                rng.randint(1, 4000),
                status,
                rng.choice(dirs),
                "laptop",
                "me",
                "shell",
            )

    batch = []
    for row in generate():
        batch.append(row)
        if len(batch) == 50_000:
            _insert(connection, batch)
            batch = []
    _insert(connection, batch)
    connection.execute("ANALYZE")
    connection.commit()
    connection.close()
    return url, dirs


def _insert(connection: sqlite3.Connection, batch: list[tuple]) -> None:
    connection.executemany(
        "INSERT INTO executions (id, session_id, command, executed_at, duration_ms, exit_status, cwd, host, user, "
        "source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        batch,
    )
    connection.commit()


def integrity(url: str) -> str:
    from parsec.store.sqlite_url import sqlite_file

    with sqlite3.connect(sqlite_file(url)) as check:
        whole = check.execute("PRAGMA integrity_check").fetchone()[0]
        try:
            check.execute("INSERT INTO executions_fts(executions_fts) VALUES ('integrity-check')")
            fts = "ok"
        except sqlite3.DatabaseError as err:
            fts = str(err)
    return f"integrity_check {whole}, full-text index {fts}"


def time_processes(commands: dict[str, list[str]], env: dict, runs: int) -> dict[str, tuple[float, str]]:
    """Median wall time of each command, run in interleaved rounds so that load changes on a shared
    machine hit every command alike."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    outputs: dict[str, str] = {}
    for _ in range(runs):
        for name, args in commands.items():
            begin = time.perf_counter()
            result = subprocess.run(args, env=env, capture_output=True, text=True)
            samples[name].append(time.perf_counter() - begin)
            if result.returncode != 0:
                raise SystemExit(f"{args}: {result.stderr}")
            outputs[name] = result.stdout
    return {name: (median_ms(values), outputs[name]) for name, values in samples.items()}


def writer(url: str, stop, result) -> None:
    """Record one execution every 10 ms through the store until told to stop; report stalls."""
    from parsec.models.session import DirectCommandExecution, Session
    from parsec.store import open_store

    store = open_store(url)
    session = Session(shell="bash")
    store.save_session(session)
    latencies, errors = [], []
    while not stop.is_set():
        begin = time.perf_counter()
        try:
            store.append_executions([DirectCommandExecution(session_id=session.id, command="echo live", exit_status=0)])
        except Exception as err:
            errors.append(str(err))
        latencies.append(time.perf_counter() - begin)
        time.sleep(0.01)
    store.close()
    latencies.sort()
    result.put(
        (
            len(latencies),
            latencies[-1],
            latencies[int(0.99 * (len(latencies) - 1))],
            statistics.median(latencies),
            errors,
        )
    )


def zsh_lines(count: int) -> bytes:
    rng = random.Random(7)
    start = 1_600_000_000
    lines = []
    for i in range(count):
        command = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        if i % 500 == 0:
            command += " && export API_TOKEN=abcdef0123456789"
        lines.append(f": {start + i * 7}:{rng.randint(0, 30)};{command}")
    return ("\n".join(lines) + "\n").encode()


def bench_import(lines: int, workdir: Path, env: dict, runs: int = 3) -> None:
    """`parsec import zsh FILE` end to end, a fresh store each run, and Atuin's `atuin import zsh`
    of the same file in a fresh HOME, in interleaved rounds: the median wall time and the median
    CPU time of each whole process tree (RUSAGE_CHILDREN: every waited-for descendant). Then the
    same import in this process (no interpreter start), as the figures before 2026-12-06 were."""
    import resource

    from history_search import atuin_env

    history = workdir / "zsh_history"
    history.write_bytes(zsh_lines(lines))
    names = ["parsec"] + (["atuin"] if shutil.which("atuin") else [])
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for run in range(runs):
        for name in names:
            home = workdir / f"import-{name}-{run}"
            home.mkdir(parents=True)
            if name == "parsec":
                argv = [sys.executable, "-m", "parsec.cli.entry", "import", "zsh", str(history)]
                run_env = env | {f"XDG_{d.upper()}_HOME": str(home / d) for d in ("data", "config", "state", "cache")}
                run_env["XDG_RUNTIME_DIR"] = str(home / "run")
            else:
                argv, run_env = ["atuin", "import", "zsh"], atuin_env(home, history)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            begin = time.perf_counter()
            done = subprocess.run(argv, env=run_env, capture_output=True, text=True)
            wall = time.perf_counter() - begin
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0:
                raise SystemExit(f"{name} import failed: {done.stderr.strip()}")
            stored = _imported_rows(name, home)
            if stored != lines:
                raise SystemExit(f"{name} import stored {stored:,} of {lines:,} lines")
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            samples[name].append((wall, cpu))
    for name in names:
        wall = statistics.median(w for w, _ in samples[name])
        cpu = statistics.median(c for _, c in samples[name])
        print(
            f"import of {lines:,} zsh lines, {name:6s} (end to end, fresh store): median {wall:6.2f} s wall, {cpu:6.2f} s CPU"
        )
    if "atuin" in samples:
        ratio = statistics.median(w for w, _ in samples["parsec"]) / statistics.median(w for w, _ in samples["atuin"])
        print(f"import parsec / atuin (wall): {ratio:.2f}")

    from parsec.cli.history.import_cmd import import_history
    from parsec.config import PrivacyConfig
    from parsec.privacy.filters import PrivacyFilter
    from parsec.store import open_store

    store = open_store(f"sqlite:///{workdir / 'import-in-process.db'}")
    begin = time.perf_counter()
    report = import_history(store, "zsh", history, PrivacyFilter(PrivacyConfig()), host="h", user="u")
    print(f"import of {lines:,} zsh lines in this process (import_history): {time.perf_counter() - begin:.2f} s")
    store.close()
    assert report.added == lines, report


def _imported_rows(name: str, home: Path) -> int:
    found = next((home / "data").rglob("parsec.db"), None) if name == "parsec" else next(home.rglob("history.db"), None)
    if found is None:
        return 0
    with sqlite3.connect(found) as connection:
        return connection.execute(f"SELECT count(*) FROM {'executions' if name == 'parsec' else 'history'}").fetchone()[
            0
        ]


def time_queries(url: str, cwd: str, runs: int) -> dict[str, tuple[float, float]]:
    """Median ms of each query alone, (raw sqlite3 fast path, through the store), in this process.
    Imports parsec here, not at the top: bench/history_queries.py runs it against other trees."""
    from parsec.store import open_store
    from parsec.store.history import HistoryQuery, fast_connection, history_sqlite, history_via_store

    try:
        from parsec.store.sqlite_url import sqlite_file
    except ImportError:  # a tree from before store/sqlite_url.py
        from parsec.store.history import sqlite_file  # type: ignore[attr-defined, no-redef]

    queries = {
        "cwd + failures, newest 50": HistoryQuery(cwd=cwd, failed=True),
        "cwd subtree, newest 50": HistoryQuery(cwd=cwd.rsplit("/", 1)[0], cwd_subtree=True),
        "full text, one common term 'docker'": HistoryQuery(search="docker"),
        "full text 'docker compose'": HistoryQuery(search="docker compose"),
        "full text, rare 'README.md 123'": HistoryQuery(search="README.md 123"),
    }
    figures = {}
    store = open_store(url)
    with fast_connection(sqlite_file(url)) as connection:
        for name, query in queries.items():
            fast, slow = [], []
            for _ in range(runs):
                begin = time.perf_counter()
                history_sqlite(connection, query)
                fast.append(time.perf_counter() - begin)
                begin = time.perf_counter()
                history_via_store(store, query)
                slow.append(time.perf_counter() - begin)
            figures[name] = (median_ms(fast), median_ms(slow))
    store.close()
    return figures


def bench_prune(url: str, env: dict, parsec: list[str]) -> None:
    """`parsec prune` of the older half (30-day retention) while another process records one command
    every 10 ms: the prune's wall time and the writer's longest wait."""
    # spawn, not fork: a forked child would inherit this process's SQLite state (its open files
    # and locks), which SQLite forbids; the writer opens its own store from scratch.
    spawn = multiprocessing.get_context("spawn")
    stop, result = spawn.Event(), spawn.Queue()
    process = spawn.Process(target=writer, args=(url, stop, result))
    process.start()
    time.sleep(1.5)
    begin = time.perf_counter()
    # The history tier is kept forever by default: ask for 30 days, as the figure always measured.
    pruned = subprocess.run(
        parsec + ["--set", "context_management.history_retention_days=30", "prune"],
        env=env,
        capture_output=True,
        text=True,
    )
    prune_s = time.perf_counter() - begin
    time.sleep(0.5)
    stop.set()
    count, longest, p99, median, errors = result.get(timeout=120)
    process.join()
    if pruned.returncode != 0:
        print(f"parsec prune FAILED after {prune_s:.2f} s: {pruned.stderr.strip()}")
    else:
        print(f"parsec prune (end to end): {prune_s:.2f} s -- {pruned.stdout.strip().splitlines()[1].strip()}")
    print(
        f"live writer during prune: {count} records, longest stall {longest * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, median {median * 1000:.2f} ms, {len(errors)} failed writes"
        + (f" (first: {errors[0]})" if errors else "")
    )
    print(f"after prune: {integrity(url)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--import-lines", type=int, default=200_000)
    parser.add_argument("--keep", type=Path, help="Keep the work directory here.")
    parser.add_argument("--only", choices=["import", "prune"], help="Measure only the import, or only the prune.")
    parser.add_argument("--no-search", action="store_true", help="Skip the search figures against Atuin.")
    parser.add_argument("--e2e-rows", type=int, default=200_000, help="History size for the search against Atuin.")
    parser.add_argument(
        "--venv",
        type=Path,
        action="append",
        default=[],
        help=VENV_HELP,
    )
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="parsec-bench-history-"))
    try:
        if args.only == "import":
            bench_import(args.import_lines, workdir, {**os.environ, "PYTHONPATH": str(ROOT)})
            return
        data_home = workdir / "data"
        begin = time.perf_counter()
        url, dirs = build_store(data_home, args.rows)
        print(f"built a store of {args.rows:,} executions in {time.perf_counter() - begin:.1f} s; {integrity(url)}")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
        env.update(
            XDG_DATA_HOME=str(data_home),
            XDG_CONFIG_HOME=str(workdir / "config"),
            XDG_RUNTIME_DIR=str(workdir / "run"),
            PYTHONPATH=str(ROOT),
        )
        parsec = [sys.executable, "-m", "parsec.cli.entry"]
        cwd = dirs[37]
        if args.only == "prune":
            bench_prune(url, env, parsec)
            return

        if not args.no_search:
            from history_search import run as run_search

            run_search(
                Path(url.removeprefix("sqlite:///")),
                env,
                parsec,
                args.runs,
                args.e2e_rows,
                workdir,
                venvs=tuple(args.venv),
            )

        timed = time_processes(
            {
                "baseline": [sys.executable, "-c", "pass"],
                "cwd": parsec + ["history", "--cwd", cwd, "--exit", "fail", "--format", "{id}"],
                "fts": parsec + ["history", "--search", "docker compose", "--format", "{id}"],
                "sessions": parsec + ["sessions"],
            },
            env,
            args.runs,
        )
        baseline = timed["baseline"][0]
        assert 0 < len(timed["cwd"][1].split()) <= 50 and 0 < len(timed["fts"][1].split()) <= 50
        print(f"python -c pass (baseline)                       median {baseline:7.1f} ms")
        for name, label in (
            ("cwd", "parsec history --cwd D --exit fail (end to end)"),
            ("fts", "parsec history --search 'docker compose' (e2e) "),
            ("sessions", "parsec sessions (end to end)                   "),
        ):
            value = timed[name][0]
            print(f"{label} median {value:7.1f} ms  (+{value - baseline:.1f} ms over baseline)")

        for name, (fast, slow) in time_queries(url, cwd, args.runs).items():
            print(f"query alone: {name:36s} sqlite3 median {fast:7.2f} ms   via store {slow:7.2f} ms")

        bench_prune(url, env, parsec)
        bench_import(args.import_lines, workdir, env)
        if args.keep:
            shutil.copytree(workdir, args.keep, dirs_exist_ok=True)
            print(f"kept in {args.keep}; compare trees on it: python bench/history_queries.py {args.keep} {cwd}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
