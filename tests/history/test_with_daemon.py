"""Privacy and `--session current` through a real daemon: what the shell hook sends is filtered by
parsec.privacy before it reaches the store, and `parsec history --session current` finds the
session of the shell (here: this test process, the parent of the `parsec` process)."""

from __future__ import annotations

import json
import os

from daemon.harness import Sandbox, finished

GH = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def test_daemon_masks_excludes_and_current_session_resolves() -> None:
    box = Sandbox(privacy_exclude_commands='["^pass "]')
    try:
        box.run()
        with box.client() as client:
            mine = client.call(
                "session_start",
                session="me-1",
                shell="bash",
                pid=os.getpid(),
                cwd="/tmp",
                env={"SHELL": "/bin/bash", "GITHUB_TOKEN": GH},
            )["session_id"]
            other = client.call("session_start", session="other-1", shell="zsh", pid=1, cwd="/tmp")["session_id"]
            client.call("command_finished", **finished("me-1", 1, f"git clone https://{GH}@github.com/x/y"))
            client.call("command_finished", **finished("me-1", 2, " echo private"))
            client.call("command_finished", **finished("me-1", 3, "pass show github"))
            client.call("command_finished", **finished("me-1", 4, "mysql -u root -phunter2 shop"))
            client.call("command_finished", **finished("other-1", 1, "ls"))
            client.call("flush")
        result = box.cli("history", "--session", "current", "--json")
        assert result.returncode == 0, result.stderr
        rows = json.loads(result.stdout)
        assert {row["session_id"] for row in rows} == {mine} and mine != other
        assert [row["command"] for row in rows] == [
            "mysql -u root -p[REDACTED:password] shop",
            "git clone https://[REDACTED:github_token]@github.com/x/y",
        ]
        shown = box.cli("sessions", "show", "current", "--json")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["session"]["global_context"]["environment_snapshot"] == {"SHELL": "/bin/bash"}
        for path in (box.db, box.db.with_name(box.db.name + "-wal")):
            if path.exists():
                data = path.read_bytes()
                assert GH.encode() not in data and b"hunter2" not in data and b"echo private" not in data
    finally:
        box.close()
