"""The daemon's handler table (`Daemon._dispatch`) covers every request in `messages.AnyRequest`:
mypy proves it (the match ends in `assert_never`; test_static_checks.py runs mypy on the package),
this file shows that proof fails when a case is missing, that each case calls its own handler, and
that each handler is declared to return the reply its request names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, get_args, get_type_hints

from parsec.daemon.server import Daemon
from parsec.protocol import messages as m
from parsec.protocol import replies as r

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "parsec" / "daemon" / "server.py"

# The fields each request needs to be valid (the rest default).
REQUIRED: dict[str, dict[str, Any]] = {
    "session_start": {"session": "1-2"},
    "classify": {"text": "ls"},
    "command_started": {"session": "1-2", "seq": 1, "command": "ls"},
    "command_finished": {"session": "1-2", "seq": 1},
    "command_output": {"session": "1-2", "seq": 1, "output": ""},
    "session_end": {"session": "1-2"},
    "classify_feedback": {"text": "ls", "chosen": "command"},
}


def test_the_union_is_every_request_type_and_each_names_its_reply() -> None:
    members = get_args(get_args(m.AnyRequest)[0])
    assert {cls.model_fields["type"].default for cls in members} == m.REQUEST_TYPES.keys() == m.REPLY_TYPES.keys()
    assert len(members) == len(m.REQUEST_TYPES)  # no two classes share a type


def test_each_request_goes_to_its_own_handler() -> None:
    daemon = object.__new__(Daemon)  # the table only picks a method: nothing is started or run
    for kind, cls in m.REQUEST_TYPES.items():
        request = m.REQUEST_ADAPTER.validate_python({"v": m.PROTOCOL_VERSION, "type": kind, **REQUIRED.get(kind, {})})
        assert type(request) is cls
        handler = daemon._dispatch(request, {})
        try:
            assert handler.__qualname__ == f"Daemon._{kind}", kind  # type: ignore[attr-defined]
        finally:
            handler.close()  # type: ignore[attr-defined]  # a coroutine never awaited


def test_each_handler_is_declared_to_return_its_requests_reply() -> None:
    # mypy holds each handler's body to its annotation; this holds the annotation to the reply
    # the request class names (`Status(Request[StatusReply])`).
    for kind, reply in m.REPLY_TYPES.items():
        declared = set(get_args(get_type_hints(getattr(Daemon, f"_{kind}"))["return"]))
        assert declared == {reply, r.ErrorReply}, kind


def test_mypy_refuses_a_table_without_a_case_for_every_request(tmp_path) -> None:
    source = SERVER.read_text()
    case = "            case m.Ping():\n                return self._ping(req, conn)\n"
    assert case in source
    planted = tmp_path / "server.py"
    planted.write_text(source.replace(case, ""))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent"]
        + ["--shadow-file", str(SERVER), str(planted), str(SERVER)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert '"assert_never" has incompatible type "Ping"' in result.stdout, result.stdout
