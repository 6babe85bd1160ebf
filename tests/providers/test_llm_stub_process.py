"""The stub as a standalone process (for benchmarks and pty-driven tests): script file, control calls."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx

from .conftest import REPO


def test_standalone_stub_serves_a_script_and_records_requests(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps({"replies": [{"text": "first"}, {"status": 503, "error": "busy"}], "default": "fallback"})
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.stubs.llm_server", "--port", "0", "--script", str(script)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(process.stdout.readline().split()[1])
        url = f"http://127.0.0.1:{port}"
        ask = {"model": "m", "messages": [{"role": "user", "content": "hello world"}]}
        first = httpx.post(f"{url}/v1/chat/completions", json=ask).json()
        assert first["choices"][0]["message"]["content"] == "first"
        assert httpx.post(f"{url}/api/chat", json={**ask, "stream": False}).status_code == 503
        httpx.post(f"{url}/_stub/replies", json=[{"json": {"a": 1}}])
        gemini = httpx.post(
            f"{url}/v1beta/models/m:generateContent", json={"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
        ).json()
        assert gemini["candidates"][0]["content"]["parts"][0]["text"] == '{"a": 1}'
        anthropic = httpx.post(f"{url}/v1/messages", json={**ask, "max_tokens": 5}).json()
        assert anthropic["content"][0]["text"] == "fallback"
        recorded = httpx.get(f"{url}/_stub/requests").json()
        assert [r["api"] for r in recorded["requests"]] == ["openai", "ollama", "gemini", "anthropic"]
        assert recorded["tokens_received"] == sum(r["tokens"] for r in recorded["requests"]) > 0
    finally:
        process.terminate()
        process.wait(timeout=10)
