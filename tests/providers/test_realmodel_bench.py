"""A smoke test of bench/realmodel.py against the stub server (the bench itself runs on real models,
not in CI): the task runs in its seeded directory, the check decides, the proxy counts the calls,
and a model that proposes nonsense fails the task without a hang or a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.stubs.llm_server import LLMStub

ROOT = Path(__file__).resolve().parents[2]


def run_bench(stub: LLMStub, *options: str) -> subprocess.CompletedProcess[str]:
    """bench/realmodel.py on the tasks mkdir and count-files (run in the suite's order:
    count-files first) against the stub."""
    argv = [sys.executable, str(ROOT / "bench" / "realmodel.py"), "--base-url", stub.openai_base_url]
    argv += ["--model", "stub-model", "--task", "mkdir", "--task", "count-files", *options, "--details"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


def script_made_up_commands(stub: LLMStub) -> None:
    """count-files: a model that only makes commands up (asked again once, then for the command
    alone, then the step fails)."""
    stub.reply(json={"name": "count", "steps": ["Count the files here"]})
    stub.reply(json={"candidates": [{"command": "count_files ."}]})
    stub.reply(json={"candidates": [{"command": "count_files --all"}]})
    stub.reply(text="count_files")


def test_the_bench_runs_parsec_on_tasks_and_reports_per_tool():
    with LLMStub(default=None) as stub:
        script_made_up_commands(stub)
        # mkdir: a plan, then a command whose expect completes the step
        stub.reply(json={"name": "build dir", "steps": ["Create the build directory"]})
        stub.reply(
            json={"candidates": [{"command": "mkdir -p build", "expect": {"exit_status": 0}}], "summary": "made build"}
        )
        result = run_bench(stub)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("mkdir") and " ok " in line for line in lines), result.stdout
    failed = next(line for line in lines if line.startswith("count-files"))
    assert " no " in failed and "count_files" not in failed.split("'")[1]  # never run: it is no command
    (row,) = [line for line in lines if line.startswith("| parsec")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1:4] == ["2", "50 %", "100 % (1)"], row  # tasks, success, valid commands (mkdir only ran)
    assert cells[4] == "0" and float(cells[5]) == 3.0  # no unsafe command; 6 model calls over 2 tasks
    assert "Traceback" not in result.stderr


def test_the_bench_starts_no_task_after_its_minutes_and_reports_those_it_ran():
    with LLMStub(default=None) as stub:
        script_made_up_commands(stub)
        result = run_bench(stub, "--minutes", "0")
    assert result.returncode == 0, result.stderr
    assert "1 of 2 tasks" in result.stdout and not any(line.startswith("mkdir") for line in result.stdout.splitlines())
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("| parsec")]
    assert row.split("|")[2].strip() == "1", row
