"""Classify latency of one shell while the daemon masks a 1 MB record of another (issue 13).

    python bench/daemon_masking.py            # 3 runs, medians
    python bench/daemon_masking.py --runs 5

One connection sends a record of 1 MB (a 500 KB command and its 500 KB output, dense in gitleaks
keywords and secrets: the costliest text to mask); another sends `classify` round trips back to
back until that record is acknowledged. Prints the classify round trip (p50 / p99 / max) while
the record is masked and with the daemon idle, and how long the record took. Goal: other shells
answered in <= 5 ms meanwhile. Client and daemon share the machine's cores.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from daemon import sandbox_env  # noqa: E402
from masking import worst_case_inputs  # noqa: E402

from parsec.protocol.client import DaemonClient  # noqa: E402

HALF = 500_000


def secret_laden(seed: int) -> str:
    keywords = worst_case_inputs(seed)["all gitleaks keywords"]
    unit = f"--password Zx81kQm2Lp{seed}T7vB9 export API_TOKEN=Zx81kQm2Lp{seed}sT7vB9nR4 " + keywords[:4000]
    return (unit * (HALF // len(unit) + 1))[:HALF]


def big_record(runtime: Path, seq: int, done: threading.Event, took: list[float]) -> None:
    command, output = secret_laden(seq), secret_laden(seq + 100)
    now = time.time()
    with DaemonClient.connect(runtime, timeout=120) as client:
        start = time.perf_counter()
        client.call("command_output", session="900-1.0", seq=seq, output=output, output_bytes=len(output))
        client.call(
            "command_finished",
            session="900-1.0",
            seq=seq,
            command=command,
            exit_status=0,
            started_at=now - 0.01,
            finished_at=now,
            cwd="/tmp",
        )
        took.append(time.perf_counter() - start)
    done.set()


def round_trips(client: DaemonClient, until) -> list[float]:
    times = []
    while not until():
        start = time.perf_counter()
        client.call("classify", text="git status")
        times.append(time.perf_counter() - start)
    return times


def one_run(runtime: Path, seq: int) -> dict[str, float]:
    with DaemonClient.connect(runtime, timeout=60) as client:
        idle_end = time.monotonic() + 1.0
        idle = sorted(round_trips(client, lambda: time.monotonic() > idle_end))
        done, took = threading.Event(), []
        sender = threading.Thread(target=big_record, args=(runtime, seq, done, took))
        sender.start()
        busy = sorted(round_trips(client, done.is_set))
        sender.join()
    pick = lambda values, q: values[min(len(values) - 1, int(len(values) * q))] * 1000  # noqa: E731
    return {
        "busy_p50": pick(busy, 0.5),
        "busy_p99": pick(busy, 0.99),
        "busy_max": busy[-1] * 1000,
        "busy_n": len(busy),
        "idle_p50": pick(idle, 0.5),
        "idle_max": idle[-1] * 1000,
        "record_ms": took[0] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pbench"))
    daemon = subprocess.Popen(
        [sys.executable, "-m", "parsec.daemon"], env=sandbox_env(root), cwd=REPO, stdin=subprocess.DEVNULL
    )
    runtime = root / "run" / "parsec"
    try:
        for _ in range(500):
            try:
                with DaemonClient.connect(runtime, timeout=1) as client:
                    client.call("classify", text="git status")  # loads the classifier
                break
            except Exception:
                time.sleep(0.02)
        else:
            raise SystemExit("the daemon did not start")
        one_run(runtime, 1)  # warm-up: the masking engine builds its RE2 sets once per process
        runs = [one_run(runtime, seq) for seq in range(2, args.runs + 2)]
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)
    median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    print(
        f"classify round trip while the daemon masks a 1 MB record (median of {args.runs} runs): "
        f"p50 {median['busy_p50']:.1f} ms, p99 {median['busy_p99']:.1f} ms, max {median['busy_max']:.1f} ms "
        f"({median['busy_n']:.0f} replies); idle: p50 {median['idle_p50']:.1f} ms, max {median['idle_max']:.1f} ms; "
        f"the record took {median['record_ms']:.0f} ms"
    )


if __name__ == "__main__":
    main()
