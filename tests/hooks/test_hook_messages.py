"""Every message the three hooks actually send is a request the daemon reads as sent.

The hooks write their JSON by hand (no Python on their path). Each shell runs in a pty with the
hook as `parsec init` serves it, against the fake daemon, through a session that makes it send
each kind of message it has (session_start, command_finished, classify, the exit-127 classify,
classify_feedback); everything it wrote, to the FIFO or to a spool file, is checked against
parsec/protocol/messages.py: the daemon's own parser (version, type, field types), no field the
model does not declare (the daemon would drop it without a word), and every value read back as
sent. A hook served with one planted wrong field name is caught."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from parsec.protocol import messages as m

from .conftest import need
from .fake_daemon import read_spool
from .harness import Shell

# Fields of the transports, not of the request: where to answer (the FIFO), and a spool file's
# command kept in a file beside it (docs/protocol.md, "Notes from the hooks").
TRANSPORT_FIELDS = {"reply_to", "command_file"}
EVERY_KIND = ["session_start", "command_finished", "classify", "classify after_127", "classify_feedback"]


def problem(message: dict[str, Any]) -> str | None:
    """Why the daemon would not read `message` exactly as the hook meant it, or None."""
    try:
        request = m.parse_request(json.dumps(message))
    except m.BadMessage as err:
        return f"{err.code}: {err}"
    undeclared = set(message) - set(type(request).model_fields) - TRANSPORT_FIELDS
    if undeclared:
        return f"{request.type}: fields the model does not declare: {sorted(undeclared)}"
    changed = [key for key in set(message) - TRANSPORT_FIELDS if getattr(request, key) != message[key]]
    return f"{request.type}: read otherwise than sent: {sorted(changed)}" if changed else None


def kind(message: dict[str, Any]) -> str:
    return f"{message.get('type')}{' after_127' if message.get('after_127') else ''}"


def sent_messages(shell: str, sandbox, fake_daemon, load_hook: str | None = None) -> list[dict[str, Any]]:
    """What the hook sends in a session that uses each of its messages."""
    need(shell)
    sh = Shell(shell, sandbox, load_hook=load_hook)
    sh.run("echo hello")  # session_start, then command_finished
    sh.child.sendline("maybe echo hi")  # classify: ambiguous, so one key decides
    sh.child.expect_exact("[a] ask Parsec")
    sh.child.send("a")  # classify_feedback: prompt
    assert "ASKED<maybe echo hi>" in sh.expect_prompt()
    sh.run("summarise the latest logs")  # the daemon says command; the shell says 127: asked again
    sh.exit()
    return [*fake_daemon.messages, *read_spool(sandbox.runtime)]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_message_a_hook_sends_is_a_request_read_as_sent(sandbox, fake_daemon, shell):
    sent = sent_messages(shell, sandbox, fake_daemon)
    assert sorted({kind(message) for message in sent}) == sorted(EVERY_KIND), sent
    assert {json.dumps(message): problem(message) for message in sent if problem(message)} == {}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_planted_wrong_field_is_caught(sandbox, fake_daemon, shell):
    need(shell)
    served = subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "init", shell], env=sandbox.env, capture_output=True, text=True
    ).stdout
    assert served.count('"exit_status') == 1  # the key in the command_finished record (\" in bash and zsh)
    planted = sandbox.root / f"planted.{shell}"
    planted.write_text(served.replace('"exit_status', '"exit_code'))  # the daemon would drop it silently
    sent = sent_messages(shell, sandbox, fake_daemon, load_hook=f"source {planted}")
    found = [problem(message) for message in sent if message.get("type") == "command_finished"]
    assert found and all(
        found_problem == "command_finished: fields the model does not declare: ['exit_code']" for found_problem in found
    ), found
