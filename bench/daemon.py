"""Daemon load benchmark: 50 concurrent shells, over each path a hook's records really take.

    python bench/daemon.py                      # 20 s per path, 50 shells, 5,000 requests/s offered
    python bench/daemon.py --runs 3             # three runs of each path, the median of each figure
    python bench/daemon.py --transport socket   # one path only (socket, fifo or spool)
    python bench/daemon.py --rate 0             # closed loop (socket, fifo): send as soon as answered
    python bench/daemon.py --soak               # 10 minutes: RSS before/after (no growth expected)

The three paths:
- socket: `command_started` / `command_finished` pairs over persistent Unix-socket connections,
  each waiting for its reply (the Python client, `parsec shell`). Round trip p50/p99 overall and
  per type (`command_started` needs no disk, `command_finished` waits for the journal's write).
- fifo: what bash and zsh do at a prompt (docs/hooks.md, "Transport"): per command a question
  (`classify` of a two-word line, answered on the shell's own reply FIFO) and then the
  fire-and-forget `command_finished` record, written whole into `hooks.fifo` — after checking, as
  the hooks do, whether the FIFO was seen empty: past 4 unread lines the record goes to the spool.
  Reported: the question's round trip, the record's cost to the shell (check + write), and how many
  records fell back to the spool.
- spool: the daemon-down path: each record appended to `spool/<shell>-<session>.jsonl` (open,
  write, close, as a shell's `>>`), replayed by the daemon every 2 s. Reported: the append's
  cost, and how long after the last append the store holds every record.

Every path: the offered rate and the achieved one (requests answered, or records written, per
second of the measured span: first send to last reply), records sent against records in the store
afterwards (they must be equal), CPU per request and RSS of the whole process tree — the daemon
and its store writer, which holds SQLAlchemy and does a large share of the work per record, apart
and together — idle before the load, a quarter of the way in (warm) and at the end: warm → end
must not grow. Client processes run beside the daemon on the same cores, so the figures include
their cost too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import select
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import psutil  # noqa: E402

from parsec.daemon.process_tree import cpu_seconds, rss_bytes, tree  # noqa: E402
from parsec.protocol.client import DaemonClient  # noqa: E402
from parsec.protocol.version import PROTOCOL_VERSION as V  # noqa: E402 - the lines the hooks write carry it


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


async def paced(key: str, deadline: float, interval: float) -> AsyncIterator[int]:
    """One shell's command numbers until the deadline: one every `interval` seconds (open loop,
    like real shells; each shell starts at its own point of the first interval), or with 0 the
    next as soon as the caller asks (closed loop: maximum throughput)."""
    next_at = time.monotonic() + interval * (hash(key) % 1000) / 1000
    seq = 0
    while time.monotonic() < deadline:
        if interval:
            delay = next_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            next_at += interval
        seq += 1
        yield seq


async def one_shell(
    sock_path: str, key: str, deadline: float, latencies: tuple[list[int], list[int]], interval: float
) -> int:
    """One simulated shell: started/finished pairs until the deadline. Returns finished acks.

    With `interval` > 0 a pair starts every `interval` seconds (open loop, like real shells);
    with 0 the next pair follows the last reply at once (closed loop: maximum throughput)."""
    reader, writer = await asyncio.open_unix_connection(sock_path)
    acked = 0
    clock = time.perf_counter_ns
    async for seq in paced(key, deadline, interval):
        now = time.time()
        started = (
            b'{"v":%d,"type":"command_started","session":"%s","seq":%d,"command":"make test -j4 %d","started_at":%f,"cwd":"/home/me/src/project"}\n'
            % (V, key.encode(), seq, seq, now)
        )
        finish = (
            b'{"v":%d,"type":"command_finished","session":"%s","seq":%d,"exit_status":0,"pipeline_statuses":[0],"finished_at":%f,"cwd_after":"/home/me/src/project"}\n'
            % (V, key.encode(), seq, now + 0.002)
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


def record_line(key: str, seq: int, now: float) -> bytes:
    """A `command_finished` as the bash hook writes it at the prompt (one line, fire and forget)."""
    return (
        b'{"v":%d,"type":"command_finished","noreply":true,"session":"%s","seq":%d,"command":"make test -j4 %d",'
        b'"started_at":%f,"finished_at":%f,"duration_ms":2,"exit_status":0,"pipeline_statuses":[0],'
        b'"cwd":"/home/me/src/project","cwd_after":"/home/me/src/project"}\n'
        % (V, key.encode(), seq, seq, now - 0.002, now)
    )


def session_line(key: str) -> bytes:
    return (
        b'{"v":%d,"type":"session_start","noreply":true,"session":"%s","shell":"bash","pid":%d,"tty":null,'
        b'"user":"me","host":"box","cwd":"/home/me/src/project","env":{}}\n' % (V, key.encode(), os.getpid())
    )


class Counts:
    """What one worker's shells did, beyond the latencies."""

    def __init__(self) -> None:
        self.records = 0  # records sent (FIFO or spool)
        self.spooled = 0  # of which the FIFO path diverted to the spool (FIFO not seen empty, or full)
        self.timeouts = 0  # questions with no answer within 5 s
        self.first_send = 0.0
        self.last_reply = 0.0


def spool_append(spool: Path, key: str, line: bytes) -> None:
    """A shell's `>>` into its own spool file: open, one write, close."""
    fd = os.open(spool / f"bash-{key}.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


async def fifo_shell(
    runtime: Path,
    fifo_fd: int,
    key: str,
    deadline: float,
    latencies: tuple[list[int], list[int]],
    interval: float,
    counts: Counts,
) -> None:
    """One shell on the hooks' FIFO path: per command a question answered on its reply FIFO, then
    the record, with the hooks' rule: at most 4 lines into a FIFO not seen empty, else the spool."""
    loop = asyncio.get_running_loop()
    reply_path = runtime / "reply" / key
    os.mkfifo(reply_path, 0o600)
    reply_fd = os.open(reply_path, os.O_RDWR | os.O_NONBLOCK)
    answers: asyncio.Queue[bytes] = asyncio.Queue()
    pending = bytearray()

    def readable() -> None:
        try:
            pending.extend(os.read(reply_fd, 65536))
        except BlockingIOError:
            return
        while b"\n" in pending:
            line, _, rest = bytes(pending).partition(b"\n")
            pending[:] = rest
            answers.put_nowait(line)

    loop.add_reader(reply_fd, readable)
    spool = runtime / "spool"
    clock = time.perf_counter_ns
    unread = 4  # as a hook that has just opened the FIFO: until it is seen empty
    started = False
    try:
        async for seq in paced(key, deadline, interval):
            # The question a two-word line asks (`git status`): sent even past 4 unread lines.
            question = (
                b'{"id":%d,"reply_to":"%s","v":%d,"type":"classify","session":"%s","text":"git status",'
                b'"first_word":"file","parses":true,"cwd":"/home/me/src/project","shell":"bash"}\n'
                % (seq, key.encode(), V, key.encode())
            )
            t0 = clock()
            if not select.select([fifo_fd], [], [], 0)[0]:
                unread = 0
            os.write(fifo_fd, question)
            unread += 1
            try:
                while True:
                    answer = await asyncio.wait_for(answers.get(), 5.0)
                    if b'"id":%d,' % seq in answer or b'"id": %d,' % seq in answer:
                        break
                latencies[0].append(clock() - t0)
                if b'"ok":true' not in answer.replace(b" ", b""):
                    raise RuntimeError(f"error reply: {answer!r}")
            except TimeoutError:
                counts.timeouts += 1
            # The record, at the next prompt.
            line = record_line(key, seq, time.time())
            if not started:
                line, started = session_line(key) + line, True
            t0 = clock()
            if not select.select([fifo_fd], [], [], 0)[0]:
                unread = 0
            sent = False
            if unread < 4:
                try:
                    os.write(fifo_fd, line)
                    unread += 1
                    sent = True
                except BlockingIOError:  # a full pipe (zsh's non-blocking write fails; bash never gets here)
                    pass
            if not sent:
                spool_append(spool, key, line)
                counts.spooled += 1
            latencies[1].append(clock() - t0)
            counts.records += 1
    finally:
        loop.remove_reader(reply_fd)
        os.close(reply_fd)


async def spool_shell(
    runtime: Path, key: str, deadline: float, latencies: tuple[list[int], list[int]], interval: float, counts: Counts
) -> None:
    """One shell with no daemon to write to: every record appended to its spool file."""
    spool = runtime / "spool"
    clock = time.perf_counter_ns
    async for seq in paced(key, deadline, interval):
        line = record_line(key, seq, time.time())
        if seq == 1:
            line = session_line(key) + line
        t0 = clock()
        spool_append(spool, key, line)
        latencies[1].append(clock() - t0)
        counts.records += 1
        if not interval:
            await asyncio.sleep(0)


def worker(
    transport: str,
    runtime: str,
    first: int,
    count: int,
    seconds: float,
    start_at: float,
    interval: float,
    out: multiprocessing.Queue,
) -> None:
    async def main() -> tuple[int, tuple[list[int], list[int]], Counts]:
        latencies: tuple[list[int], list[int]] = ([], [])
        counts = Counts()
        while time.time() < start_at:
            await asyncio.sleep(0.001)
        deadline = time.monotonic() + seconds
        keys = [f"{900000 + i}-1.0" for i in range(first, first + count)]
        counts.first_send = time.time()
        acked = 0
        if transport == "socket":
            sock = str(Path(runtime) / "daemon.sock")
            acks = await asyncio.gather(*(one_shell(sock, k, deadline, latencies, interval) for k in keys))
            acked = sum(acks)
        elif transport == "fifo":
            fifo_fd = os.open(Path(runtime) / "hooks.fifo", os.O_RDWR | os.O_NONBLOCK)
            try:
                await asyncio.gather(
                    *(fifo_shell(Path(runtime), fifo_fd, k, deadline, latencies, interval, counts) for k in keys)
                )
            finally:
                os.close(fifo_fd)
        else:
            await asyncio.gather(*(spool_shell(Path(runtime), k, deadline, latencies, interval, counts) for k in keys))
        counts.last_reply = time.time()
        return acked, latencies, counts

    acked, latencies, counts = asyncio.run(main())
    out.put((acked, latencies, counts))


def percentile(sorted_values: list[int], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))] / 1e6


def tree_figures(daemon_process: psutil.Process) -> tuple[float, float, int]:
    """(daemon CPU s, whole tree CPU s, whole tree RSS bytes)."""
    processes = tree(daemon_process)
    return cpu_seconds([daemon_process]), cpu_seconds(processes), rss_bytes(processes)


def stored_count(root: Path, store_url: str) -> int | None:
    if store_url:
        return None
    with sqlite3.connect(root / "data" / "parsec" / "parsec.db") as db:
        return db.execute("select count(*) from executions").fetchone()[0]


def run(args: argparse.Namespace, transport: str) -> dict:
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
                    client.call("status")
                    # the classifier is built on the first question: not inside the measured span
                    client.call("classify", session="0-0", text="git status", first_word="file", parses=True, cwd="/")
                break
            except Exception:
                time.sleep(0.02)
        else:
            raise SystemExit("the daemon did not start")
        (runtime / "reply").mkdir(mode=0o700, exist_ok=True)
        (runtime / "spool").mkdir(mode=0o700, exist_ok=True)

        daemon_process = psutil.Process(daemon.pid)
        rss_before = tree_figures(daemon_process)[2]
        own_before, cpu_before, _ = tree_figures(daemon_process)
        queue: multiprocessing.Queue = multiprocessing.Queue()
        per_worker = [
            args.clients // args.workers + (1 if i < args.clients % args.workers else 0) for i in range(args.workers)
        ]
        start_at = time.time() + 1.0
        # Each shell sends 2 requests per command (a pair, or a question and a record; the spool
        # path 1 record) every `interval` seconds, to offer --rate overall.
        per_command = 1 if transport == "spool" else 2
        interval = per_command * args.clients / args.rate if args.rate else 0.0
        procs, first = [], 0
        for count in per_worker:
            proc = multiprocessing.Process(
                target=worker,
                args=(transport, str(runtime), first, count, args.seconds, start_at, interval, queue),
            )
            proc.start()
            procs.append(proc)
            first += count
        # RSS once the load has run a quarter of its time (buffers warm), to compare with the end.
        time.sleep(max(0.0, start_at - time.time()) + args.seconds / 4)
        rss_warm = tree_figures(daemon_process)[2]
        results = [queue.get() for _ in procs]
        for proc in procs:
            proc.join()
        counts = [result[2] for result in results]
        sent = sum(c.records for c in counts) or sum(result[0] for result in results)
        # Until the store holds every record sent (the spool is replayed every 2 s), at most 120 s.
        drained_at = time.time()
        with DaemonClient.connect(runtime, timeout=60) as client:
            flushed = client.call("flush")
            stored = stored_count(root, args.store_url)
            while stored is not None and stored < sent and time.time() < drained_at + 120:
                time.sleep(0.05)
                flushed = client.call("flush")
                stored = stored_count(root, args.store_url)
        drain_s = time.time() - max(c.last_reply for c in counts)
        own_after, cpu_after, rss_after = tree_figures(daemon_process)
        started_lat = sorted(value for result in results for value in result[1][0])
        finished_lat = sorted(value for result in results for value in result[1][1])
        latencies = sorted(started_lat + finished_lat)
        span = max(c.last_reply for c in counts) - min(c.first_send for c in counts)
        requests = len(latencies)
        figures: dict = {
            "transport": transport,
            "clients": args.clients,
            "offered_per_s": args.rate or "max",
            "achieved_per_s": round(requests / span),
            "requests": requests,
        }
        if transport == "socket":
            figures.update(
                {
                    "p50_ms": round(percentile(latencies, 0.50), 3),
                    "p99_ms": round(percentile(latencies, 0.99), 3),
                    "max_ms": round(latencies[-1] / 1e6, 3),
                    "started_p50_p99_ms": [
                        round(percentile(started_lat, 0.5), 3),
                        round(percentile(started_lat, 0.99), 3),
                    ],
                    "finished_p50_p99_ms": [
                        round(percentile(finished_lat, 0.5), 3),
                        round(percentile(finished_lat, 0.99), 3),
                    ],
                }
            )
        if transport == "fifo":
            figures.update(
                {
                    "question_p50_p99_max_ms": [
                        round(percentile(started_lat, 0.5), 3),
                        round(percentile(started_lat, 0.99), 3),
                        round(started_lat[-1] / 1e6, 3),
                    ],
                    "questions_unanswered_5s": sum(c.timeouts for c in counts),
                    "records_spooled_not_fifo": sum(c.spooled for c in counts),
                }
            )
        if transport != "socket":
            figures["record_write_p50_p99_max_ms"] = [
                round(percentile(finished_lat, 0.5), 3),
                round(percentile(finished_lat, 0.99), 3),
                round(finished_lat[-1] / 1e6, 3),
            ]
        figures.update(
            {
                "records_sent": sent,
                "stored_records": stored,
                "none_lost": stored == sent if stored is not None else flushed["in_store"],
                "all_stored_s_after_last": round(drain_s, 2),
                "tree_rss_before_warm_after_mib": [round(v / 1048576, 1) for v in (rss_before, rss_warm, rss_after)],
                "tree_processes": len(tree(daemon_process)),
                "cpu_us_per_request_daemon_writer_total": [
                    round((own_after - own_before) / max(1, requests) * 1e6, 1),
                    round(((cpu_after - cpu_before) - (own_after - own_before)) / max(1, requests) * 1e6, 1),
                    round((cpu_after - cpu_before) / max(1, requests) * 1e6, 1),
                ],
            }
        )
        return figures
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(60)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(root, ignore_errors=True)


def medians(runs: list[dict]) -> dict:
    """The median of each numeric figure over the runs (of each element, for lists of numbers)."""
    out: dict = {}
    for key, first in runs[0].items():
        if isinstance(first, bool) or not isinstance(first, (int, float, list)):
            continue
        if isinstance(first, list):
            out[key] = [statistics.median(r[key][i] for r in runs) for i in range(len(first))]
        else:
            out[key] = statistics.median(r[key] for r in runs)
    return out


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
    parser.add_argument("--transport", default="socket,fifo,spool", help="paths to measure, comma-separated")
    parser.add_argument("--runs", type=int, default=1, help="repeat and report the median of each figure")
    parser.add_argument("--soak", action="store_true", help="one 10-minute run (RSS before/after)")
    parser.add_argument("--store-url", default="", help="a store URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    if args.soak:
        args.seconds, args.runs = 600.0, 1
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for transport in args.transport.split(","):
        runs = [run(args, transport) for _ in range(args.runs)]
        for index, figures in enumerate(runs, 1):
            print(f"{transport} run {index}: " + json.dumps(figures))
        if args.runs > 1:
            print(f"{transport} median of {args.runs}: " + json.dumps(medians(runs)))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("targets: socket p99 <= 2 ms, >= 5000 requests/s achieved, stored == sent")


if __name__ == "__main__":
    main()
