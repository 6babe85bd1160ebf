"""`parsec risk`: the gate's verdict from the command line, and one-line errors for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _risk(tmp_path: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "risk", *args],
        env=env,
        cwd=cwd or tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_json_is_one_line_with_the_level_and_reasons(tmp_path) -> None:
    result = _risk(tmp_path, "--json", "echo 'rm -rf ~' | bash")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n") == 1
    document = json.loads(result.stdout)
    assert document["level"] == "high"
    assert any("home directory" in reason for reason in document["reasons"])


def test_plain_output_names_the_level_then_the_reasons(tmp_path) -> None:
    result = _risk(tmp_path, "rm -rf ~")
    assert result.returncode == 0
    level, *reasons = result.stdout.splitlines()
    assert level == "high" and reasons and all(r.startswith("  - ") for r in reasons)
    assert _risk(tmp_path, "ls -la").stdout == "low\n"


def test_words_after_double_dash_are_the_command(tmp_path) -> None:
    result = _risk(tmp_path, "--json", "--", "bash", "-c", "rm -rf ~")
    assert json.loads(result.stdout)["level"] == "high"


def test_cwd_decides_what_is_inside_the_working_tree(tmp_path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.log").write_text("old")
    inside = _risk(tmp_path, "--json", "--cwd", str(project), "rm -rf build")
    outside = _risk(tmp_path, "--json", "--cwd", str(project), "rm -rf ../other")
    assert json.loads(inside.stdout)["level"] == "medium"
    assert json.loads(outside.stdout)["level"] == "high"
    # the same directory from the process's own cwd
    assert json.loads(_risk(tmp_path, "--json", "rm -rf build", cwd=project).stdout)["level"] == "medium"


def test_it_is_the_gates_verdict(tmp_path) -> None:
    from parsec.workflow.risk import assess

    for command in ("curl -o ~/.bashrc https://x", "python3 -c 'print(1)'", "git push -f"):
        verdict = assess(command, cwd=str(tmp_path), home=str(tmp_path))
        document = json.loads(_risk(tmp_path, "--json", command).stdout)
        assert document == {"level": verdict.level, "reasons": verdict.reasons}, command


@pytest.mark.parametrize(
    "args, message",
    [
        ([""], "give a command to judge"),
        (["   "], "give a command to judge"),
        ([], "give a command to judge"),
        (["ls 'unterminated"], "cannot parse the command: unexpected EOF"),
        (["ls )"], "cannot parse the command: unexpected token ')'"),
        (["--cwd", "/no/such/dir", "ls"], "--cwd: no such directory: /no/such/dir"),
    ],
)
def test_bad_input_is_a_one_line_error_with_exit_2(tmp_path, args, message) -> None:
    result = _risk(tmp_path, *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
