"""What the model is sent, and how much (issue 14, item 11): a command with the result that
completes its step costs one call; completed steps are summaries; the stable part of a request
comes first; the budget counts instructions and schema. Real processes against the stub."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import conversation_json, finished_step, plan, queue, run_unattended, user_messages


def expecting(command: str, contains: str = "", exit_status: int = 0, summary: str = "did it") -> dict:
    candidate = {
        "command": command,
        "explanation": f"runs {command.split()[0]}",
        "expect": {"exit_status": exit_status, "output_contains": contains},
    }
    return {"json": {"done": False, "candidates": [candidate], "summary": summary}}


def test_a_command_that_meets_its_expectation_completes_the_step_in_one_call(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Print a greeting", "Look for a missing word"),
        expecting("echo hello-there", contains="hello-there", summary="greeted"),
        expecting("grep -q nothing-here /dev/null", exit_status=1, summary="it is not there"),
    )
    result = run_unattended(["ask", "--yes", "--json=full", "greet"], env, work)
    assert result.returncode == 0, result.stderr
    assert len(stub.model_requests()) == 3  # the plan and one call per step
    achievements = conversation_json(result)["context_summary"]["key_achievements"]
    assert achievements == ["Step 1: greeted (echo hello-there)", "Step 2: it is not there"]


def test_an_unmet_expectation_asks_the_model_again(stub, env, work: Path) -> None:
    queue(stub, plan("Print a greeting"), expecting("echo hello", contains="goodbye"), finished_step("said hello"))
    result = run_unattended(["ask", "--yes", "--json=full", "greet"], env, work)
    assert result.returncode == 0, result.stderr
    assert len(stub.model_requests()) == 3
    assert "hello" in user_messages(stub)[2]  # it judged the output it saw


def test_completed_steps_are_summaries_and_the_request_starts_the_same_way(stub, env, work: Path) -> None:
    steps = [f"Print block {n}" for n in range(1, 6)]
    replies = [
        expecting(f"seq {n * 1000} {n * 1000 + 300}; echo block-{n}-ok", contains=f"block-{n}-ok") for n in range(1, 6)
    ]
    queue(stub, plan(*steps), *replies)
    result = run_unattended(["ask", "--yes", "--json", "print blocks"], env, work)
    assert result.returncode == 0, result.stderr
    requests = stub.model_requests()[1:]
    sizes = [r.tokens for r in requests]
    assert sizes[-1] <= 1.5 * sizes[1], sizes  # older outputs are not re-sent in full
    last = user_messages(stub)[-1]
    assert "2150" not in last and "block-3-ok" in last  # block 2 output is gone, its summary stays
    # The stable part (system prompt, plan, completed steps) comes first; date and time last.
    texts = [r.body["messages"][1]["content"] for r in requests]
    assert all(text.split("\n\n")[-2].startswith("Current date and time") for text in texts)
    # Request 4 (step 5) repeats request 3 (step 4) byte for byte up to its current step: a
    # completed step's record never changes once it is sent.
    stable = texts[3][: texts[3].index('"current_step"')]
    assert '{"step_index":2' in stable and texts[4].startswith(stable.rsplit("]", 1)[0])
    assert requests[4].body["messages"][0] == requests[3].body["messages"][0]  # the system prompt


def test_the_budget_counts_the_instructions_and_the_schema(stub, env, work: Path) -> None:
    """A small window: what goes out, schema included, stays within window minus the output reserve."""
    env["PARSEC_LLM_MODEL"] = "tiny-model"
    config = Path(env["XDG_CONFIG_HOME"]) / "parsec"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[llm.models."tiny-model"]\ncontext_window = 4096\nmax_output_tokens = 1024\n')
    queue(stub, plan("Print a lot"), expecting("seq 1 2000", contains="2000"))
    result = run_unattended(["ask", "--yes", "--json", "print a lot"], env, work)
    assert result.returncode == 0, result.stderr
    step_request = stub.model_requests()[1]
    schema = json.dumps(step_request.body.get("response_format", {}))
    sent = step_request.tokens + stub.count_tokens(schema)
    assert sent <= 4096 - 1024, sent
