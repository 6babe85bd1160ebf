"""Replies as small local models write them: read leniently, mended locally, and those that fit the
schema but mean nothing sent back once with the reason (the user told in one line)."""

from __future__ import annotations

import json

import pytest

from parsec.models.chat import ChatMessage
from parsec.providers.provider_errors import StructuredOutputError
from parsec.workflow.planning.planner import make_plan
from parsec.workflow.planning.reply_checks import first_word, plan_problem, step_problem
from parsec.workflow.planning.schemas import StepReply
from parsec.workflow.planning.stepgen import ask_step

MESSAGES = [ChatMessage(role="system", content="You plan."), ChatMessage(role="user", content="count the lines")]
PLAN = {"name": "count lines", "steps": ["Count the lines of every Python file", "Show the total"]}


@pytest.mark.parametrize(
    "reply",
    [
        # llama-cpp-python's json_object mode let raw newlines into strings; a strict parser refused all four plans
        '{"name": "count lines", "steps": ["Count the lines of every Python file\n", "Show the\ttotal"]}',
        "```json\n" + json.dumps(PLAN) + "\n```",
        "Sure, here it is:\n" + json.dumps(PLAN) + "\nLet me know!",
        # cut off by max_tokens: the end is mended, not asked again
        '{"name": "count lines", "steps": ["Count the lines of every Python file", "Show the total',
        "Plan: ```json\n" + json.dumps(PLAN)[:-3],
        '{"name": "count lines", "steps": ["Count the lines of every Python file", "Show the total",],}',
    ],
)
def test_sloppy_json_is_read_without_another_call(stub, make_provider, reply):
    stub.reply(reply)
    _, plan = make_plan(make_provider("openai"), MESSAGES, request="plan it")
    assert [s.description.split()[0] for s in plan.steps] == ["Count", "Show"]
    assert len(stub.model_requests()) == 1


def test_bare_word_steps_are_sent_back_with_the_reason_and_the_user_told(stub, make_provider):
    stub.reply(json={"name": "x", "steps": ["code", "list_files"]})
    stub.reply(json=PLAN)
    ui = Shown()
    _, plan = make_plan(make_provider("openai"), MESSAGES, request="plan it", shown_on=ui)
    assert len(plan.steps) == 2
    first, again = stub.model_requests()
    assert "bare words like 'code'" in again.body["messages"][-1]["content"]
    assert ui.said == [
        "The model's reply was unusable (steps must be sentences saying what to achieve, not bare words "
        "like 'code'): asking again."
    ]
    # The steps were shown as they streamed in: the bad plan's, then the good one's (counted afresh).
    assert ui.steps == [(1, "code"), (2, "list_files"), (1, PLAN["steps"][0]), (2, PLAN["steps"][1])]


def test_a_made_up_command_and_an_empty_reply_are_sent_back(stub, make_provider):
    commands = {"ls", "wc", "find"}
    stub.reply(json={"done": False, "candidates": [{"command": "count_lines *.py"}]})
    stub.reply(json={"done": False, "candidates": [{"command": "wc -l *.py"}]})
    told: list[str] = []
    provider = make_provider("openai")
    reply, _ = ask_step(provider, MESSAGES, is_command=commands.__contains__, notice=told.append)
    assert reply.candidates[0].command == "wc -l *.py"
    assert told == ["`count_lines` is not a command on this system: give a real shell command line"]
    stub.reply(text="")
    stub.reply(json={"done": False, "candidates": []})
    with pytest.raises(StructuredOutputError, match="gives no command and does not say the step is done"):
        ask_step(provider, MESSAGES, is_command=commands.__contains__, notice=told.append)
    assert told[-1] == "the reply was empty"


def test_meaning_checks():
    assert plan_problem(make_plan_reply(["Find the five largest files"])) == ""
    assert "bare words" in plan_problem(make_plan_reply(["Find files", "list_files"]))
    assert "bare words" in plan_problem(make_plan_reply(["code"]))
    assert "bare words" in plan_problem(make_plan_reply(["List_Files"]))
    assert plan_problem(make_plan_reply(["Deploy"])) == ""  # terse, but an imperative
    known = {"ls", "cd", "grep"}.__contains__
    ok = StepReply.model_validate({"candidates": [{"command": "FOO=1 ls -la | grep x"}]})
    assert step_problem(ok, known) == ""
    assert step_problem(StepReply(done=True), known) == ""
    assert "no command" in step_problem(StepReply(), known)
    assert first_word("./build.sh --fast") == ""  # a path: not judged by name
    assert first_word("for f in *; do echo $f; done") == "for"
    assert first_word("echo 'unclosed") == ""


class Shown:
    def __init__(self):
        self.said, self.steps = [], []

    def say(self, text, style=None):
        self.said.append(text)

    def plan_step(self, number, description):
        self.steps.append((number, description))


def make_plan_reply(steps):
    from parsec.workflow.planning.schemas import PlanReply

    return PlanReply(name="n", steps=steps)
