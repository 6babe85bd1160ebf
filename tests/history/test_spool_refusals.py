"""What the daemon refuses from the spool is said, never counted as taken in; a refused spool line
is named by its line number in the file. A real daemon (or a real socket that refuses) and real
spool files, written as the hooks write them."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest
from daemon.harness import Sandbox, finished

# protocol.client and .messages: what take_in_spool imports at its first call, imported now. On a
# busy machine those imports ate into the 2 s before the daemon's own pass replays a spool file
# these tests have just written.
import parsec.protocol.client
import parsec.protocol.messages  # noqa: F401
from parsec.cli.history.spool_count import SpoolState, take_in_spool


@pytest.fixture
def box():
    sandbox = Sandbox()
    yield sandbox
    sandbox.close()


def hook_line(message: dict) -> str:
    """A record as the hooks append it: compact JSON, one line."""
    return json.dumps({"v": 1, "noreply": True, **message}, separators=(",", ":")) + "\n"


def command(number: int, text: str, **extra: object) -> str:
    return hook_line({"type": "command_finished", **finished("77-1.0", number, text), **extra})


def refused_command() -> str:
    return command(2, "echo refused", seq=-1)  # a negative seq: bad_request


def spool_file(box: Sandbox, name: str, text: str) -> Path:
    spool = box.runtime / "spool"
    spool.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = spool / name
    path.write_text(text)
    return path


def test_a_spooled_command_the_daemon_refuses_is_reported_not_taken_in(box, monkeypatch) -> None:
    box.run()
    for name in ("XDG_RUNTIME_DIR", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, box.env[name])
    spool_file(box, "bash-77-1.jsonl", command(1, "echo kept 1") + refused_command() + command(3, "echo kept 3"))
    # At once, as `parsec history` and Ctrl-R do: the daemon's own pass replays a file 2 s after
    # taking it, so the flush's catch-up is what handles these lines.
    state = take_in_spool()
    assert state == SpoolState(refused=1)
    [note] = state.notes()
    log = Path(box.env["XDG_STATE_HOME"]) / "parsec" / "daemon.log"
    assert note == f"the daemon refused 1 spooled command: not in the store; see {log}"

    shown = box.cli("history", "--json", "-n", "0")
    assert shown.returncode == 0, shown.stderr
    assert sorted(row["command"] for row in json.loads(shown.stdout)) == ["echo kept 1", "echo kept 3"]
    assert "refused" not in shown.stderr  # said once: the lines are handled, whatever the pass does next
    assert re.search(r"bash-77-1\.jsonl(\.taken)? line 2 refused \(bad_request\)", log.read_text())


class RefusingDaemon:
    """A real socket where the daemon's would be, answering every request with an error reply."""

    def __init__(self, runtime: Path) -> None:
        runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(runtime / "daemon.sock"))
        self.server.listen(8)
        self.requests: list[dict] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn, conn.makefile("rwb") as stream:
                for line in stream:
                    request = json.loads(line)
                    self.requests.append(request)
                    error = {"code": "unavailable", "message": "journal not writable"}
                    stream.write(json.dumps({"v": 1, "id": request.get("id"), "ok": False, "error": error}).encode())
                    stream.write(b"\n")
                    stream.flush()

    def close(self) -> None:
        self.server.close()


def test_a_refused_flush_counts_the_spool_as_refused_and_history_says_so(box) -> None:
    daemon = RefusingDaemon(box.runtime)
    try:
        spool_file(box, "zsh-78-1.jsonl", command(1, "echo one") + command(2, "echo two"))
        result = box.cli("history")
    finally:
        daemon.close()
    assert [request["type"] for request in daemon.requests] == ["flush"]
    assert "parsec: the daemon refused 2 spooled commands (unavailable): not in the store" in result.stderr, (
        result.stderr
    )
    assert "wait in the spool" not in result.stderr


def test_a_refused_spool_line_is_named_by_its_line_in_the_file(box) -> None:
    """The flush's catch-up handles line 1 and stops at the pasted command (a `command_file`
    record: the pass handles those); the pass then goes on from there. Its count of line numbers
    went on from 1 again, so the refused third line was logged as line 2."""
    box.run()
    spool_file(box, "paste-1.txt", "echo a long paste")
    spool_file(
        box,
        "bash-79-1.jsonl",
        command(1, "echo first") + command(2, "", command_file="paste-1.txt") + command(3, "echo refused", seq=-1),
    )
    with box.client() as client:
        client.call("flush")
    log = box.root / "state" / "parsec" / "daemon.log"
    deadline = time.monotonic() + 60  # a hang guard: the pass comes every 2 s
    while "from bash-79-1.jsonl" not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.1)
    text = log.read_text()
    # The pass handled lines 2 and 3 only: the catch-up had taken line 1.
    assert re.search(r"ingested 1 spooled messages from bash-79-1\.jsonl\.taken \(1 refused\)", text), text
    assert re.findall(r"bash-79-1\.jsonl(?:\.taken)? line (\d+) refused", text) == ["3"], text
    # The pass's lines reach the journal; the writer commits them to the store a moment later, and a
    # flush is what waits for that.
    with box.client() as client:
        assert client.call("flush")["in_store"] is True
    commands = {row[0] for row in box.sql("select command from executions")}
    assert commands == {"echo first", "echo a long paste"}
