"""A secret value seen once in a shell is masked wherever it appears again (issue 13).

Through the real daemon: the shell's environment at session start and an `export` teach the
session two values; a later command and its captured output hold them bare, and neither reaches
the store."""

from __future__ import annotations

import json

from .harness import finished

TOKEN = "Tok3nValue99x"
PASSWORD = "Hunter2secret"


def test_values_seen_once_are_masked_in_later_commands_and_output(sandbox):
    sandbox.run()
    with sandbox.client() as client:
        client.call(
            "session_start",
            session="700-1.0",
            shell="bash",
            pid=None,
            cwd="/tmp",
            env={"DB_PASSWORD": PASSWORD, "HOME": "/root"},
        )
        client.call("command_finished", **finished("700-1.0", 1, command=f"export SERVICE_API_TOKEN={TOKEN}"))
        client.call(
            "command_output", session="700-1.0", seq=2, output=f"{TOKEN}\nroot pw: {PASSWORD}.\n", output_bytes=40
        )
        client.call(
            "command_finished", **finished("700-1.0", 2, command="echo $SERVICE_API_TOKEN; printenv DB_PASSWORD")
        )
        client.call("command_finished", **finished("700-1.0", 3, command=f"curl -d {TOKEN} https://example.com"))
        client.call("flush")
    rows = sandbox.sql("select command, stdout from executions order by executed_at")
    stored = json.dumps(rows)
    assert len(rows) == 3
    assert TOKEN not in stored and PASSWORD not in stored
    assert "[REDACTED:known_secret]" in stored and "curl -d [REDACTED:known_secret] https://example.com" in stored
