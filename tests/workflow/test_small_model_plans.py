"""What small local models do with the plan/step protocol, seen in a real-model run: plans whose
steps are command lines (a pipeline cut in pieces, a `cd` to where the commands already run), and a
step reply that gives the command that has just succeeded once more. Real processes, stub server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from parsec.workflow.planning.reply_checks import CommandFacts

from .conftest import finished_step, load_conversation, plan, queue, run_unattended, step, user_messages


def test_a_plan_of_command_lines_becomes_the_request_as_its_one_step(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("ls -lh", "sort -hr", "head -3"),  # each piece alone would list, then wait on stdin
        step("ls -S | head -3"),
        finished_step("listed the three biggest files"),
    )
    for name, size in (("big.bin", 3000), ("mid.bin", 2000), ("small.bin", 1000), ("tiny.txt", 1)):
        (work / name).write_bytes(b"x" * size)
    result = run_unattended(["ask", "--yes", "--json", "show the three biggest files"], env, work)
    assert result.returncode == 0, result.stderr
    assert "plan is command lines, not steps (`ls -lh`)" in result.stderr + result.stdout
    data = json.loads(result.stdout)
    assert [s["description"] for s in data["steps"]] == ["show the three biggest files"]
    assert [c["command"] for c in data["steps"][0]["commands"]] == ["ls -S | head -3"]
    step_request = user_messages(stub)[1]
    assert "show the three biggest files" in step_request
    assert "sort -hr" not in step_request  # the pieces are not sent on as the step
    assert len(stub.model_requests()) == 3  # no repair call: the plan itself was fine JSON


def test_a_plan_of_sentences_keeps_its_steps_even_when_a_sentence_starts_with_a_command_name(
    stub, env, work: Path
) -> None:
    queue(
        stub,
        plan("find the largest file in this directory", "Write its name to largest.txt"),
        step("ls -S | head -1 > name.txt"),
        finished_step("found it"),
        step("cp name.txt largest.txt"),
        finished_step("written"),
    )
    (work / "a.bin").write_bytes(b"x" * 10)
    result = run_unattended(["ask", "--yes", "--json", "note the largest file in largest.txt"], env, work)
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)["steps"]
    assert [s["description"] for s in steps] == [
        "find the largest file in this directory",
        "Write its name to largest.txt",
    ]
    assert "command lines, not steps" not in result.stderr + result.stdout


def test_a_command_given_again_after_it_succeeded_completes_the_step_without_running_twice(
    stub, env, work: Path
) -> None:
    once = "echo ran >> log.txt"
    queue(
        stub,
        plan("Append a line to the log"),
        # The model guesses an output the command never prints: the result is sent back to it...
        {
            "json": {
                "candidates": [{"command": once, "explanation": "appends", "expect": {"output_contains": "appended"}}],
                "summary": "appended a line",
            }
        },
        # ...and it gives the same command again, with nothing else left to do.
        step(once, summary="appended a line"),
    )
    result = run_unattended(["ask", "--yes", "--json", "append a line to the log"], env, work)
    assert result.returncode == 0, result.stderr
    assert (work / "log.txt").read_text() == "ran\n"
    assert f"`{once}` already ran and succeeded: step 1 is done" in result.stderr + result.stdout
    data = json.loads(result.stdout)
    assert data["steps"][0]["outcome"] == "complete"
    assert [c["command"] for c in data["steps"][0]["commands"]] == [once]
    assert load_conversation(env).steps[0].summary == "appended a line"
    assert len(stub.model_requests()) == 3


def test_a_command_given_again_after_it_failed_is_run_again(stub, env, work: Path) -> None:
    """A retry of a failed command stays a retry (a flaky network, a file that appeared since)."""
    queue(
        stub,
        plan("Show the notes"),
        step("cat notes.txt"),
        step("cat notes.txt"),
        finished_step("shown"),
    )
    result = run_unattended(["ask", "--yes", "--json", "show the notes"], env, work)
    assert result.returncode == 0, result.stderr
    commands = json.loads(result.stdout)["steps"][0]["commands"]
    assert [c["command"] for c in commands] == ["cat notes.txt", "cat notes.txt"]
    assert "already ran and succeeded" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("line", "is_command"),
    [
        ("ls -lh", True),
        ("sort -hr", True),
        ("head -3", True),
        ("cd /tmp/work", True),
        ("find . -type f -exec wc -l {} +", True),
        ("tar czf out.tgz --exclude=.git .", True),
        ("git log --oneline -5", True),
        ("python3 -m venv .venv", True),
        ("List the three biggest files", False),
        ("find the biggest files in the directory", False),
        ("Count lines per file type", False),
        ("sort the files by size", False),
        ("Create a virtual environment and install requests", False),
        ("Show the last five commits", False),
        ("Archive the project without .git", False),
    ],
)
def test_command_lines_are_told_from_sentences_as_the_router_tells_them(line: str, is_command: bool) -> None:
    facts = CommandFacts(os.environ.get("PATH", ""), "bash")
    assert facts.is_command_line(line) is is_command
