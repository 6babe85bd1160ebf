"""Helpers for workflow tests: a stub LLM server, an isolated Parsec environment, and ways to
run `parsec ask` unattended (subprocess) or through a pseudo-terminal (pexpect)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.stubs.llm_server import LLMStub

PARSEC = [sys.executable, "-m", "parsec.cli.entry"]


@pytest.fixture
def stub():
    with LLMStub(default=None) as server:
        yield server


@pytest.fixture
def work(tmp_path: Path) -> Path:
    directory = tmp_path / "work"
    directory.mkdir()
    return directory


@pytest.fixture
def env(tmp_path: Path, stub: LLMStub) -> dict[str, str]:
    values = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PARSEC_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "OLLAMA_"))
    }
    values.pop("PYTHONDONTWRITEBYTECODE", None)  # every `parsec` run would recompile every module
    values.update(
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_RUNTIME_DIR=str(tmp_path / "run"),  # no daemon of anyone else's answers these runs
        PARSEC_PROVIDER="openai",
        OPENAI_BASE_URL=stub.openai_base_url,
        OPENAI_API_KEY="sk-test-key-0123456789",
        HISTFILE=str(tmp_path / "history"),
        PARSEC_CD_FILE=str(tmp_path / "cd-target"),
        SHELL="/bin/bash",
        TERM="dumb",
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    return values


def plan(*steps: str, name: str = "Test workflow") -> dict[str, Any]:
    return {"json": {"name": name, "steps": list(steps)}}


def step(*commands: str, done: bool = False, summary: str = "") -> dict[str, Any]:
    """Candidate commands; the step completes only at a later `finished_step()` reply."""
    candidates = [{"command": c, "explanation": f"runs {c.split()[0]}"} for c in commands]
    return {"json": {"done": done, "candidates": candidates, "summary": summary}}


def finished_step(summary: str = "done") -> dict[str, Any]:
    return {"json": {"done": True, "candidates": [], "summary": summary}}


def queue(stub: LLMStub, *replies: dict[str, Any]) -> None:
    for reply in replies:
        stub.reply(**reply)


def run_unattended(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*PARSEC, *args], env=env, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout
    )


def conversation_json(result: subprocess.CompletedProcess) -> dict[str, Any]:
    """The whole conversation from `--json=full` (or the document of a plain `--json`)."""
    assert result.stdout.strip(), f"no JSON on stdout; stderr:\n{result.stderr}"
    document = json.loads(result.stdout)
    return document.get("conversation", document)


def spawn(args: list[str], env: dict[str, str], cwd: Path):
    import pexpect

    child = pexpect.spawn(
        PARSEC[0], [*PARSEC[1:], *args], env=env, cwd=str(cwd), encoding="utf-8", timeout=30, dimensions=(40, 200)
    )
    return child


def load_conversation(env: dict[str, str], conversation_id: str | None = None):
    """The newest (or given) conversation, read straight from the store the run wrote."""
    from parsec.store import open_store

    store = open_store(f"sqlite:///{env['XDG_DATA_HOME']}/parsec/parsec.db")
    try:
        if conversation_id is None:
            conversation_id = store.list_conversations(limit=1)[0].id
        return store.load_conversation(conversation_id)
    finally:
        store.close()


def user_messages(stub: LLMStub) -> list[str]:
    """The text of every model request, concatenated per request."""
    out = []
    for request in stub.model_requests():
        out.append("\n".join(str(m.get("content", "")) for m in request.body.get("messages", [])))
    return out
