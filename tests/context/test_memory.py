"""Completed steps keep what they found (issue 26, item 1): the model's summary, the commands and
the output lines that matter, compressed before they are dropped; the engine owns the budget."""

from __future__ import annotations

import json
from pathlib import Path

from parsec.context.engine import ContextEngine
from parsec.context.excerpt import excerpt
from parsec.context.tokens import LazyCounter, get_token_counter
from parsec.models.parsec_model import new_id
from parsec.providers.provider import ModelLimits
from tests.workflow.conftest import env, run_unattended, stub, work  # noqa: F401 (fixtures)

from .ctx_helpers import attempt, conversation, finish_step, fixed_clock, settings

MAGIC = "the magic number is 4711"
# The command computes the value, so only its output holds it (commands are always carried on).
NOTES = 'echo "the magic number is $((4700 + 11))"; for i in $(seq 1 150); do echo "note $i: nothing here"; done'
NOTES_OUTPUT = MAGIC + "\n" + "".join(f"note {i}: nothing here\n" for i in range(1, 151))
STEPS = ["Read the notes", *[f"Print block {n}" for n in range(2, 12)], "Write the magic number into answer.txt"]


def _step_json(messages) -> dict:
    return json.JSONDecoder().raw_decode(messages[1].content.split("Step context (JSON):\n", 1)[1])[0]


def twelve_steps(cwd: str):
    """Step 1 read the notes (the value is in its output only, not in the model's summary)."""
    conv = conversation(STEPS, cwd=cwd, prompt="use the magic number from the notes")
    finish_step(conv, 0, [attempt(NOTES, 0, NOTES_OUTPUT, cwd)])
    conv.steps[0].summary = "read the notes"
    for n in range(1, 11):
        finish_step(conv, n, [attempt(f"seq {n}000 {n}300; echo block-{n}-ok", 0, _block(n), cwd)])
        conv.steps[n].summary = f"printed block {n + 1}"
    return conv


def _block(n: int) -> str:
    """300 bare numbers (noise), then eight lines that read like findings, then the marker."""
    numbers = "".join(f"{i}\n" for i in range(n * 1000, n * 1000 + 301))
    return numbers + "".join(f"part {k} of block {n}: {n * 100 + k} rows\n" for k in range(8)) + f"block-{n}-ok\n"


def test_the_excerpt_is_the_lines_that_matter_not_the_tail():
    lines = excerpt(NOTES_OUTPUT, "Write the magic number into answer.txt")
    assert lines[0] == MAGIC, lines
    assert len(lines) <= 8 and sum(map(len, lines)) <= 480
    assert excerpt("one line\n", "anything") == ["one line"]
    assert excerpt("".join(f"{i}\n" for i in range(500)) + "block-1-ok\n", "print block 1") == ["block-1-ok"]


def test_a_fact_from_step_one_reaches_the_last_step_while_the_budget_allows(workdir):
    conv = twelve_steps(str(workdir))
    engine = ContextEngine(settings(), None, ModelLimits(128_000, 4_096), clock=fixed_clock)
    messages, _, report = engine.step_messages(conv, 11, {"working_directory": str(workdir)})
    first = _step_json(messages)["execution_history"][0]
    assert first["summary"] == "read the notes" and MAGIC in first["output_excerpt"]
    assert "note 3:" not in first["output_excerpt"]  # the noise around it is not carried
    assert report.actions() == {"kept": report.actions()["kept"]}, "everything fits: nothing is cut"


def test_older_steps_are_compressed_to_summary_and_facts_before_they_are_dropped(workdir):
    conv = twelve_steps(str(workdir))
    wide = ContextEngine(settings(), None, ModelLimits(128_000, 4_096), clock=fixed_clock)
    full = wide.step_messages(conv, 11, {"working_directory": str(workdir)})[2].total_tokens
    # Just too small for every step in full: the old, irrelevant ones go short first.
    engine = ContextEngine(settings(), None, ModelLimits(full + 600, 700), clock=fixed_clock)
    messages, _, report = engine.step_messages(conv, 11, {"working_directory": str(workdir)})
    history = _step_json(messages)["execution_history"]
    assert len(history) == 11 and not report.by_action("dropped")
    short = [r for r in history if "facts" in r]
    assert short and all("output_excerpt" not in r for r in short)
    first = history[0]
    assert MAGIC in (first.get("output_excerpt") or "\n".join(first.get("facts", [])))
    # Much smaller: now some are dropped, the lowest scores first; the relevant first step stays.
    small = ContextEngine(settings(), None, ModelLimits(full - 200, 500), clock=fixed_clock)
    messages, _, report = small.step_messages(conv, 11, {"working_directory": str(workdir)})
    dropped = [d for d in report.by_action("dropped") if d.section == "execution_history"]
    kept = [d for d in report.decisions if d.section == "execution_history" and d.action != "dropped"]
    assert dropped and max(d.score for d in dropped) <= min(d.score for d in kept)
    assert MAGIC in messages[1].content
    assert get_token_counter().count_messages(messages) <= small.budget


def test_completed_steps_are_the_same_bytes_in_every_later_request(workdir):
    conv = twelve_steps(str(workdir))
    engine = ContextEngine(settings(), None, ModelLimits(128_000, 4_096), clock=fixed_clock)
    before = engine.step_messages(conv, 5, {"working_directory": str(workdir)})[0][1].content
    after = engine.step_messages(conv, 9, {"working_directory": str(workdir)})[0][1].content
    stable = before[: before.index('{"step_index":5')]
    assert '{"step_index":4' in stable and after.startswith(stable)


def test_the_engine_leaves_room_for_what_the_caller_adds(workdir):
    conv = twelve_steps(str(workdir))
    limits = ModelLimits(4_000, 1_000)
    engine = ContextEngine(settings(), None, limits, clock=fixed_clock)
    added = ["instructions " * 300, "schema " * 300]
    messages, _, report = engine.step_messages(conv, 11, {"working_directory": str(workdir)}, adds=added)
    assert report.budget == engine.budget - engine.tokens_added(added)
    assert get_token_counter().count_messages(messages) + engine.tokens_added(added) <= engine.budget


def test_planning_loads_the_token_encoding_only_when_something_is_cut(workdir):
    conv = conversation(["x"], cwd=str(workdir))
    lazy = LazyCounter()
    engine = ContextEngine(settings(), None, ModelLimits(128_000, 4_096), counter=lazy, clock=fixed_clock)
    engine.planning_messages(conv, None, adds=["plan it"])
    assert not lazy.loaded and engine.last_report is not None and engine.last_report.all_kept()
    tight = ContextEngine(settings(), None, ModelLimits(1_200, 100), counter=LazyCounter(), clock=fixed_clock)
    messages = tight.planning_messages(conv, None, adds=["plan it " * 300])
    assert tight.counter.loaded  # the upper bound did not fit: counted again, exactly
    assert get_token_counter().count_messages(messages) + tight.tokens_added(["plan it " * 300]) <= tight.budget


# --- over real HTTP, against the stub ----------------------------------------------------------


def _responder(api: str, body: object) -> dict:
    """A model that reads the request: the plan; for each step its command with the expectation
    that completes it. Step 1's summary does not say the value: only its output does."""
    text = json.dumps(body)
    if "Plan how to carry out" in text:
        return {"json": {"name": "Magic", "steps": STEPS}}
    at = text.rfind("current_step")
    index = min((text.find(d, at), i) for i, d in enumerate(STEPS) if text.find(d, at) >= 0)[1]
    if index == 0:
        command, marker, summary = NOTES, "note 150", "read the notes"
    elif index == len(STEPS) - 1:
        command, marker, summary = "echo written", "written", "wrote it"
    else:
        command, marker, summary = f"seq {index}000 {index}200; echo block-{index}-ok", f"block-{index}-ok", "printed"
    candidate = {"command": command, "explanation": "x", "expect": {"exit_status": 0, "output_contains": marker}}
    return {"json": {"done": False, "candidates": [candidate], "summary": summary}}


def test_the_fact_reaches_step_three_and_step_twelve_over_http(stub, env, work: Path) -> None:  # noqa: F811
    stub.responder = _responder
    result = run_unattended(["ask", "--yes", "--json", "use the magic number from the notes"], env, work, timeout=180)
    assert result.returncode == 0, result.stderr
    requests = stub.model_requests()
    assert len(requests) == 13  # the plan and one call per step
    texts = ["\n".join(str(m.get("content", "")) for m in r.body["messages"]) for r in requests]
    step = {i + 1: texts[i + 1] for i in range(12)}
    assert "4711" not in texts[0] + texts[1]  # not before it ran
    assert MAGIC in step[3] and MAGIC in step[12]
    sizes = [r.tokens for r in requests[1:]]
    assert sizes[11] <= 2.5 * sizes[1], sizes


def test_a_question_sees_the_last_output_within_the_budget(workdir):
    from parsec.models.session import DirectCommandExecution
    from parsec.models.text import TruncatedText

    long_output = "".join(f"warning {i}: deprecated call\n" for i in range(400)) + "error: zlib.h not found\n"
    history = [
        DirectCommandExecution(
            session_id=new_id(),
            command="make app",
            exit_status=2,
            stdout=TruncatedText.from_output(long_output, 64_000),
        ),
        *[DirectCommandExecution(session_id=new_id(), command=f"echo {i}", exit_status=0) for i in range(30)],
    ]
    wide = ContextEngine(settings(), None, ModelLimits(128_000, 4_096), clock=fixed_clock)
    messages = wide.question_messages("why did that fail", str(workdir), "bash", history, instructions="Answer.")
    sent = messages[1].content
    assert "error: zlib.h not found" in sent and '"command":"make app"' in sent
    assert messages[0].content.endswith("Answer.")
    small = ContextEngine(settings(), None, ModelLimits(1_500, 300), clock=fixed_clock)
    messages = small.question_messages("why did that fail", str(workdir), "bash", history, instructions="Answer.")
    assert get_token_counter().count_messages(messages) <= small.budget
    assert '"command":"make app"' in messages[1].content  # the output was cut before the command went
