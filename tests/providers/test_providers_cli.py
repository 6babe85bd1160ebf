"""`parsec providers` end to end, as a user runs it: a real process against the stub server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .conftest import KEY


def _run(tmp_path, extra_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and not key.startswith(("PARSEC_", "OPENAI_", "ANTHROPIC_", "OLLAMA_"))}
    env.update({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"), "OLLAMA_HOST": "127.0.0.1:9"})
    env.update(extra_env)
    return subprocess.run([sys.executable, "-m", "parsec.cli.entry", "providers", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def test_lists_the_configured_provider_and_that_it_answers(tmp_path, stub):
    stub.models = ["claude-a", "claude-b"]
    result = _run(tmp_path, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": stub.url}, "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["provider"]: row for row in json.loads(result.stdout)}
    assert rows["anthropic"]["selected"] and rows["anthropic"]["answers"]
    assert rows["anthropic"]["reason"] == "ANTHROPIC_API_KEY is set"
    assert rows["anthropic"]["status"] == "answers (2 models)" and rows["anthropic"]["key"] == "ANTHROPIC_API_KEY"
    assert not rows["openai"]["configured"] and rows["openai"]["key"] == "missing"
    assert rows["ollama"]["status"] == "not running"
    assert stub.requests[-1].headers["x-api-key"] == KEY  # probed with the key, in the right header
    assert KEY not in result.stdout + result.stderr


def test_a_rejected_key_is_shown_and_exits_non_zero(tmp_path, stub):
    result = _run(tmp_path, {"OPENAI_API_KEY": "sk-wrong-key-000000", "OPENAI_BASE_URL": stub.openai_base_url})
    assert result.returncode == 1
    line = next(line for line in result.stdout.splitlines() if "openai" in line)
    assert line.startswith("*") and "rejected the API key" in line and "sk-wrong-key-000000" not in result.stdout


def test_nothing_configured_prints_how_to_configure(tmp_path):
    result = _run(tmp_path, {})
    assert result.returncode == 1
    assert "no LLM provider configured" in result.stderr and len(result.stderr.strip().splitlines()) == 1
