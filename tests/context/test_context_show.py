"""`parsec context show` end to end: a real store file, the installed command, its output."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from parsec.models.session import Session
from parsec.store import open_store

from .ctx_helpers import attempt, conversation, finish_step


def _parsec(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", *args], capture_output=True, text=True, env=env, timeout=60
    )


@pytest.fixture
def saved(tmp_path, workdir):
    url = f"sqlite:///{tmp_path / 'parsec.db'}"
    store = open_store(url)
    session = Session(shell="bash")
    store.save_session(session)
    conv = conversation(["build the crate", "run the tests"], cwd=str(workdir))
    conv.session_id = session.id
    conv.system_prompt = "You are Parsec (captured at the start)."
    finish_step(conv, 0, [attempt("cargo build", 0, "Finished dev profile", str(workdir))])
    store.save_conversation(conv)
    store.close()
    env = {**os.environ, "PARSEC_STORE_URL": url, "NO_COLOR": "1"}
    return conv, env


def test_show_prints_messages_tokens_and_decisions(saved):
    conv, env = saved
    result = _parsec(["context", "show", "--step", "2"], env)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"step 2 of 2 in conversation {conv.id}" in out
    assert "You are Parsec (captured at the start)." in out
    assert '"commands_executed":["cargo build"]' in out
    assert "tokens per section" in out and "execution_history" in out
    assert "core: one of the last 3 successful executions" in out


def test_show_json_and_planning(saved):
    conv, env = saved
    result = _parsec(["context", "show", "--conversation", conv.id, "--json"], env)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["messages"][0]["role"] == "system"
    by_prefix = _parsec(["context", "show", "--conversation", conv.id[:10].lower(), "--json"], env)
    assert by_prefix.returncode == 0, by_prefix.stderr
    assert json.loads(by_prefix.stdout)["title"] == payload["title"]
    assert payload["report"]["total_tokens"] <= payload["report"]["budget"]
    planning = _parsec(["context", "show", "--planning", "--json"], env)
    assert "Planning context (JSON)" in json.loads(planning.stdout)["messages"][1]["content"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["context", "show", "--step", "9"], "has 2 steps; pick --step 1..2"),
        (["context", "show", "--conversation", "01J00000000000000000000000"], ""),
    ],
)
def test_user_errors_are_one_line(saved, args, message):
    _, env = saved
    result = _parsec(args, env)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("parsec: ") and message in lines[0]
    assert "Traceback" not in result.stderr
