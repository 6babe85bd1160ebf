"""Questions, not only tasks (issue 26, item 3): a prose line that asks something gets a short
prose answer from the session's recent commands and the last one's output — one model call, no
plan, no gate — with a follow-up and an offer to turn it into a workflow at a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsec.workflow.run.question import is_question, wants_answer

from .conftest import plan, queue, run_unattended, spawn, step

QUESTIONS = [
    "why did that fail",
    "what does this error mean",
    "what is using port 8080",
    "What's in my PATH?",
    "how do I undo the last commit",
    "which python is this",
    "where is the nginx config",
    "is the server up",
    "does this repo use poetry",
    "do I need sudo for this",
    "explain the last error",
    "tell me what went wrong",
    "port 8080 in use?",
    "the build broke again?",
]
TASKS = [
    "find all python files bigger than 1 MB",
    "list what is using port 8080",
    "show me why it failed",
    "do the backup of the database",
    "can you list the biggest files?",
    "could you restart nginx",
    "please explain nothing and delete build/",
    "i need a venv with requests",
    "kill the process on port 8080",
    "",
]


@pytest.mark.parametrize("line", QUESTIONS)
def test_a_line_that_asks_is_a_question(line: str) -> None:
    assert is_question(line)


@pytest.mark.parametrize("line", TASKS)
def test_a_line_that_asks_for_something_done_is_a_task(line: str) -> None:
    assert not is_question(line)


def test_the_flags_decide_by_hand() -> None:
    assert wants_answer("list the files", question=True)
    assert not wants_answer("why did that fail", task=True)
    assert wants_answer("why did that fail") and not wants_answer("list the files")


def _failed_build(env: dict[str, str]) -> str:
    """A session whose last command failed with captured output, as `parsec shell` records it."""
    from parsec.models.session import DirectCommandExecution, Session
    from parsec.models.text import TruncatedText
    from parsec.store import open_store

    data = Path(env["XDG_DATA_HOME"]) / "parsec"
    data.mkdir(parents=True, exist_ok=True)
    store = open_store(f"sqlite:///{data}/parsec.db")
    try:
        session = Session(shell="bash")
        store.save_session(session)
        output = TruncatedText.from_output("cc -o app main.c\nmain.c:3:10: fatal error: zlib.h: No such file", 4096)
        store.append_executions(
            [
                DirectCommandExecution(session_id=session.id, command="git pull", exit_status=0),
                DirectCommandExecution(session_id=session.id, command="make app", exit_status=2, stdout=output),
            ]
        )
    finally:
        store.close()
    return session.id


def test_a_question_is_one_call_answered_from_the_last_output(stub, env, work: Path) -> None:
    env["PARSEC_SESSION"] = _failed_build(env)
    stub.reply("The header zlib.h is missing: install `zlib1g-dev`, then run `make app` again.")
    result = run_unattended(["ask", "--json", "why did that fail"], env, work)
    assert result.returncode == 0, result.stderr
    [request] = stub.model_requests()  # one call: no plan, no step
    text = "\n".join(m["content"] for m in request.body["messages"])
    assert "fatal error: zlib.h: No such file" in text and '"command":"make app"' in text
    assert "git pull" in text and "Plan how to carry out" not in text
    assert "response_format" not in request.body, "prose, not JSON"
    document = json.loads(result.stdout)
    assert document == {
        "kind": "answer",
        "question": "why did that fail",
        "answer": "The header zlib.h is missing: install `zlib1g-dev`, then run `make app` again.",
    }
    from parsec.store import open_store

    store = open_store(f"sqlite:///{env['XDG_DATA_HOME']}/parsec/parsec.db")
    try:
        assert store.list_conversations() == [], "no workflow was started"
        assert [row["calls"] for row in store.llm_usage_summary()] == [1]
    finally:
        store.close()


def test_the_answer_is_prose_on_stdout_with_the_way_to_have_it_done(stub, env, work: Path) -> None:
    stub.reply("It means the linker found no main function.")
    result = run_unattended(["ask", "--yes", "what does undefined reference to main mean"], env, work)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "It means the linker found no main function."
    assert "parsec ask --task 'what does undefined reference to main mean'" in result.stderr
    assert len(stub.model_requests()) == 1


def test_task_forces_a_workflow(stub, env, work: Path) -> None:
    queue(stub, plan("Show what listens on 8080"), step("true"), {"json": {"done": True, "candidates": []}})
    result = run_unattended(["ask", "--task", "--yes", "--json", "what is using port 8080"], env, work)
    assert result.returncode == 0, result.stderr
    assert "Plan how to carry out" in json.dumps(stub.model_requests()[0].body)


def test_a_follow_up_then_a_workflow_at_the_terminal(stub, env, work: Path) -> None:
    env["PARSEC_SESSION"] = _failed_build(env)
    stub.reply("zlib.h is missing. Do you build on Debian?")
    stub.reply("Then `sudo apt install zlib1g-dev` installs it.")
    child = spawn(["ask", "why did that fail"], env, work)
    child.expect("Do you build on Debian")
    child.expect("Follow-up")
    child.sendline("yes, Debian 13")
    child.expect("zlib1g-dev")
    child.expect("Follow-up")
    queue(stub, plan("Install zlib"), step("true"), {"json": {"done": True, "candidates": []}})
    child.sendline("w")  # turn it into a workflow: planned, then gated as always
    child.expect("Install zlib")
    child.expect(r"\[q\] abort > ")  # the step's command, at the gate
    child.sendline("q")
    child.expect(pytest.importorskip("pexpect").EOF)
    requests = stub.model_requests()
    follow_up = requests[1].body["messages"]
    assert [m["role"] for m in follow_up] == ["system", "user", "assistant", "user"]
    assert follow_up[2]["content"] == "zlib.h is missing. Do you build on Debian?"
    assert follow_up[3]["content"].startswith("yes, Debian 13")
    assert requests[0].body["messages"][1] == follow_up[1], "the context is the same first message"
    assert "Plan how to carry out" in json.dumps(requests[2].body)
