"""What a trial of `parsec ask` in a real terminal found (issue 25 item 7), each through a pty:
the `edit>` prompt under `--json > out.json` stays off stdout; Ctrl-C while a command runs under
`--yes` pauses instead of aborting; SIGTERM pauses with the JSON document and the resume hint;
with no provider configured `--json` exits 2, as docs/workflow.md says."""

from __future__ import annotations

import json
import shlex
import signal
from pathlib import Path

import jsonschema
import pexpect

from parsec.workflow.run.outcome import EXIT_CODES

from .conftest import PARSEC, finished_step, load_conversation, plan, queue, run_unattended, step

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "workflow-result.schema.json").read_text())


# Prints, then waits, as one process: the terminal's foreground job from its first line on (with
# `echo …; sleep 30` a Ctrl-C could land on the shell between the two, before sleep starts).
WAITING = "tail -n +1 -f notes.txt"


def spawn_to_file(args: list[str], env: dict[str, str], cwd: Path, out: Path):
    """`parsec …  > out` in a terminal: stdin and stderr on the pty, stdout into a file."""
    line = " ".join(shlex.quote(part) for part in [*PARSEC, *args])
    return pexpect.spawn(
        "/bin/sh",
        ["-c", f"exec {line} > {shlex.quote(str(out))}"],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )


def document(out: Path) -> dict:
    data = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    return data


def ended(child, status: int) -> str:
    """Wait for the end; returns what the terminal showed."""
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == status, child.before
    return child.before


def test_the_edit_prompt_goes_to_the_terminal_not_into_the_json(stub, env, work: Path) -> None:
    out = work.parent / "out.json"
    queue(stub, plan("Say hi"), step("echo hi"), finished_step("said it"))
    child = spawn_to_file(["ask", "--json", "say hi"], env, work, out)
    child.expect(r"\$ echo hi")
    child.expect("run")
    child.sendline("e")
    child.expect("edit> ")  # on the terminal, pre-filled:
    child.expect("echo hi")
    child.sendcontrol("u")  # readline: clear the line
    child.sendline("echo edited")
    child.expect(r"\$ echo edited")
    child.expect("run")
    child.sendline("y")
    ended(child, 0)
    data = document(out)  # nothing but the document on stdout
    assert data["status"] == "finished"
    assert [c["command"] for c in data["steps"][0]["commands"]] == ["echo edited"]


def test_ctrl_c_while_a_command_runs_under_yes_pauses(stub, env, work: Path) -> None:
    out = work.parent / "out.json"
    (work / "notes.txt").write_text("started-waiting\n")
    queue(stub, plan("Wait"), step(WAITING))
    child = spawn_to_file(["ask", "--yes", "--json", "wait a while"], env, work, out)
    child.expect("\nstarted-waiting\r")  # the command's own output: it is running
    child.sendcontrol("c")
    child.expect(r"parsec resume ([0-9A-Z]{26})")
    conversation_id = child.match.group(1)
    ended(child, 130)
    data = document(out)
    assert (data["status"], data["error"]["code"]) == ("paused", "interrupted")
    assert data["resume"] == f"parsec resume {conversation_id}"
    stored = load_conversation(env, conversation_id)
    assert stored.status.value == "in_progress", "paused, not aborted"
    assert stored.steps[0].command_attempts[-1].interrupted

    queue(stub, step("echo again"), finished_step("waited"))
    resumed = run_unattended(["resume", "--yes", "--json", conversation_id], env, work)
    assert resumed.returncode == 0, resumed.stderr
    assert "was interrupted" in json.dumps(stub.model_requests()[-2].body)


def test_sigterm_pauses_with_the_document_and_the_resume_hint(stub, env, work: Path) -> None:
    out = work.parent / "out.json"
    (work / "notes.txt").write_text("started-waiting\n")
    queue(stub, plan("Wait"), step(WAITING))
    child = spawn_to_file(["ask", "--yes", "--json", "wait a while"], env, work, out)
    child.expect("\nstarted-waiting\r")
    child.kill(signal.SIGTERM)
    child.expect(r"paused \(SIGTERM\): continue with `parsec resume ([0-9A-Z]{26})`")
    conversation_id = child.match.group(1)
    ended(child, EXIT_CODES["terminated"])
    data = document(out)
    assert (data["status"], data["error"]["code"], data["exit_code"]) == ("paused", "terminated", 143)
    assert data["resume"] == f"parsec resume {conversation_id}"
    stored = load_conversation(env, conversation_id)
    assert stored.status.value == "in_progress"

    queue(stub, step("echo again"), finished_step("waited"))
    resumed = run_unattended(["resume", "--yes", "--json", conversation_id], env, work)
    assert resumed.returncode == 0, resumed.stderr
    assert "may have partly run" in json.dumps(stub.model_requests()[-2].body), "the model is told"


def test_sigterm_at_a_question_pauses_too(stub, env, work: Path) -> None:
    queue(stub, plan("Say hi"), step("echo hi"))
    out = work.parent / "out.json"
    child = spawn_to_file(["ask", "--json", "say hi"], env, work, out)
    child.expect(r"\$ echo hi")
    child.expect("run")
    child.kill(signal.SIGTERM)
    child.expect(r"parsec resume ([0-9A-Z]{26})")
    conversation_id = child.match.group(1)
    ended(child, 143)
    assert document(out)["status"] == "paused"
    assert load_conversation(env, conversation_id).steps[0].command_attempts == []


def test_no_provider_configured_exits_2_as_documented(env, work: Path, tmp_path: Path) -> None:
    bare = {k: v for k, v in env.items() if not k.startswith(("PARSEC_", "OPENAI_"))}
    bare.pop("OLLAMA_HOST", None)  # and no Ollama answers on its default port here
    out = tmp_path / "out.json"
    child = spawn_to_file(["ask", "--json", "say hi"], {**bare, "HOME": str(tmp_path)}, work, out)
    child.expect("no LLM provider configured")
    ended(child, EXIT_CODES["config"])
    assert EXIT_CODES["config"] == 2
