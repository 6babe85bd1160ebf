"""`--json` prints one document in every case where a conversation exists, checked against the
JSON Schema in docs/, with distinct exit codes (issue 14, item 9). Real processes, stub server."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from parsec.workflow.run.outcome import EXIT_CODES

from .conftest import finished_step, load_conversation, plan, queue, run_unattended, step

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "workflow-result.schema.json").read_text())


def document(result) -> dict:
    assert result.stdout.strip(), f"no JSON on stdout; stderr:\n{result.stderr}"
    data = json.loads(result.stdout)  # one document, nothing else on stdout
    jsonschema.validate(data, SCHEMA)
    assert data["exit_code"] == result.returncode
    return data


def test_a_finished_run(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Make a directory and enter it", "Set a variable"),
        step("mkdir -p out && cd out && printf 'made it\\n'"),
        finished_step("made out"),
        step("export BUILD_MODE=fast"),
        finished_step("set it"),
    )
    result = run_unattended(["ask", "--yes", "--json", "make out"], env, work)
    assert result.returncode == 0, result.stderr
    data = document(result)
    assert data["status"] == "finished" and data["error"] is None and data["resume"] is None
    assert data["final_cwd"] == str(work / "out")
    assert {"name": "BUILD_MODE", "old": None, "new": "fast"} in data["env_changes"]
    first = data["steps"][0]
    assert first["outcome"] == "complete" and first["description"] == "Make a directory and enter it"
    assert first["commands"][0]["exit_status"] == 0 and "made it" in first["commands"][0]["output_excerpt"]
    assert "conversation" not in data  # the full model only with --json=full
    assert len(result.stdout) < 5000


def test_json_full_adds_the_conversation(stub, env, work: Path) -> None:
    queue(stub, plan("Say hi"), step("echo hi"), finished_step())
    result = run_unattended(["ask", "--yes", "--json=full", "say hi"], env, work)
    data = document(result)
    assert data["conversation"]["id"] == data["id"] and data["conversation"]["system_prompt"]


def test_a_declined_run(stub, env, work: Path) -> None:
    queue(stub, plan("Reset"), step("git reset --hard HEAD"))
    result = run_unattended(["ask", "--yes", "--json", "reset the repo"], env, work)
    data = document(result)
    assert result.returncode == EXIT_CODES["declined"] == 3
    assert data["status"] == "declined" and data["error"]["code"] == "declined"
    assert data["steps"][0]["commands"][0]["ran"] is False


def test_a_provider_failure_mid_workflow_pauses(stub, env, work: Path) -> None:
    queue(stub, plan("Say one", "Say two"), step("echo one"), finished_step(), {"status": 400, "error": "bad request"})
    result = run_unattended(["ask", "--yes", "--json", "say two things"], env, work)
    data = document(result)
    assert result.returncode == EXIT_CODES["provider_error"] == 4
    assert data["status"] == "paused" and data["resume"] == f"parsec resume {data['id']}"
    assert data["error"]["code"] == "provider_error" and "bad request" in data["error"]["message"]
    assert result.stderr.splitlines()[-1].startswith("parsec:")  # and one line for a person


def test_an_unreachable_provider_on_resume(stub, env, work: Path) -> None:
    queue(stub, plan("Say one", "Say two"), step("echo one"), finished_step(), {"status": 400, "error": "x"})
    run_unattended(["ask", "--yes", "say two things"], env, work)
    env.update(OPENAI_BASE_URL="http://127.0.0.1:9/v1", PARSEC_LLM_MAX_RETRIES="0")
    result = run_unattended(["resume", "--yes", "--json"], env, work)
    data = document(result)
    assert result.returncode == EXIT_CODES["provider_unavailable"] == 4
    assert data["status"] == "paused" and data["error"]["code"] == "provider_unavailable"


def test_an_auth_error(stub, env, work: Path) -> None:
    stub.api_key = "sk-the-right-key-0123456789"
    result = run_unattended(["ask", "--yes", "--json", "say hi"], env, work)
    data = document(result)
    assert result.returncode == EXIT_CODES["auth"] == 5
    assert data["status"] == "error" and data["error"]["code"] == "auth"


def test_resuming_a_finished_conversation_is_a_usage_error(stub, env, work: Path) -> None:
    queue(stub, plan("Say hi"), step("echo hi"), finished_step())
    run_unattended(["ask", "--yes", "say hi"], env, work)
    finished = load_conversation(env)
    result = run_unattended(["resume", "--yes", "--json", finished.id], env, work)
    assert result.returncode == 2
    assert result.stdout == "" or document(result)["error"]["code"] == "usage"


@pytest.mark.parametrize("code", sorted(c for c in EXIT_CODES if c))
def test_every_error_code_is_documented(code: str) -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "workflow.md").read_text()
    assert f"`{code}`" in text
    assert code in SCHEMA["properties"]["error"]["oneOf"][1]["properties"]["code"]["enum"]


def test_a_workflow_joins_the_shells_session_with_the_daemon_down(stub, env, work: Path) -> None:
    """`parsec ask` typed in a hooked shell belongs to that shell's session: its id is derived
    from the hook's key (PARSEC_SESSION) as the daemon derives it, so no daemon is needed."""
    from parsec.models.session_ids import session_id_for_key, this_host

    key = "4242-1795000000.123456"
    queue(stub, plan("Say hi"), step("echo hi"), finished_step())
    result = run_unattended(["ask", "--yes", "--json", "say hi"], {**env, "PARSEC_SESSION": key}, work)
    assert result.returncode == 0, result.stderr
    assert load_conversation(env).session_id == session_id_for_key(key, this_host())
