"""Benchmark of `parsec ask` against the stub LLM server (OpenAI wire format).

1. Start-up: time from starting `parsec ask` to its first model request, median of several runs
   against a warm store, with `python -c pass` as the baseline of the same run.
   `llm` (pip install llm, in its own venv: PARSEC_BENCH_LLM) is timed the same way, interleaved.
2. One 12-step workflow under `--yes` (~1.4 KB of output per step), the stub answering like a
   model that reads the request (bench_responder): model calls per step, tokens sent per request
   (message text and the JSON schema, counted by the stub with tiktoken), the first request of
   step 2 against step 12, the total, wall time, time in the commands, and the rest: time spent
   in Parsec itself (the stub answers at once, so model latency is only its handling time, which
   is measured and subtracted).

3. Parsec's own time between model calls (issue 26, item 5): a one-step `ask --yes --json` whose
   command meets its `expect`, against the stub answering at once: start to the first request,
   the plan's reply to the step's request, and the step's reply to the process's exit (the
   command's own time, read from the conversation, taken off). With `--baseline DIR` the same is
   measured, interleaved in the same rounds, on the code in DIR (another worktree: the old commit).

Run: python bench/workflow.py [--runs 7] [--baseline /path/to/old/worktree] [--phases-only] [--model-latency S]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.stubs.llm_server import LLMStub  # noqa: E402

PARSEC = [sys.executable, "-m", "parsec.cli.entry"]
LLM_CLI = os.environ.get("PARSEC_BENCH_LLM", "/work/venvs/workflows-llm/bin/llm")  # `pip install llm`, its own venv
# This benchmark's figures on the engine before issue 14 (commit 03eeb5f, the same machine):
BEFORE = {"calls_per_step": 2.00, "step2": 1684, "step12": 6715, "total": 98693}
OUTPUT_LINES = 200  # seq of 6-digit numbers: ~1.4 KB of output per step
# Twelve steps, each printing ~1.4 KB and a marker that says it ran (all low risk, so --yes=low runs them too).
STEPS = [
    (
        f"Step {n} of the bench: print block {n}",
        f"seq {n * 1000 + 100001} {n * 1000 + 100000 + OUTPUT_LINES}; echo bench-step-{n}-ok",
    )
    for n in range(1, 13)
]
# A fact only step 1's output holds, which step 12 needs: is it still in step 12's request?
FACT = "the magic number is 4711"
STEPS[0] = (STEPS[0][0] + " and note the magic number", f'echo "the magic number is $((4700 + 11))"; {STEPS[0][1]}')
STEPS[11] = ("Step 12 of the bench: print block 12 and the magic number", STEPS[11][1])
STEPS[2] = ("Step 3 of the bench: enter the scratch directory", "cd scratch && seq 103001 103200; echo bench-step-3-ok")
STEPS[8] = ("Step 9 of the bench: go back up", "cd .. && seq 109001 109200; echo bench-step-9-ok")


def bench_responder(api: str, body: object) -> dict:
    """Answers like a model that has read the request: the plan; for a step, its command (with the
    outcome that completes it) until the request shows the command's marker, then done. The same
    answers suit an engine that asks again after every command and one that trusts the outcome."""
    text = json.dumps(body)
    if "Plan how to carry out" in text:
        return {"json": {"name": "Twelve steps", "steps": [d for d, _ in STEPS]}}
    at = text.rfind("current_step")
    current = min(((text.find(d, at), i) for i, (d, _) in enumerate(STEPS) if text.find(d, at) >= 0), default=None)
    if current is None:
        return {"text": "ok"}
    index = current[1]
    marker = f"bench-step-{index + 1}-ok"
    if marker in text:
        return {"json": {"done": True, "candidates": [], "summary": f"printed block {index + 1}"}}
    command = STEPS[index][1]
    return {
        "json": {
            "done": False,
            "candidates": [
                {"command": command, "explanation": "bench", "expect": {"exit_status": 0, "output_contains": marker}}
            ],
            "summary": f"printed block {index + 1}",
        }
    }


class TimedStub(LLMStub):
    """The stub, noting when each model request arrived and how long it took to answer."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.arrivals: list[float] = []
        self.replied: list[float] = []  # when each model reply was chosen (it is written right after)
        self.cpu_marks: list[float | None] = []  # the watched client's CPU seconds at each arrival and reply
        self.watch_pid: int | None = None
        self.cpu_at_first: float | None = None  # CPU seconds the client had used at its first request
        self.latency_s = 0.0  # how long the "model" thinks before each reply (--model-latency)

    def _record(self, request) -> None:
        if request.method == "POST" and request.api != "control":
            self.arrivals.append(time.monotonic())
            if len(self.arrivals) == 1 and self.watch_pid:
                self.cpu_at_first = cpu_seconds(self.watch_pid)
            if self.watch_pid:
                self.cpu_marks.append(cpu_seconds(self.watch_pid))
        super()._record(request)

    def next_reply(self, api: str = "", body: object = None) -> dict:
        reply = super().next_reply(api, body)
        time.sleep(self.latency_s)  # the reply is written right after: the windows start then
        self.replied.append(time.monotonic())
        if self.watch_pid:
            self.cpu_marks.append(cpu_seconds(self.watch_pid))
        return reply


def cpu_seconds(pid: int) -> float | None:
    """user + system CPU time of a live process (Linux /proc): unaffected by other load."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def environment(stub: LLMStub, home: Path) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE (set on these machines) would recompile every module on every run;
    # an installed Parsec has its bytecode cached, so the benchmark measures that case.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PARSEC_", "OPENAI_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_STATE_HOME=str(home / "state"),
        PARSEC_PROVIDER="openai",
        OPENAI_BASE_URL=stub.openai_base_url,
        OPENAI_API_KEY="sk-bench",
        HISTFILE=str(home / "history"),
        PYTHONPATH=str(ROOT),
    )
    return env


def time_to_first_request(
    stub: TimedStub, env: dict[str, str], cwd: Path, runs: int
) -> tuple[list[float], list[float]]:
    """(wall ms, CPU ms of the parsec process) from its start to its first model request."""
    samples, cpu = [], []
    for _ in range(runs):
        stub.clear()
        stub.arrivals.clear()
        stub.reply(json={"name": "Bench", "steps": ["Show the directory"]})
        stub.reply(json={"done": False, "candidates": [{"command": "true", "explanation": "nothing"}]})
        stub.reply(json={"done": True, "candidates": [], "summary": "shown"})
        started = time.monotonic()
        process = subprocess.Popen(
            [*PARSEC, "ask", "--yes", "--json", "show the directory"],
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stub.watch_pid, stub.cpu_at_first = process.pid, None
        if process.wait() != 0:
            raise SystemExit("parsec ask failed in the start-up benchmark")
        samples.append((stub.arrivals[0] - started) * 1000)
        if stub.cpu_at_first is not None:
            cpu.append(stub.cpu_at_first * 1000)
    return samples, cpu


def python_cpu_baseline(runs: int) -> list[float]:
    """CPU ms of `python -c pass` (from the rusage of the finished child)."""
    samples = []
    for _ in range(runs):
        before = os.times()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        after = os.times()
        samples.append(
            ((after.children_user - before.children_user) + (after.children_system - before.children_system)) * 1000
        )
    return samples


def python_baseline(runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        samples.append((time.monotonic() - started) * 1000)
    return samples


def llm_first_request(stub: TimedStub, env: dict[str, str], cwd: Path, home: Path) -> float | None:
    """ms from starting `llm` (Simon Willison's CLI, OpenAI wire format) to its first request."""
    if not os.access(LLM_CLI, os.X_OK):
        return None
    stub.clear()
    stub.arrivals.clear()
    stub.reply("ok")
    llm_env = {**env, "LLM_USER_PATH": str(home / "llm")}
    started = time.monotonic()
    subprocess.run(
        [LLM_CLI, "-m", "gpt-4o-mini", "--no-stream", "show the directory"],
        env=llm_env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
    )
    return (stub.arrivals[0] - started) * 1000 if stub.arrivals else None


def request_tokens(stub: LLMStub, request) -> int:
    """Everything a request sends the model: message text plus the JSON schema it asks for."""
    schema = (request.body or {}).get("response_format") or (request.body or {}).get("format") or ""
    return request.tokens + (stub.count_tokens(json.dumps(schema)) if schema else 0)


def twelve_step_workflow(stub: TimedStub, env: dict[str, str], cwd: Path) -> dict[str, object]:
    stub.clear()
    stub.arrivals.clear()
    (cwd / "scratch").mkdir(exist_ok=True)
    stub.responder = bench_responder
    started, cpu_before = time.monotonic(), os.times()
    result = subprocess.run(
        [*PARSEC, "ask", "--yes", "--json=full", "twelve little steps"],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    if "--json=full" in result.stderr or result.returncode == 2:  # an older parsec: plain --json
        stub.clear()
        stub.arrivals.clear()
        started, cpu_before = time.monotonic(), os.times()
        result = subprocess.run(
            [*PARSEC, "ask", "--yes", "--json", "twelve little steps"],
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
    stub.responder = None
    wall_ms = (time.monotonic() - started) * 1000
    cpu_after = os.times()
    cpu_ms = (
        (cpu_after.children_user - cpu_before.children_user) + (cpu_after.children_system - cpu_before.children_system)
    ) * 1000
    first_request_ms = (stub.arrivals[0] - started) * 1000
    if result.returncode != 0:
        raise SystemExit(f"workflow failed: {result.stderr}")
    conversation = json.loads(result.stdout)
    conversation = conversation.get("conversation", conversation)
    command_ms = sum(a["duration_ms"] or 0 for s in conversation["steps"] for a in s["command_attempts"])
    requests = stub.model_requests()
    tokens = [request_tokens(stub, r) for r in requests]
    # The first request of step 2 and of step 12 (the plan is request 0).
    firsts: dict[int, int] = {}
    fact_at: dict[int, bool] = {}
    for request, count in zip(requests, tokens):
        text = json.dumps(request.body)
        at = text.rfind("current_step")
        for i, (description, _) in enumerate(STEPS):
            if at >= 0 and description in text[at : at + 400]:
                firsts.setdefault(i + 1, count)
                fact_at.setdefault(i + 1, FACT in text)
    return {
        "status": conversation["status"],
        "model_calls": len(requests),
        "tokens_per_call": tokens,
        "tokens_total": sum(tokens),
        "step2": firsts.get(2),
        "step12": firsts.get(12),
        "fact_in_step12": fact_at.get(12),
        "wall_ms": wall_ms,
        "command_ms": command_ms,
        "cpu_ms": cpu_ms,
        "first_request_ms": first_request_ms,
    }


def stub_round_trip_ms(stub: LLMStub, calls: int = 20) -> float:
    """Median time of one completion request to the stub from a warm client: the 'model latency'."""
    import httpx

    samples = []
    with httpx.Client() as client:
        for _ in range(calls):
            stub.reply(json={"done": True, "candidates": []})
            started = time.monotonic()
            client.post(
                f"{stub.openai_base_url}/chat/completions",
                headers={"Authorization": "Bearer sk-bench"},
                json={"model": "m", "messages": [{"role": "user", "content": "x" * 3000}]},
            )
            samples.append((time.monotonic() - started) * 1000)
    return statistics.median(samples)


def one_step_phases(stub: TimedStub, env: dict[str, str], cwd: Path, root: Path) -> dict[str, float]:
    """ms of one one-step `ask --yes --json` run with the code in `root`: to the first request,
    plan reply to step request, step reply to exit less the command's own time; and its CPU."""
    stub.clear()
    stub.arrivals.clear()
    stub.replied.clear()
    stub.cpu_marks.clear()
    stub.reply(json={"name": "Bench", "steps": ["Show the directory"]})
    candidate = {"command": "true", "explanation": "nothing", "expect": {"exit_status": 0}}
    stub.reply(json={"done": False, "candidates": [candidate], "summary": "shown"})
    started = time.monotonic()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(
            [*PARSEC, "ask", "--yes", "--json=full", "show the directory"],
            env={**env, "PYTHONPATH": str(root)},
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.DEVNULL,
        )
        stub.watch_pid = process.pid
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        ended = time.monotonic()
        stub.watch_pid = None
        out.seek(0)
        stdout = out.read().decode()
    marks = stub.cpu_marks
    if process.returncode != 0 or len(stub.arrivals) != 2 or len(marks) != 4 or None in marks:
        raise SystemExit(f"the one-step run failed ({root}): exit {process.returncode}")
    cpu_total = usage.ru_utime + usage.ru_stime
    document = json.loads(stdout)
    conversation = document.get("conversation", document)
    command_ms = sum(a["duration_ms"] or 0 for s in conversation["steps"] for a in s["command_attempts"])
    return {
        "first_request": (stub.arrivals[0] - started) * 1000,
        "between_calls": (stub.arrivals[1] - stub.replied[0]) * 1000,
        "to_exit": (ended - stub.replied[1]) * 1000 - command_ms,
        "total": (ended - started) * 1000,
        "cpu": cpu_total * 1000,
        "cpu_between_calls": (marks[2] - marks[1]) * 1000,  # (arrival, reply, arrival, reply)
        "cpu_to_exit": (cpu_total - marks[3]) * 1000,
    }


def report_phases(runs: int, baseline: Path | None, latency_s: float = 0.0) -> None:
    with tempfile.TemporaryDirectory(prefix="parsec-bench-") as tmp, TimedStub(default=None) as stub:
        stub.latency_s = latency_s
        home = Path(tmp)
        work = home / "work"
        work.mkdir()
        env = environment(stub, home)
        trees = {"this tree": ROOT, **({"baseline": baseline} if baseline else {})}
        for root in trees.values():
            one_step_phases(stub, env, work, root)  # creates and migrates the store: not measured
        samples: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(runs):  # interleaved, so both see the same load
            for name, root in trees.items():
                samples[name].append(one_step_phases(stub, env, work, root))
    answering = f"after {latency_s:g} s (a model's thinking)" if latency_s else "at once"
    print(f"## one-step `parsec ask --yes --json`, stub answering {answering}: Parsec's own time (median ms)")
    print(f"  {'':12} {'to 1st request':>15} {'reply->request':>20} {'reply->exit':>20} {'total':>7} {'CPU':>6}")
    for name, rows in samples.items():
        med = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
        print(
            f"  {name:12} {med['first_request']:15.0f} {med['between_calls']:8.0f} (CPU {med['cpu_between_calls']:4.0f}) "
            f"{med['to_exit']:8.0f} (CPU {med['cpu_to_exit']:4.0f}) {med['total']:7.0f} {med['cpu']:6.0f}"
        )
    print(
        f"  ({runs} runs each, load average now {os.getloadavg()[0]:.1f}; targets: reply->request and reply->exit <= 100 ms)"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--baseline", type=Path, help="another worktree (e.g. the old commit), measured in the same rounds"
    )
    parser.add_argument("--phases-only", action="store_true", help="only the one-step phases (item 3 above)")
    parser.add_argument(
        "--model-latency",
        type=float,
        default=0.0,
        metavar="S",
        help="the phases with the stub answering after S seconds, as a model would: what Parsec starts "
        "while the model thinks is then off the windows",
    )
    args = parser.parse_args()
    report_phases(args.runs, args.baseline, args.model_latency)
    if args.phases_only:
        return 0
    with tempfile.TemporaryDirectory(prefix="parsec-bench-") as tmp, TimedStub(default=None) as stub:
        home = Path(tmp)
        work = home / "work"
        work.mkdir()
        env = environment(stub, home)
        time_to_first_request(stub, env, work, 1)  # creates and migrates the store: not measured
        llm_first_request(stub, env, work, home)  # llm's first run sets up its own files
        first, first_cpu, llm = [], [], []
        for _ in range(args.runs):  # interleaved, so both see the same load
            wall, cpu = time_to_first_request(stub, env, work, 1)
            first += wall
            first_cpu += cpu
            sample = llm_first_request(stub, env, work, home)
            if sample is not None:
                llm.append(sample)
        baseline = python_baseline(args.runs)
        baseline_cpu = python_cpu_baseline(args.runs)
        workflow = twelve_step_workflow(stub, env, work)
        per_call_ms = stub_round_trip_ms(stub)

    median_first = statistics.median(first)
    median_python = statistics.median(baseline)
    calls = workflow["model_calls"]
    parsec_ms = workflow["wall_ms"] - workflow["command_ms"] - calls * per_call_ms
    print("## parsec ask: time to the first model request")
    print(
        f"  median {median_first:.0f} ms (min {min(first):.0f}, max {max(first):.0f}, {len(first)} runs; target <= 150 ms)"
    )
    if llm:
        print(
            f"  llm (same stub, same runs, interleaved): median {statistics.median(llm):.0f} ms; "
            f"parsec/llm {median_first / statistics.median(llm):.2f}x"
        )
    else:
        print(f"  llm: not installed at {LLM_CLI} (pip install llm in a venv; PARSEC_BENCH_LLM names it)")
    print(f"  baseline python -c pass: median {median_python:.0f} ms; ratio {median_first / median_python:.2f}x")
    if first_cpu:
        print(
            f"  CPU time of parsec until its first request: median {statistics.median(first_cpu):.0f} ms "
            f"(python -c pass: {statistics.median(baseline_cpu):.0f} ms); CPU time does not grow with the "
            f"machine's load, wall time does (load average now {os.getloadavg()[0]:.1f})"
        )
    steps = len(STEPS)
    print(f"## {steps}-step workflow (--yes, ~1.4 KB of output per step, stub answers at once)")
    print(
        f"  status {workflow['status']}, model calls {calls}: {(calls - 1) / steps:.2f} per step "
        f"(after the plan; target <= 1.3; before issue 14: {BEFORE['calls_per_step']:.2f})"
    )
    print(f"  tokens per request (messages + schema): {workflow['tokens_per_call']}")
    ratio = workflow["step12"] / workflow["step2"] if workflow["step2"] and workflow["step12"] else float("nan")
    print(
        f"  first request of step 2: {workflow['step2']} tokens, of step 12: {workflow['step12']} tokens "
        f"({ratio:.2f}x; target <= 2.5x (issue 26); before issue 14: {BEFORE['step2']} and {BEFORE['step12']}, "
        f"{BEFORE['step12'] / BEFORE['step2']:.2f}x)"
    )
    print(f"  step 1's fact ({FACT!r}) in step 12's request: {'yes' if workflow['fact_in_step12'] else 'NO'}")
    print(
        f"  tokens sent in total: {workflow['tokens_total']} (before issue 14: {BEFORE['total']}), "
        f"median per call {statistics.median(workflow['tokens_per_call']):.0f}"
    )
    print(
        f"  wall {workflow['wall_ms']:.0f} ms; in commands {workflow['command_ms']} ms; "
        f"stub round trip ~{per_call_ms:.1f} ms/call"
    )
    print(
        f"  time in Parsec itself (wall - commands - model round trips): {parsec_ms:.0f} ms, of which "
        f"start-up to the first request {workflow['first_request_ms']:.0f} ms; the rest per step: "
        f"{(parsec_ms - workflow['first_request_ms']) / steps:.0f} ms"
    )
    print(f"  CPU time of the whole run (parsec, its shell and commands): {workflow['cpu_ms']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
