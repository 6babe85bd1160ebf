"""Daemon load benchmark: 50 concurrent shells sending command_started/command_finished pairs.

    python bench/daemon.py                 # 20 s, 50 shells, 5,000 requests/s offered in total
    python bench/daemon.py --runs 3        # three runs and the median of each figure
    python bench/daemon.py --rate 0        # closed loop: each shell sends as soon as it is answered
    python bench/daemon.py --soak          # 10 minutes: RSS before/after (no growth expected)

Prints requests/s, round-trip p50/p99 (ms) overall and for command_started (no disk) and
command_finished (waits for the journal's fsync) apart, acknowledged records and the count in the store
afterwards (they must be equal), the daemon's CPU time per request, and its RSS idle before the
load, a quarter of the way in (warm) and at the end: warm → end must not grow. Client processes run
beside the daemon on the same cores, so the figures include their cost too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from parsec.protocol.client import DaemonClient  # noqa: E402


def sandbox_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name, var in (
        ("run", "XDG_RUNTIME_DIR"),
        ("data", "XDG_DATA_HOME"),
        ("state", "XDG_STATE_HOME"),
        ("config", "XDG_CONFIG_HOME"),
    ):
        (root / name).mkdir(mode=0o700)
        env[var] = str(root / name)
    env.pop("PARSEC_CONFIG", None)
    return env


async def one_shell(
    sock_path: str, key: str, deadline: float, latencies: tuple[list[int], list[int]], interval: float
) -> int:
    """One simulated shell: started/finished pairs until the deadline. Returns finished acks.

    With `interval` > 0 a pair starts every `interval` seconds (open loop, like real shells);
    with 0 the next pair follows the last reply at once (closed loop: maximum throughput)."""
    reader, writer = await asyncio.open_unix_connection(sock_path)
    acked = 0
    seq = 0
    clock = time.perf_counter_ns
    next_at = time.monotonic() + interval * (hash(key) % 1000) / 1000  # spread the shells out
    while time.monotonic() < deadline:
        if interval:
            delay = next_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            next_at += interval
        seq += 1
        now = time.time()
        started = (
            b'{"v":1,"type":"command_started","session":"%s","seq":%d,"command":"make test -j4 %d","started_at":%f,"cwd":"/home/me/src/project"}\n'
            % (key.encode(), seq, seq, now)
        )
        finish = (
            b'{"v":1,"type":"command_finished","session":"%s","seq":%d,"exit_status":0,"pipeline_statuses":[0],"finished_at":%f,"cwd_after":"/home/me/src/project"}\n'
            % (key.encode(), seq, now + 0.002)
        )
        # command_started replies at once; command_finished waits for the journal's fsync.
        for line, into in ((started, latencies[0]), (finish, latencies[1])):
            t0 = clock()
            writer.write(line)
            reply = await reader.readline()
            into.append(clock() - t0)
            if b'"ok":true' not in reply:
                raise RuntimeError(f"error reply: {reply!r}")
        acked += 1
    writer.close()
    return acked


def worker(
    sock_path: str, first: int, count: int, seconds: float, start_at: float, interval: float, out: multiprocessing.Queue
) -> None:
    async def main() -> tuple[int, tuple[list[int], list[int]]]:
        latencies: tuple[list[int], list[int]] = ([], [])
        while time.time() < start_at:
            await asyncio.sleep(0.001)
        deadline = time.monotonic() + seconds
        acks = await asyncio.gather(
            *(
                one_shell(sock_path, f"{900000 + i}-1.0", deadline, latencies, interval)
                for i in range(first, first + count)
            )
        )
        return sum(acks), latencies

    acked, latencies = asyncio.run(main())
    out.put((acked, latencies))


def percentile(sorted_values: list[int], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))] / 1e6


def run(args: argparse.Namespace) -> dict:
    root = Path(tempfile.mkdtemp(prefix="pbench"))
    env = sandbox_env(root)
    if args.store_url:
        env["PARSEC_STORE_URL"] = args.store_url
    daemon = subprocess.Popen([sys.executable, "-m", "parsec.daemon"], env=env, cwd=REPO, stdin=subprocess.DEVNULL)
    runtime = root / "run" / "parsec"
    try:
        for _ in range(500):
            try:
                with DaemonClient.connect(runtime, timeout=1) as client:
                    rss_before = client.call("status")["rss_bytes"]
                break
            except Exception:
                time.sleep(0.02)
        else:
            raise SystemExit("the daemon did not start")

        import psutil

        daemon_process = psutil.Process(daemon.pid)
        cpu_before = sum(daemon_process.cpu_times()[:2])
        queue: multiprocessing.Queue = multiprocessing.Queue()
        per_worker = [
            args.clients // args.workers + (1 if i < args.clients % args.workers else 0) for i in range(args.workers)
        ]
        start_at = time.time() + 1.0
        # Each shell sends a pair (2 requests) every `interval` seconds to reach --rate overall.
        interval = 2 * args.clients / args.rate if args.rate else 0.0
        procs, first = [], 0
        for count in per_worker:
            proc = multiprocessing.Process(
                target=worker,
                args=(str(runtime / "daemon.sock"), first, count, args.seconds, start_at, interval, queue),
            )
            proc.start()
            procs.append(proc)
            first += count
        # RSS once the load has run a quarter of its time (buffers warm), to compare with the end.
        time.sleep(max(0.0, start_at - time.time()) + args.seconds / 4)
        with DaemonClient.connect(runtime, timeout=30) as client:
            rss_warm = client.call("status")["rss_bytes"]
        results = [queue.get() for _ in procs]
        for proc in procs:
            proc.join()

        cpu_used = sum(daemon_process.cpu_times()[:2]) - cpu_before  # the server process only
        acked = sum(result[0] for result in results)
        started_lat = sorted(value for result in results for value in result[1][0])
        finished_lat = sorted(value for result in results for value in result[1][1])
        latencies = sorted(started_lat + finished_lat)
        with DaemonClient.connect(runtime, timeout=60) as client:
            rss_after = client.call("status")["rss_bytes"]
            flushed = client.call("flush")
        stored = None
        if not args.store_url:
            with sqlite3.connect(root / "data" / "parsec" / "parsec.db") as db:
                stored = db.execute("select count(*) from executions").fetchone()[0]
        return {
            "clients": args.clients,
            "offered_rate": args.rate or "max",
            "seconds": args.seconds,
            "requests": len(latencies),
            "requests_per_s": round(len(latencies) / args.seconds),
            "p50_ms": round(percentile(latencies, 0.50), 3),
            "p99_ms": round(percentile(latencies, 0.99), 3),
            "max_ms": round(latencies[-1] / 1e6, 3),
            "started_p50_p99_ms": [round(percentile(started_lat, 0.5), 3), round(percentile(started_lat, 0.99), 3)],
            "finished_p50_p99_ms": [round(percentile(finished_lat, 0.5), 3), round(percentile(finished_lat, 0.99), 3)],
            "acknowledged_records": acked,
            "stored_records": stored,
            "none_lost": stored == acked if stored is not None else flushed["in_store"],
            "rss_before_mib": round(rss_before / 1048576, 1),
            "rss_warm_mib": round(rss_warm / 1048576, 1),
            "rss_after_mib": round(rss_after / 1048576, 1),
            "daemon_cpu_us_per_request": round(cpu_used / max(1, len(latencies)) * 1e6, 1),
        }
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(60)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="client processes")
    parser.add_argument(
        "--rate",
        type=float,
        default=5000.0,
        help="requests/s offered by all shells together; 0 = as fast as replies come",
    )
    parser.add_argument("--runs", type=int, default=1, help="repeat and report the median of each figure")
    parser.add_argument("--soak", action="store_true", help="one 10-minute run (RSS before/after)")
    parser.add_argument("--store-url", default="", help="a store URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    if args.soak:
        args.seconds, args.runs = 600.0, 1
    runs = [run(args) for _ in range(args.runs)]
    for index, figures in enumerate(runs, 1):
        print(f"run {index}: " + json.dumps(figures))
    if args.runs > 1:
        keys = ["requests_per_s", "p50_ms", "p99_ms"]
        print("median: " + json.dumps({key: statistics.median(r[key] for r in runs) for key in keys}))
    print("targets: p99 <= 2 ms, >= 5000 requests/s, stored == acknowledged")


if __name__ == "__main__":
    main()
