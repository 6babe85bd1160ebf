"""`parsec providers` end to end, as a user runs it: a real process against the stub server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .conftest import KEY


def _configured_rows(stdout: str) -> dict[str, dict]:
    """The rows of the providers Parsec knows, by name: a model server that happens to run on
    this machine's usual ports (`found on a local port`) adds a row of its own kind, which would
    otherwise stand in for the configured row of the same name."""
    from parsec.cli.ai.providers_cmd import FOUND_LOCALLY

    return {row["provider"]: row for row in json.loads(stdout) if row["reason"] != FOUND_LOCALLY}


def _run(tmp_path, extra_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return _parsec(tmp_path, extra_env, "providers", *args)


def _parsec(tmp_path, extra_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY")
        and not key.startswith(("PARSEC_", "OPENAI_", "ANTHROPIC_", "OLLAMA_", "GOOGLE_", "GEMINI_", "XDG_"))
    }
    env.update(
        {
            "HOME": str(tmp_path),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "OLLAMA_HOST": "127.0.0.1:9",
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        }
    )
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _config(tmp_path, toml: str) -> str:
    path = tmp_path / "parsec-config.toml"
    path.write_text(toml)
    path.chmod(0o600)
    return str(path)


def test_lists_the_configured_provider_and_that_it_answers(tmp_path, stub):
    stub.models = ["claude-a", "claude-b"]
    result = _run(tmp_path, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": stub.url}, "--json")
    assert result.returncode == 0, result.stderr
    rows = _configured_rows(result.stdout)
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
    result = _run(tmp_path, {"OLLAMA_HOST": ""})  # a set OLLAMA_HOST configures Ollama (issue 14 item 10)
    assert result.returncode == 1
    assert "no LLM provider configured" in result.stderr and len(result.stderr.strip().splitlines()) == 1


ANTHROPIC_KEY = "sk-ant-own-key-Hq2mV81xLc0"
GEMINI_KEY = "AIzaGeminiOwnKey0123456789"


def test_the_config_key_is_probed_only_against_its_own_provider(tmp_path, stub):
    """[llm] provider = "openai" + api_key: anthropic and gemini are probed with their own keys only."""
    stub.api_key = None  # every probe answers; what matters is which key each one carried
    config = _config(tmp_path, f'[llm]\nprovider = "openai"\napi_key = "{KEY}"\n')
    result = _run(
        tmp_path,
        {
            "PARSEC_CONFIG": config,
            "OPENAI_BASE_URL": stub.openai_base_url,
            "ANTHROPIC_BASE_URL": stub.url,
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
            "GOOGLE_GEMINI_BASE_URL": stub.url,
            "GEMINI_API_KEY": GEMINI_KEY,
        },
        "--json",
    )
    assert result.returncode == 0, result.stderr
    rows = _configured_rows(result.stdout)
    assert rows["openai"]["selected"] and rows["openai"]["key"] == "[llm] api_key"
    assert rows["anthropic"]["key"] == "ANTHROPIC_API_KEY" and rows["gemini"]["key"] == "GEMINI_API_KEY"
    assert all(rows[name]["answers"] for name in ("openai", "anthropic", "gemini"))
    by_api = {request.api: request for request in stub.requests}
    assert by_api["openai"].headers["authorization"] == f"Bearer {KEY}"
    assert by_api["anthropic"].headers["x-api-key"] == ANTHROPIC_KEY
    assert by_api["gemini"].headers["x-goog-api-key"] == GEMINI_KEY
    for request in stub.requests:
        if request.api != "openai":
            assert KEY not in repr((request.headers, request.query, request.path)), request.api
    assert KEY not in result.stdout + result.stderr


def test_without_their_own_keys_the_other_providers_are_not_probed_at_all(tmp_path, stub):
    stub.api_key = None
    config = _config(tmp_path, f'[llm]\nprovider = "openai"\napi_key = "{KEY}"\n')
    result = _run(
        tmp_path,
        {
            "PARSEC_CONFIG": config,
            "OPENAI_BASE_URL": stub.openai_base_url,
            "ANTHROPIC_BASE_URL": stub.url,
            "GOOGLE_GEMINI_BASE_URL": stub.url,
        },
        "--json",
    )
    assert result.returncode == 0, result.stderr
    rows = _configured_rows(result.stdout)
    for name in ("anthropic", "gemini"):
        assert rows[name]["key"] == "missing" and rows[name]["status"] == "not configured"
    assert {request.api for request in stub.requests} == {"openai"}


def test_a_malformed_base_url_is_one_line_naming_the_variable(tmp_path):
    result = _run(tmp_path, {"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "notaurl"})
    assert result.returncode == 1
    expected = "OPENAI_BASE_URL 'notaurl' is not an http(s) URL: set it like http://localhost:8080/v1"
    assert result.stderr.strip() == expected
    assert expected in next(line for line in result.stdout.splitlines() if "openai" in line)
    assert "UnsupportedProtocol" not in result.stdout + result.stderr

    result = _run(tmp_path, {"OLLAMA_HOST": "garbage:::"})
    assert result.returncode == 1
    assert result.stderr.startswith("OLLAMA_HOST 'garbage:::' is not") and len(result.stderr.splitlines()) == 1
    assert "InvalidURL" not in result.stdout + result.stderr and "internal error" not in result.stderr


def test_ask_with_a_malformed_base_url_is_one_line_naming_the_variable(tmp_path):
    for extra, variable in (
        ({"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "notaurl"}, "OPENAI_BASE_URL 'notaurl'"),
        ({"OLLAMA_HOST": "garbage:::"}, "OLLAMA_HOST 'garbage:::'"),
    ):
        result = _parsec(tmp_path, extra, "ask", "--yes", "list the files here")
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"parsec: {variable} is not") and "set it like" in lines[0]
        assert "internal error" not in result.stderr and "request failed" not in result.stderr
