"""Options before the command (`parsec --debug --set … ask …`) mean the same on the fast entry as
after it: `--yes=low` and `--json=full` used to be refused ("does not take a value") as soon as
a global option came first, because that line went to the typer app instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from parsec.cli.global_options import parse_overrides, split_leading
from parsec.errors import UsageError

REPO = Path(__file__).resolve().parents[2]


def _parsec(tmp_path: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "PYTHONPATH": str(REPO),
        **extra_env,
    }
    return subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "leading, refusal",
    [
        (["--debug"], "no LLM provider configured"),
        (["--set", "llm.model=gpt-4o-mini"], "openai needs an API key"),  # the model named the provider
        (["--set=llm.model=gpt-4o-mini"], "openai needs an API key"),
    ],
)
def test_ask_options_mean_the_same_after_global_options(tmp_path, leading, refusal):
    done = _parsec(tmp_path, *leading, "ask", "--yes=low", "--json=full", "list the files")
    assert "does not take a value" not in done.stderr
    assert refusal in done.stdout + done.stderr  # parsed, then refused for the right reason


def test_set_before_ask_does_what_the_same_setting_does_from_the_environment(tmp_path):
    # The outside truth: the line without a global option, the setting given another way.
    words = ("ask", "--yes=low", "--json=full", "list the files")
    with_set = _parsec(tmp_path, "--set", "llm.model=gpt-4o-mini", *words)
    from_env = _parsec(tmp_path, *words, PARSEC_LLM_MODEL="gpt-4o-mini")
    assert (with_set.returncode, with_set.stdout, with_set.stderr) == (
        from_env.returncode,
        from_env.stdout,
        from_env.stderr,
    )


def test_set_before_ask_reaches_the_config(tmp_path):
    done = _parsec(tmp_path, "--set", "llm.nosuch=1", "ask", "--yes=low", "list the files")
    assert done.returncode != 0 and "[llm] unknown key 'nosuch'" in done.stderr


def test_split_leading_stops_at_the_command():
    assert split_leading(["--debug", "--set", "a.b=1", "--set=c.d=x", "ask", "--set", "e.f=2"]) == (
        True,
        ["a.b=1", "c.d=x"],
        ["ask", "--set", "e.f=2"],
    )
    assert split_leading(["--version"]) == (False, [], ["--version"])


def test_parse_overrides_reads_toml_values_and_refuses_bad_items():
    assert parse_overrides(["a.n=3", "a.flag=true", "a.s=hello"]) == {"a.n": 3, "a.flag": True, "a.s": "hello"}
    with pytest.raises(UsageError, match="SECTION.KEY=VALUE"):
        parse_overrides(["nodot=1"])
