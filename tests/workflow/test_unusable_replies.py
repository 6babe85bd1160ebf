"""Replies that fit the schema but mean nothing (as small local models give them) are sent back once
with the reason, and the user is told why in one line. Real processes, stub server."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import finished_step, plan, queue, run_unattended, step


def test_bare_word_steps_and_a_made_up_command_are_asked_again(stub, env, work: Path) -> None:
    queue(
        stub,
        {"json": {"name": "x", "steps": ["code", "list_files"]}},
        plan("Count the lines of the notes"),
        step("count_lines notes.txt"),
        step("wc -l notes.txt"),
        finished_step("counted"),
    )
    (work / "notes.txt").write_text("a\nb\n")
    result = run_unattended(["ask", "--yes", "--json", "count the lines of the notes"], env, work)
    assert result.returncode == 0, result.stderr
    told = [line for line in (result.stdout + result.stderr).splitlines() if "asking again" in line]
    assert any("bare words like 'code'" in line for line in told), result.stderr
    assert any("`count_lines` is not a command" in line for line in told), result.stderr
    commands = [c["command"] for c in json.loads(result.stdout)["steps"][0]["commands"]]
    assert commands == ["wc -l notes.txt"]  # the made-up command was never offered or run
    assert len(stub.model_requests()) == 5
