"""`parsec classify` through the real console script, in a subprocess with its own data dir."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest


def parsec(args: list[str], env: dict[str, str], stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["parsec", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
    )


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
    }


def test_one_line_prints_decision_confidence_and_reason(env) -> None:
    result = parsec(["classify", "kill all the node processes"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith("prompt (")
    assert "function words" in result.stdout.decode()


def test_json_output(env) -> None:
    result = parsec(["classify", "--json", "--first-word", "file", "ls -la"], env)
    payload = json.loads(result.stdout)
    assert payload["decision"] == "command" and 0 <= payload["confidence"] <= 1 and payload["reason"]


def test_batch_reads_plain_and_json_lines_and_survives_bad_input(env) -> None:
    lines = [
        b"make the tests pass",
        json.dumps({"text": "gti status", "first_word": "alias"}).encode(),
        json.dumps({"text": "how do I undo a rebase"}).encode(),
        b"\xff\xfe\xfd not utf-8",
        b'{"not": "a line object"}',
        b"",
        b"ls -la | wc -l",
    ]
    result = parsec(["classify", "-"], env, stdin=b"\n".join(lines) + b"\n")
    assert result.returncode == 0, result.stderr
    out = [json.loads(row) for row in result.stdout.decode().splitlines()]
    assert len(out) == len(lines)
    assert [row["decision"] for row in out[:3]] == ["prompt", "command", "prompt"]
    assert out[-1]["decision"] == "command"
    assert all(set(row) == {"decision", "leans", "confidence", "reason"} for row in out)


def test_batch_is_fast_enough_for_100k_lines(env) -> None:
    lines = [b"find . -name '*.py' | xargs wc -l", b"find all python files in the repo"] * 2500
    result = parsec(["classify", "-"], env, stdin=b"\n".join(lines))
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == 5000


def test_learn_list_and_forget(env) -> None:
    assert parsec(["classify", "deploy staging now"], env).stdout.decode().split()[0] != "command"
    assert parsec(["classify", "--learn", "command", "deploy staging now"], env).returncode == 0
    assert parsec(["classify", "--learn", "prompt", "watch the logs"], env).returncode == 0
    assert parsec(["classify", "deploy staging now"], env).stdout.decode().startswith("command")
    listed = parsec(["classify", "--learned"], env).stdout.decode().splitlines()
    assert [line.split(None, 1) for line in listed] == [["command", "deploy staging now"], ["prompt", "watch the logs"]]
    forgot = parsec(["classify", "--forget", "deploy staging now"], env)
    assert forgot.stdout.decode().strip() == "forgot the choice for lines shaped like 'deploy staging now'"
    assert not parsec(["classify", "deploy staging now"], env).stdout.decode().startswith("command")
    assert parsec(["classify", "--learned"], env).stdout.decode().split() == ["prompt", "watch", "the", "logs"]
    assert parsec(["classify", "--forget"], env).stdout.decode().strip() == "forgot 1 learned classifier choice"


def test_classify_agrees_with_the_hook_on_one_word_that_resolves(env) -> None:
    """The hook runs `yes` without asking (its first word resolves); `parsec classify` says so."""
    assert parsec(["classify", "yes"], env).stdout.decode().startswith("command (")
    assert parsec(["classify", "--first-word", "none", "hello"], env).stdout.decode().startswith("prompt (")


def test_ambiguous_says_which_way_it_leans(env) -> None:
    out = parsec(["classify", "unset a secret"], env).stdout.decode()
    assert out.startswith("ambiguous, leans command ("), out
    payload = json.loads(parsec(["classify", "--json", "unset a secret"], env).stdout)
    assert payload["decision"] == "ambiguous" and payload["leans"] == "command" and payload["confidence"] > 0.5


def test_fallback_127_exit_status(env) -> None:
    assert parsec(["classify", "--fallback-127", "tidy up the readme please"], env).returncode == 0
    assert parsec(["classify", "--fallback-127", "gti status"], env).returncode == 1


@pytest.mark.parametrize(
    "args",
    [["classify"], ["classify", "--first-word", "banana", "ls"], ["classify", "--learn", "maybe", "ls"]],
)
def test_user_errors_print_one_line_and_exit_non_zero(env, args) -> None:
    result = parsec(args, env)
    assert result.returncode != 0
    err = result.stderr.decode().strip()
    assert err.startswith("parsec: ") and "\n" not in err and "Traceback" not in err
