"""Benchmark of the ContextStore: bulk recording, filtered history queries, full-text search,
bytes per row and retention, on SQLite (1,000,000 rows) and PostgreSQL (100,000 rows).

    python bench/store.py                    # full run, writes the "## Store" section of docs/performance.md
    python bench/store.py --rows 50000 --pg-rows 10000 --no-write   # a quick look
    python bench/store.py --only-durability   # what synchronous=FULL costs against NORMAL

Recording is compared with a raw baseline in the same process and on the same rows: the fastest
of three raw sqlite3 inserts (executemany, 500-row multi-VALUES statements, one INSERT ... SELECT
over json_each per batch; all three printed), or psycopg's pipelined `executemany`, of pre-built
tuples into an identical schema (same indexes and full-text triggers), in batches of the same size. The Parsec side starts from
DirectCommandExecution objects, so its time includes turning models into rows.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from parsec.models.parsec_model import new_id
from parsec.models.retention import RetentionPolicy
from parsec.models.session import DirectCommandExecution
from parsec.models.text import TruncatedText
from parsec.store import open_store
from parsec.store.protocols import ExecutionQuery
from parsec.store.rows import execution_row
from parsec.store.schema import executions

BATCH = 5000  # rows per append_executions call / per baseline transaction
START = datetime(2025, 1, 1, tzinfo=UTC)
COLUMNS = [c.name for c in executions.columns if c.name != "seq"]

PROJECTS = [
    f"/home/dev/src/{name}"
    for name in (
        "parsec",
        "api",
        "web",
        "infra",
        "ml-pipeline",
        "dotfiles",
        "blog",
        "cli-tools",
        "payments",
        "search",
        "mobile",
        "data-lake",
        "auth",
        "billing",
        "docs",
        "scripts",
        "terraform",
        "k8s",
        "notebooks",
        "game",
    )
]
SUBDIRS = ["", "/src", "/tests", "/docs", "/src/core", "/deploy", "/scripts", "/frontend/components"]
COMMANDS = [
    "git status",
    "git diff",
    "git log --oneline -20",
    "git add -A",
    "git commit -m 'wip: {w}'",
    "git push --force",
    "git push origin main",
    "git push --force-with-lease",
    "git pull --rebase",
    "git checkout -b feature/{w}",
    "git rebase -i HEAD~{n}",
    "ls -la",
    "ls",
    "cd ..",
    "cd src",
    "make",
    "make test",
    "make -j{n}",
    "pytest -k {w}",
    "pytest tests/test_{w}.py -x -q",
    "python -m pip install {w}",
    "npm run build",
    "npm test -- --watch={w}",
    "cargo build --release",
    "cargo test {w}",
    "docker compose up -d",
    "docker ps",
    "docker build -t {w}:latest .",
    "kubectl get pods -n {w}",
    "kubectl logs -f deploy/{w}",
    "terraform plan -out plan.{n}",
    "grep -rn '{w}' src/",
    "rg {w}",
    "vim src/{w}.py",
    "cat README.md",
    "tail -f /var/log/{w}.log",
    "ssh deploy@{w}.example.com",
    "curl -s https://api.example.com/{w} | jq .",
    "htop",
    "echo ${w}",
]
WORDS = [
    "auth",
    "login",
    "cache",
    "retry",
    "parser",
    "config",
    "user",
    "order",
    "invoice",
    "search",
    "index",
    "queue",
    "worker",
    "metrics",
    "session",
    "token",
    "router",
    "schema",
    "migration",
    "api",
]


def make_chunk(index: int, size: int, sessions: list[str]) -> list[DirectCommandExecution]:
    rng = random.Random(index)
    items = []
    for i in range(size):
        n = index * size + i
        project = rng.choice(PROJECTS)
        status = 0 if rng.random() < 0.85 else rng.choice([1, 1, 1, 2, 127, 130])
        output = (
            TruncatedText.from_output(f"error: {rng.choice(WORDS)} failed\n") if status and rng.random() < 0.3 else None
        )
        items.append(
            DirectCommandExecution(
                session_id=sessions[rng.randrange(len(sessions))],
                command=rng.choice(COMMANDS).format(w=rng.choice(WORDS), n=rng.randrange(2, 16)),
                executed_at=START + timedelta(seconds=n * 30 + rng.randrange(30)),
                duration_ms=rng.randrange(5, 60_000),
                exit_status=status,
                stdout=output,
                working_directory=project + rng.choice(SUBDIRS),
                host=rng.choice(["laptop", "workstation", "build-01"]),
                user="dev",
            )
        )
    return items


def as_tuples(items: list[DirectCommandExecution]) -> list[tuple]:
    rows = [execution_row(item) for item in items]
    return [tuple(row[c] for c in COLUMNS) for row in rows]


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(fn, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


# --- recording ---------------------------------------------------------------------------------


def record(store, baselines: dict, rows: int, sessions: list[str]) -> tuple[float, dict[str, float]]:
    """Parsec's rate and each raw method's, in rows/s; each chunk goes to Parsec and then to every
    raw method (each its own database), so machine noise hits all of them alike."""
    ours = 0.0
    raw = dict.fromkeys(baselines, 0.0)
    for index in range(0, (rows + BATCH - 1) // BATCH):
        chunk = make_chunk(index, min(BATCH, rows - index * BATCH), sessions)
        started = time.perf_counter()
        store.append_executions(chunk)
        ours += time.perf_counter() - started
        tuples = as_tuples(chunk)
        for name, insert in baselines.items():
            started = time.perf_counter()
            insert(tuples)
            raw[name] += time.perf_counter() - started
        if index % 40 == 0:
            print(f"  … {index * BATCH + len(chunk):,} rows", file=sys.stderr)
    return rows / ours, {name: rows / seconds for name, seconds in raw.items()}


VALUES_ROWS = 500  # rows per multi-VALUES statement (15 columns: 7,500 parameters, under SQLite's 32,766)


def sqlite_baselines(directory: Path, sessions: list[str]) -> dict:
    """Raw sqlite3 inserts of pre-built tuples, each into its own database of identical schema
    (created by the store, then left alone), one transaction per batch as the store's:
    - executemany: one statement per row (FTS5 then writes a one-row segment per row);
    - multi-VALUES: one statement per VALUES_ROWS rows;
    - json_each: the batch as one JSON array and one INSERT ... SELECT (the store's form until
      2026-12-06; it now inserts multi-VALUES statements of 2,000 rows).
    The best of them is the baseline: the fastest insert there is, not the slowest."""
    from parsec.store.execution_insert import QUOTED_COLUMNS

    json_sql = (
        f"INSERT INTO executions ({QUOTED_COLUMNS}) SELECT "
        + ", ".join(f"json_extract(value, '$[{i}]')" for i in range(len(COLUMNS)))
        + " FROM json_each(?) WHERE true ON CONFLICT (id) DO NOTHING"
    )

    def connect(name: str) -> sqlite3.Connection:
        path = directory / f"raw-{name}.db"
        open_store(f"sqlite:///{path}").close()
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.executemany(
            "INSERT INTO sessions (id, created_at, last_active, shell, tty, user, host, data)"
            " VALUES (?, 0, 0, '', '', '', '', '{}')",
            [(s,) for s in sessions],
        )
        return connection

    row = f"({', '.join('?' * len(COLUMNS))})"
    many_sql = f"INSERT INTO executions ({QUOTED_COLUMNS}) VALUES {row}"
    many, values, each = connect("executemany"), connect("values"), connect("json_each")

    def executemany(tuples: list[tuple]) -> None:
        many.execute("BEGIN IMMEDIATE")
        many.executemany(many_sql, tuples)
        many.execute("COMMIT")

    def multi_values(tuples: list[tuple]) -> None:
        values.execute("BEGIN IMMEDIATE")
        for start in range(0, len(tuples), VALUES_ROWS):
            part = tuples[start : start + VALUES_ROWS]
            values.execute(
                f"INSERT INTO executions ({QUOTED_COLUMNS}) VALUES " + ", ".join([row] * len(part)),
                [value for item in part for value in item],
            )
        values.execute("COMMIT")

    def json_each(tuples: list[tuple]) -> None:
        each.execute("BEGIN IMMEDIATE")
        each.execute(json_sql, (json.dumps(tuples, ensure_ascii=False),))
        each.execute("COMMIT")

    return {"executemany": executemany, f"multi-VALUES ({VALUES_ROWS} rows)": multi_values, "json_each": json_each}


def pg_baseline(dsn: str, schema: str, sessions: list[str]):
    import psycopg

    connection = psycopg.connect(dsn, autocommit=True)
    connection.execute(f"SET search_path = {schema}, public")
    with connection.cursor() as cursor:
        cursor.executemany(
            'INSERT INTO sessions (id, created_at, last_active, shell, tty, "user", host, data)'
            " VALUES (%s, 0, 0, '', '', '', '', '{}')",
            [(s,) for s in sessions],
        )
    columns = ", ".join(f'"{c}"' for c in COLUMNS)
    sql = f"INSERT INTO executions ({columns}) VALUES ({', '.join(['%s'] * len(COLUMNS))})"

    def insert(tuples: list[tuple]) -> None:
        with connection.transaction(), connection.cursor() as cursor:
            cursor.executemany(sql, tuples)

    return insert


# --- queries -----------------------------------------------------------------------------------


def query_figures(store, repeat: int) -> dict[str, float]:
    rng = random.Random(7)
    cwds = [p + s for p in PROJECTS for s in SUBDIRS]
    filtered = timed(
        lambda: store.query_executions(ExecutionQuery(cwd=rng.choice(cwds), failed=True, limit=50)), repeat
    )
    subtree = timed(
        lambda: store.query_executions(ExecutionQuery(cwd=rng.choice(PROJECTS), cwd_subtree=True, limit=50)), repeat
    )
    searches = ["git push --force", "docker compose", "kubectl logs", "pytest -k retry", "invoice", "rebase -i"]
    text = timed(lambda: store.query_executions(ExecutionQuery(search=rng.choice(searches), limit=50)), repeat)
    rare = timed(lambda: store.query_executions(ExecutionQuery(search="tests/test_migration.py", limit=50)), repeat)
    return {
        "cwd_failed_p50": statistics.median(filtered),
        "cwd_failed_p99": percentile(filtered, 0.99),
        "subtree_p50": statistics.median(subtree),
        "fts_p50": statistics.median(text),
        "fts_p99": percentile(text, 0.99),
        "fts_rare_p50": statistics.median(rare),
    }


def prune_figures(store, rows: int) -> dict[str, float]:
    """Prune the older half while a writer keeps recording; the writer's worst wait."""
    live = new_id()
    stalls: list[float] = []
    done = threading.Event()

    def writer() -> None:
        while not done.is_set():
            started = time.perf_counter()
            store.append_executions([DirectCommandExecution(session_id=live, command="live write")])
            stalls.append((time.perf_counter() - started) * 1000)
            time.sleep(0.005)

    middle = START + timedelta(seconds=rows // 2 * 30)
    days = (datetime.now(UTC) - middle).days
    thread = threading.Thread(target=writer)
    thread.start()
    started = time.perf_counter()
    report = store.prune_old_context(
        RetentionPolicy(
            history_retention_days=days,
            session_retention_days=0,
            conversation_retention_days=0,
            max_conversation_history=0,
        )
    )
    elapsed = time.perf_counter() - started
    done.set()
    thread.join()
    return {
        "prune_rows": report.executions,
        "prune_s": elapsed,
        "prune_rate": report.executions / elapsed,
        "writer_stall_max_ms": max(stalls),
        "writer_stall_p99_ms": percentile(stalls, 0.99),
        "bytes_freed": report.bytes_freed,
    }


# --- retention of the tiers that age out (issue 13) ----------------------------------------------


def aging_tier_figures(rows: int) -> dict[str, float]:
    """`rows` commands, every one with captured output and older than session_retention_days, in a
    fresh SQLite store; the default policy drops their output (the commands stay) while a writer
    keeps recording. Seconds for the whole prune and the writer's worst wait."""
    with tempfile.TemporaryDirectory(prefix="parsec-bench-tier-") as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'parsec.db'}")
        session = new_id()
        old = datetime.now(UTC) - timedelta(days=400)
        output = TruncatedText.from_output("building target ... ok\n" * 8)
        for start in range(0, rows, BATCH):
            store.append_executions(
                DirectCommandExecution(
                    session_id=session,
                    command=f"make target-{n}",
                    executed_at=old + timedelta(seconds=n),
                    exit_status=0,
                    stdout=output,
                    stderr=output,
                )
                for n in range(start, min(rows, start + BATCH))
            )
        live = new_id()
        stalls: list[float] = []
        done = threading.Event()

        def writer() -> None:
            while not done.is_set():
                started = time.perf_counter()
                store.append_executions([DirectCommandExecution(session_id=live, command="live write")])
                stalls.append((time.perf_counter() - started) * 1000)
                time.sleep(0.005)

        thread = threading.Thread(target=writer)
        thread.start()
        started = time.perf_counter()
        report = store.prune_old_context(RetentionPolicy())
        elapsed = time.perf_counter() - started
        done.set()
        thread.join()
        kept = store.count_executions()
        store.close()
    return {
        "tier_rows": report.outputs,
        "tier_s": elapsed,
        "tier_rate": report.outputs / elapsed,
        "tier_stall_max_ms": max(stalls),
        "tier_stall_p99_ms": percentile(stalls, 0.99),
        "tier_commands_kept": kept - len(stalls),
    }


def render_tiers(f: dict) -> list[str]:
    return [
        f"| SQLite: age out the output of {f['tier_rows']:,} commands (default policy; target 1M ≤ 10 s) | "
        f"{f['tier_s']:.1f} s ({f['tier_rate']:,.0f} rows/s); {f['tier_commands_kept']:,} commands kept |",
        f"| SQLite: a concurrent writer's wait meanwhile, p99 / max (target ≤ 100 ms) | "
        f"{f['tier_stall_p99_ms']:.1f} ms / {f['tier_stall_max_ms']:.1f} ms |",
    ]


def fts_integrity(path: Path) -> str:
    """FTS5's own check of the full-text index after recording, querying and pruning."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("INSERT INTO executions_fts(executions_fts, rank) VALUES ('integrity-check', 1)")
        return "ok"
    except sqlite3.DatabaseError as err:
        return f"FAILED ({err})"
    finally:
        connection.close()


def file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


# --- the two backends --------------------------------------------------------------------------


def bench_sqlite(rows: int, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="parsec-bench-") as tmp:
        path = Path(tmp) / "parsec.db"
        sessions = [new_id() for _ in range(max(10, rows // 500))]
        store = open_store(f"sqlite:///{path}")
        ours, raws = record(store, sqlite_baselines(Path(tmp), sessions), rows, sessions)
        best = max(raws, key=raws.__getitem__)
        from parsec.store.prune import give_space_back

        give_space_back(store.db)  # checkpoint the WAL so the size is the file's
        figures = {
            "rows": rows,
            "ours_rate": ours,
            "raw_rate": raws[best],
            "raw_method": best,
            "raw_rates": raws,
            "ratio": ours / raws[best],
            "bytes_per_row": file_bytes(path) / rows,
        }
        figures |= query_figures(store, repeat)
        figures |= prune_figures(store, rows)
        store.close()
        figures["fts_integrity"] = fts_integrity(path)
        return figures


def bench_postgres(dsn: str, rows: int, repeat: int) -> dict[str, float] | None:
    import psycopg

    try:
        admin = psycopg.connect(dsn, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as err:
        print(f"PostgreSQL skipped: {err}", file=sys.stderr)
        return None
    suffix = new_id().lower()[-8:]
    ours_schema, raw_schema = f"bench_store_{suffix}", f"bench_raw_{suffix}"
    admin.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
    url = dsn.replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        for schema in (ours_schema, raw_schema):
            admin.execute(f"CREATE SCHEMA {schema}")
            open_store(f"{url}?options=-csearch_path%3D{schema},public").close()
        store = open_store(f"{url}?options=-csearch_path%3D{ours_schema},public")
        sessions = [new_id() for _ in range(max(10, rows // 500))]
        ours, raws = record(store, {"executemany": pg_baseline(dsn, raw_schema, sessions)}, rows, sessions)
        raw = raws["executemany"]
        admin.execute(f"VACUUM ANALYZE {ours_schema}.executions")
        size = admin.execute(f"SELECT pg_total_relation_size('{ours_schema}.executions')").fetchone()[0]
        figures = {"rows": rows, "ours_rate": ours, "raw_rate": raw, "ratio": ours / raw, "bytes_per_row": size / rows}
        figures |= query_figures(store, repeat)
        store.close()
        return figures
    finally:
        for schema in (ours_schema, raw_schema):
            admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.close()


# --- report ------------------------------------------------------------------------------------


def render(sqlite_figures: dict, pg_figures: dict | None, command: str) -> str:
    def block(name: str, f: dict, baseline: str) -> list[str]:
        lines = [
            f"| {name}: record {f['rows']:,} executions (append_executions, {BATCH:,}-row batches) | "
            f"{f['ours_rate']:,.0f} rows/s |",
            f"| {name}: same rows, best raw insert ({baseline} {f.get('raw_method', 'executemany')}), identical schema "
            f"| {f['raw_rate']:,.0f} rows/s |",
            *(
                f"| {name}: raw {method} (same rows, same run) | {rate:,.0f} rows/s |"
                for method, rate in f.get("raw_rates", {}).items()
                if method != f.get("raw_method")
            ),
            f"| {name}: ratio Parsec / raw (target ≥ 0.5) | **{f['ratio']:.2f}** |",
            f"| {name}: newest 50 for a cwd + failed, p50 / p99 (target p50 ≤ 10 ms) | "
            f"**{f['cwd_failed_p50']:.2f} ms** / {f['cwd_failed_p99']:.2f} ms |",
            f"| {name}: newest 50 for a cwd subtree, p50 | {f['subtree_p50']:.2f} ms |",
            f"| {name}: full-text, common terms, p50 / p99 (target p50 ≤ 50 ms) | "
            f"**{f['fts_p50']:.2f} ms** / {f['fts_p99']:.2f} ms |",
            f"| {name}: full-text, a rare path, p50 | {f['fts_rare_p50']:.2f} ms |",
            f"| {name}: bytes per row on disk (indexes and full-text index included) | {f['bytes_per_row']:.0f} |",
        ]
        if "prune_s" in f:
            lines += [
                f"| {name}: history tier, delete {f['prune_rows']:,} commands (history_retention_days) | {f['prune_s']:.1f} s "
                f"({f['prune_rate']:,.0f} rows/s) |",
                f"| {name}: a concurrent writer's wait during the prune, p99 / max (target ≤ 100 ms) | "
                f"{f['writer_stall_p99_ms']:.1f} ms / {f['writer_stall_max_ms']:.1f} ms |",
                f"| {name}: FTS5 integrity-check after recording, queries and prune | {f['fts_integrity']} |",
            ]
        return lines

    lines = [
        "## Store",
        "",
        f"`{command}` — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"{os.cpu_count()} cores shared with other work; medians of repeated queries.",
        "",
        "| what | figure |",
        "|---|---|",
    ]
    lines += block("SQLite", sqlite_figures, "sqlite3")
    if "tier_s" in sqlite_figures:
        lines += render_tiers(sqlite_figures)
    if pg_figures:
        lines += block("PostgreSQL", pg_figures, "psycopg")
    else:
        lines.append("| PostgreSQL | not measured (server unreachable) |")
    lines += [
        "",
        "Queries hit random cwds / search terms over realistic command texts (20 projects × 8 "
        "directories, ~40 command shapes, 15% failures). See docs/store.md for the indexes behind them.",
        "",
    ]
    return "\n".join(lines)


def write_section(section: str) -> None:
    path = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
    text = path.read_text() if path.exists() else "# Performance\n\n"
    pattern = re.compile(r"^## Store\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text)


# --- durability --------------------------------------------------------------------------------

DURABILITY_MODES = {  # name: (open_store's durable, checkpoint after each commit)
    "NORMAL (before)": (False, False),
    "FULL (now)": (True, False),
    "NORMAL + checkpoint per commit": (False, True),
}


def durability_figures(commits: int, batches: tuple[int, ...] = (1, 20, 500)) -> dict:
    """Median ms per append_executions call (one commit, as one flush of the store writer) for
    each SQLite synchronous mode, on the same disk, commits alternating between the modes so that
    machine noise hits all. "checkpoint per commit": NORMAL, with the WAL checkpointed (synced)
    before the journal segment could be deleted, the other way to make a commit durable."""
    import shutil

    root = Path(tempfile.mkdtemp(prefix="parsec-bench-sync-", dir=str(Path.home())))
    stores = {
        name: open_store(f"sqlite:///{root / f'{index}.db'}", durable=durable)
        for index, (name, (durable, _)) in enumerate(DURABILITY_MODES.items())
    }
    sessions = [new_id() for _ in range(10)]
    figures: dict = {}
    try:
        for batch in batches:
            samples: dict[str, list[float]] = {name: [] for name in stores}
            for index in range(commits):
                chunk = make_chunk(index, batch, sessions)
                for name, store in stores.items():
                    started = time.perf_counter()
                    store.append_executions(chunk)
                    if DURABILITY_MODES[name][1]:
                        raw = store.engine.raw_connection()
                        try:
                            raw.cursor().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                        finally:
                            raw.close()
                    samples[name].append((time.perf_counter() - started) * 1000)
            figures[batch] = {name: statistics.median(values) for name, values in samples.items()}
    finally:
        for store in stores.values():
            store.close()
        shutil.rmtree(root, ignore_errors=True)
    return figures


def render_durability(figures: dict, commits: int) -> list[str]:
    names = list(DURABILITY_MODES)
    lines = [
        f"SQLite commit (append_executions), median ms of {commits} commits per cell, same disk, same run:",
        "| records per commit | " + " | ".join(names) + " | FULL / NORMAL |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for batch, row in figures.items():
        ratio = row[names[1]] / row[names[0]]
        lines.append(f"| {batch} | " + " | ".join(f"{row[name]:.2f}" for name in names) + f" | {ratio:.2f}× |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="SQLite rows (default 1,000,000)")
    parser.add_argument("--pg-rows", type=int, default=100_000, help="PostgreSQL rows (default 100,000)")
    parser.add_argument(
        "--pg-url", default=os.environ.get("PARSEC_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
    )
    parser.add_argument("--repeat", type=int, default=200, help="runs per query figure")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/performance.md alone")
    parser.add_argument("--tier-rows", type=int, default=1_000_000, help="commands whose output ages out (0 = skip)")
    parser.add_argument("--only-tiers", action="store_true", help="measure only the aging tiers' prune")
    parser.add_argument("--only-durability", action="store_true", help="measure only synchronous FULL against NORMAL")
    parser.add_argument("--commits", type=int, default=200, help="commits per durability figure")
    args = parser.parse_args()
    if args.only_durability:
        for line in render_durability(durability_figures(args.commits), args.commits):
            print(line)
        return
    if args.only_tiers:
        for line in render_tiers(aging_tier_figures(args.tier_rows)):
            print(line)
        return

    print(f"SQLite, {args.rows:,} rows", file=sys.stderr)
    sqlite_figures = bench_sqlite(args.rows, args.repeat)
    if args.tier_rows:
        print(f"SQLite, output of {args.tier_rows:,} commands ages out", file=sys.stderr)
        sqlite_figures |= aging_tier_figures(args.tier_rows)
    pg_figures = None
    if args.pg_rows:
        print(f"PostgreSQL, {args.pg_rows:,} rows", file=sys.stderr)
        pg_figures = bench_postgres(args.pg_url, args.pg_rows, args.repeat)
    command = "python bench/store.py" + "".join(f" {a}" for a in sys.argv[1:] if a != "--no-write")
    section = render(sqlite_figures, pg_figures, command)
    print(section)
    if not args.no_write:
        write_section(section)
    print_masking_throughput()


def print_masking_throughput() -> None:
    """What every record pays at the store boundary: masking throughput, worst-case inputs
    (bench/masking.py has the inputs and the baseline)."""
    from masking import masking_lines  # bench/ is sys.path[0] when run as a script

    print("\n".join(masking_lines()))


if __name__ == "__main__":
    main()
