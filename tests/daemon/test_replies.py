"""Every reply the daemon sends is the one protocol/replies.py declares for its request type: each
type is sent to a real daemon over its socket and the reply validated against its model, which
forbids undeclared fields. The hooks' reading of a classify answer is checked against the model."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from parsec.daemon.hook_channel import hook_answer
from parsec.daemon.server import Daemon
from parsec.protocol.messages import REPLY_TYPES, REQUEST_TYPES, encode
from parsec.protocol.replies import ClassifyReply, ErrorReply

from .harness import Sandbox

REPO = Path(__file__).resolve().parents[2]

# One valid request of each type, in the order a shell would send them.
EXAMPLES = [
    ("hello", {}),
    ("ping", {}),
    ("session_start", {"session": "4242-1", "shell": "bash", "pid": 4242, "cwd": "/tmp"}),
    ("command_started", {"session": "4242-1", "seq": 1, "command": "ls -la", "started_at": 1.7e9}),
    ("command_output", {"session": "4242-1", "seq": 1, "output": "total 0\n"}),
    ("command_finished", {"session": "4242-1", "seq": 1, "exit_status": 0, "finished_at": 1.7e9 + 0.2}),
    ("classify", {"text": "find every large file in this folder", "first_word": "file", "shell": "bash"}),
    ("classify", {"text": "ls -la", "first_word": "file"}),
    ("classify", {"text": "whats using port 8080", "first_word": "none", "after_127": True}),
    ("classify_feedback", {"text": "make it so", "first_word": "file", "chosen": "prompt"}),
    ("classifier_reload", {}),
    ("current_session", {"session": "4242-1"}),
    ("current_session", {"session": "9999-9"}),
    ("flush", {}),
    ("status", {}),
    ("session_end", {"session": "4242-1"}),
]


@pytest.fixture(scope="module")
def box():
    sandbox = Sandbox()
    sandbox.run()
    yield sandbox
    sandbox.close()


def test_every_request_type_has_its_reply_type_and_handler() -> None:
    assert REPLY_TYPES.keys() == REQUEST_TYPES.keys()
    assert all(callable(getattr(Daemon, f"_{kind}", None)) for kind in REQUEST_TYPES)
    assert {kind for kind, _ in EXAMPLES} == REQUEST_TYPES.keys()


def test_each_reply_is_its_declared_model(box) -> None:
    with box.client() as client:
        for number, (kind, fields) in enumerate(EXAMPLES):
            reply = client.request({"type": kind, "id": number, **fields})
            assert reply["ok"] is True, (kind, reply)
            model = REPLY_TYPES[kind].model_validate(reply)  # undeclared fields are refused
            assert model.id == number and model.wire() == reply, kind


def test_error_replies_are_the_error_model(box) -> None:
    with box.client() as client:
        for request in (
            {"type": "command_finished", "session": "1-2", "id": "x"},  # no seq
            {"type": "classify_feedback", "text": "x", "chosen": "maybe", "id": 5},
        ):
            reply = client.request(request)
            assert ErrorReply.model_validate(reply).id == request["id"]


# How each hook reads an answer: (shell, hook file, the variables its id test and its decision
# test read, how the decision is captured). The tests below take the hook's own `[[ … ]]` conditions out of the file and run
# them in that shell on the answer the daemon writes (hook_channel.hook_answer of the reply).
READERS = [
    ("bash", "parsec.bash", "REPLY", "REPLY", "${BASH_REMATCH[1]}"),
    ("zsh", "parsec.zsh", "line", "REPLY", "$match[1]"),
    ("bash", "parsec.fish", "reply", "reply", "${BASH_REMATCH[1]}"),  # fish's helper is a bash script
]


def _condition(hook: str, variable: str, wanted: str) -> str:
    """The hook's `[[ $variable =~ … ]]` condition that mentions `wanted` (e.g. "decision")."""
    for line in (REPO / "shell-hooks" / hook).read_text().splitlines():
        found = re.search(r"\[\[ !? ?\$" + variable + r" =~ .*?" + wanted + r".*? \]\]", line)
        if found:
            return found.group(0).replace("[[ ! ", "[[ ")
    raise AssertionError(f"{hook}: no [[ ${variable} =~ … {wanted} … ]]")


@pytest.mark.parametrize(("shell", "hook", "id_variable", "variable", "capture"), READERS, ids=[r[1] for r in READERS])
def test_the_hooks_read_the_answer_the_model_declares(shell, hook, id_variable, variable, capture) -> None:
    decide = _condition(hook, variable, "decision")
    match_id = _condition(hook, id_variable, "id")
    for number, decision in enumerate(("command", "prompt", "ambiguous"), 7):
        reply = ClassifyReply(id=number, decision=decision, confidence=0.9, reason="why", leans="command")
        answer = encode(hook_answer(reply.wire())).decode().rstrip("\n")
        # `id` and $3: the question's id, as the hooks name it (fish's helper: its third argument).
        script = (
            f"{variable}=$1 {id_variable}=$1; id={number}; set -- x x {number}; "
            f'{match_id} || {{ echo "id not matched"; exit 1; }}; {decide} && printf %s "{capture}"'
        )
        ran = subprocess.run([shell, "-c", script, "test", answer], capture_output=True, text=True, timeout=10)
        assert (ran.returncode, ran.stdout) == (0, decision), (hook, answer, ran.stdout, ran.stderr)
        other = answer.replace(f'"id":{number}', f'"id":{number}0')  # another question's answer
        ran = subprocess.run([shell, "-c", script, "test", other], capture_output=True, text=True, timeout=10)
        assert "id not matched" in ran.stdout, (hook, other)
