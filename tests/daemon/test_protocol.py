"""Bad input of every kind gets an error reply or a closed connection; the daemon keeps serving."""

from __future__ import annotations

import json
import socket
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import Sandbox, finished


@pytest.fixture(scope="module")
def box():
    sandbox = Sandbox(daemon_max_message_bytes=4096, daemon_client_timeout_s=0.5)
    sandbox.run()
    yield sandbox
    sandbox.close()


def raw(box: Sandbox, data: bytes, timeout: float = 5) -> bytes:
    """Send bytes on a fresh connection, return everything the daemon says before closing/idling."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(box.runtime / "daemon.sock"))
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


def error_code(line: bytes) -> str:
    reply = json.loads(line)
    assert reply["ok"] is False and reply["v"] == 1
    return reply["error"]["code"]


def assert_serving(box: Sandbox) -> None:
    with box.client() as client:
        assert client.call("ping")["ok"] is True


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"not json", "bad_request"),
        (b"[1,2,3]", "bad_request"),
        (b'"just a string"', "bad_request"),
        (b'{"v":2,"type":"ping"}', "bad_version"),
        (b'{"type":"ping"}', "bad_version"),
        (b'{"v":1,"type":"launch_missiles"}', "unknown_type"),
        (b'{"v":1}', "unknown_type"),
        (b'{"v":1,"type":"command_finished","session":"1-2"}', "bad_request"),  # no seq
        (b'{"v":1,"type":"command_finished","session":"1-2","seq":-1}', "bad_request"),
        (b'{"v":1,"type":"command_started","session":"","seq":1,"command":"ls"}', "bad_request"),
        (b'{"v":1,"type":"classify_feedback","text":"x","chosen":"maybe"}', "bad_request"),
        (b"\xff\xfe\x00garbage", "bad_request"),
        (b"[" * 3000, "bad_request"),  # nested deeper than the JSON parser's recursion limit
        (b'{"v":1,"type":"ping","id":7,"x":' + b"[" * 2000 + b"]" * 2000 + b"}", "bad_request"),
    ],
)
def test_bad_messages_get_error_replies(box, line, code):
    out = raw(box, line + b"\n")
    assert error_code(out.splitlines()[0]) == code
    assert_serving(box)


OUT_OF_BOUNDS = [
    # JSON numbers with an exponent or a fraction are floats: refused, never stored as REAL.
    b'"exit_status":1e20',
    b'"exit_status":1.5',
    b'"exit_status":1.0',
    b'"exit_status":100000000000000000000',
    b'"exit_status":2147483648',
    b'"exit_status":-2147483649',
    b'"exit_status":"1"',
    b'"exit_status":true',
    b'"pipeline_statuses":[0,1e20]',
    b'"pipeline_statuses":[0,2.5]',
    b'"pipeline_statuses":[4294967296]',
    b'"pipeline_statuses":[' + b",".join([b"0"] * 257) + b"]",
    b'"duration_ms":1e3',
    b'"duration_ms":9223372036854775808',
    b'"duration_ms":-9223372036854775809',
    b'"started_at":Infinity',
    b'"finished_at":NaN',
    b'"finished_at":1e400',
    b'"started_at":true',
    b'"finished_at":"1795600000.5"',  # times are JSON numbers, not coerced
]


@pytest.mark.parametrize("field", OUT_OF_BOUNDS)
def test_numbers_out_of_bounds_are_refused_and_nothing_is_stored(box, field):
    command = f"bounds check {OUT_OF_BOUNDS.index(field)}"
    line = b'{"v":1,"id":7,"type":"command_finished","session":"77-1.0","seq":%d,"command":"%s",%s}\n' % (
        OUT_OF_BOUNDS.index(field) + 1,
        command.encode(),
        field,
    )
    reply = json.loads(raw(box, line).splitlines()[0])
    assert reply["ok"] is False and reply["id"] == 7 and reply["error"]["code"] == "bad_request"
    assert field.split(b'"')[1].decode() in reply["error"]["message"]  # names the field
    assert_serving(box)
    with box.client() as client:
        client.call("flush")
    assert box.execution_count() == 0 or box.sql(f"select count(*) from executions where command = '{command}'") == [
        (0,)
    ]


@pytest.mark.parametrize(
    "line",
    [
        b'{"v":1,"type":"command_finished","session":"1-2","seq":1.0}',
        b'{"v":1,"type":"command_finished","session":"1-2","seq":9223372036854775808}',
        b'{"v":1,"type":"command_started","session":"1-2","seq":1e3,"command":"ls"}',
        b'{"v":1,"type":"command_output","session":"1-2","seq":1,"output":"x","output_bytes":-1}',
        b'{"v":1,"type":"command_output","session":"1-2","seq":1,"output":"x","output_bytes":1e20}',
        b'{"v":1,"type":"session_start","session":"1-2","pid":4294967296}',
        b'{"v":1,"type":"session_start","session":"1-2","pid":12.5}',
        b'{"v":1,"type":"current_session","pid":1e20}',
        b'{"v":1,"type":"ping","id":1e20}',
    ],
)
def test_other_integer_fields_are_bounded_too(box, line):
    assert error_code(raw(box, line + b"\n").splitlines()[0]) == "bad_request"
    assert_serving(box)


@pytest.mark.parametrize("version", [b"true", b"1.0"])
def test_the_version_must_be_the_integer_1(box, version):
    assert error_code(raw(box, b'{"v":%s,"type":"ping"}\n' % version).splitlines()[0]) == "bad_version"


def test_real_hook_values_are_stored_as_integers_and_read_back(box):
    """What the hooks really send (130 after Ctrl-C, 127 for a missing command, 141 for SIGPIPE in a
    pipeline) at the edges of the bounds, after the refusals above: stored as INTEGER, and the
    history and sessions commands load the rows."""
    now = time.time()
    with box.client() as client:
        client.call("session_start", session="78-1.0", shell="bash", pid=2**31 - 1, cwd="/tmp")
        for seq, (status, pipeline) in enumerate(
            [(130, [130]), (127, [0, 127]), (141, [141, 0]), (2**31 - 1, [-(2**31)])], 1
        ):
            client.call(
                "command_finished",
                **finished(
                    "78-1.0",
                    seq,
                    f"edge {seq}",
                    exit_status=status,
                    pipeline_statuses=pipeline,
                    duration_ms=2**63 - 1 if seq == 4 else 1200,
                    started_at=now - 2,
                    finished_at=now,
                ),
            )
        client.call("flush")
    deadline = time.monotonic() + 10
    rows: list = []
    while len(rows) < 4 and time.monotonic() < deadline:
        with box.client() as client:
            client.call("flush")
        rows = (
            box.sql(
                "select command, exit_status, typeof(exit_status), pipeline_statuses, typeof(duration_ms) "
                "from executions where command like 'edge %' order by command"
            )
            if box.execution_count()
            else []
        )
        time.sleep(0.05)
    assert [(r[0], r[1], json.loads(r[3])) for r in rows] == [
        ("edge 1", 130, [130]),
        ("edge 2", 127, [0, 127]),
        ("edge 3", 141, [141, 0]),
        ("edge 4", 2**31 - 1, [-(2**31)]),
    ]
    assert {r[2] for r in rows} == {r[4] for r in rows} == {"integer"}
    assert box.sql(
        "select count(*) from executions where typeof(exit_status) not in ('integer', 'null') "
        "or typeof(duration_ms) not in ('integer', 'null')"
    ) == [(0,)]
    history = box.cli("history", "--json", "-n", "0")
    assert history.returncode == 0, history.stderr
    assert {row["command"] for row in json.loads(history.stdout)} >= {"edge 1", "edge 2", "edge 3", "edge 4"}
    session_id = box.sql("select session_id from executions where command = 'edge 1'")[0][0]
    shown = box.cli("sessions", "show", session_id, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["session"]["pid"] == 2**31 - 1
    assert_serving(box)


def test_error_reply_echoes_the_id_and_the_connection_stays_usable(box):
    with box.client() as client:
        client.send_raw(b'{"v":1,"id":41,"type":"nope"}\n')
        reply = client.receive()
        assert reply["id"] == 41 and reply["error"]["code"] == "unknown_type"
        assert client.call("ping", id=42)["id"] == 42


def test_oversized_message_is_refused_before_it_is_buffered(box):
    # 64 KiB against a 4 KiB limit: the daemon answers too_large and closes without reading it all.
    big = b'{"v":1,"type":"command_started","session":"1-1","seq":1,"command":"' + b"a" * 65536 + b'"}\n'
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(str(box.runtime / "daemon.sock"))
        try:
            sock.sendall(big)
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = sock.recv(65536)
    assert error_code(out.splitlines()[0]) == "too_large"
    assert_serving(box)


def test_noreply_requests_get_no_reply_not_even_an_error(box):
    with box.client() as client:
        client.send("ping", noreply=True)
        client.send("command_finished", session="1-1", noreply=True)  # invalid (no seq): still silent
        client.send_raw(b'{"v":1,"type":"ping","id":"after"}\n')
        assert client.receive()["id"] == "after"


def half_message(box: Sandbox, timeout: float) -> socket.socket:
    """A connection that sent half a ping and then fell silent."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(str(box.runtime / "daemon.sock"))
    sock.sendall(b'{"v":1,"id":"late","type":"pi')
    return sock


def test_silent_client_is_dropped_by_its_own_timeout_not_for_its_half_message(box, make_sandbox):
    """Two daemons, each holding a half message: the one configured with 0.5 s drops its client
    (closed, no reply), while the one on the default 30 s still holds its own and answers it once
    completed. So the drop comes from the configured timeout, not from the partial read. How long
    after the timeout the drop comes is bench/daemon_idle_drop.py's figure, not this test's."""
    patient = make_sandbox()
    patient.run()
    waiting, silent = half_message(patient, timeout=60), half_message(box, timeout=60)
    with waiting, silent:
        assert silent.recv(100) == b""  # dropped without a reply (the 60 s only bounds a hang)
        waiting.setblocking(False)
        with pytest.raises(BlockingIOError):  # neither closed nor answered: still waiting
            waiting.recv(100)
        waiting.setblocking(True)
        waiting.sendall(b'ng"}\n')
        reply = b""
        while not reply.endswith(b"\n") and (chunk := waiting.recv(65536)):
            reply += chunk
        assert json.loads(reply)["ok"] is True and json.loads(reply)["id"] == "late"
    assert_serving(box)


def test_many_messages_on_one_connection_are_answered_in_order(box):
    with box.client() as client:
        lines = b"".join(
            json.dumps({"v": 1, "type": "command_finished", "id": i, **finished("9-1.0", i)}).encode() + b"\n"
            for i in range(200)
        )
        client.send_raw(lines)
        assert [client.receive()["id"] for _ in range(200)] == list(range(200))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(min_size=1, max_size=512))
def test_random_bytes_never_break_the_daemon(box, data):
    out = raw(box, data + b"\n")
    for line in out.splitlines():
        assert json.loads(line)["ok"] in (True, False)
    assert_serving(box)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kind=st.sampled_from(
        [
            "session_start",
            "command_started",
            "command_finished",
            "command_output",
            "session_end",
            "current_session",
            "classify",
        ]
    ),
    fields=st.dictionaries(
        st.sampled_from(
            [
                "session",
                "seq",
                "command",
                "exit_status",
                "pipeline_statuses",
                "cwd",
                "env",
                "pid",
                "started_at",
                "finished_at",
                "duration_ms",
                "output",
                "text",
            ]
        ),
        json_values,
        max_size=6,
    ),
)
def test_random_fields_on_real_types_never_break_the_daemon(box, kind, fields):
    line = json.dumps({"v": 1, "type": kind, **fields}).encode() + b"\n"
    reply = json.loads(raw(box, line).splitlines()[0])
    assert reply["ok"] in (True, False)
    if not reply["ok"]:
        assert reply["error"]["code"] in ("bad_request", "unavailable")
    assert_serving(box)


def test_status_reports_its_figures(box):
    with box.client() as client:
        status = client.call("status")
    for key in (
        "pid",
        "version",
        "uptime_s",
        "rss_bytes",
        "cpu_percent",
        "sessions_open",
        "requests_served",
        "queue_depth",
        "store_url",
        "last_error",
    ):
        assert key in status
    assert status["rss_bytes"] > 10_000_000 and status["requests_served"] > 0
    with box.client() as client:  # a whole message as a dict works too (parsec doctor sends one)
        assert client.request({"type": "status"})["pid"] == status["pid"]


def test_status_counts_the_store_writer_process_too(box):
    """The store writer is a process of its own (SQLAlchemy, the store's connection): the daemon's
    memory and CPU in `status` are those of the whole tree, not of the process that answers."""
    import psutil

    with box.client() as client:
        client.call("command_finished", **finished("79-1.0", 1))
        client.call("flush")  # a record reaches the store: its writer process is running
        status = client.call("status")
    daemon = psutil.Process(status["pid"])
    writers = daemon.children(recursive=True)
    assert writers, "the daemon runs its store writer in a child process"
    assert status["processes"] == 1 + len(writers)
    own = daemon.memory_info().rss
    assert status["rss_bytes"] > own + sum(child.memory_info().rss for child in writers) // 2


def test_classify_weighs_the_files_in_the_shells_directory(box, tmp_path):
    """The hook sends its cwd: arguments that name files there are evidence of a command."""
    (tmp_path / "todo").write_text("")
    (tmp_path / "list").write_text("")
    with box.client() as client:
        elsewhere = client.call("classify", text="cat todo list", first_word="file", cwd="/")
        here = client.call("classify", text="cat todo list", first_word="file", cwd=str(tmp_path))
    assert here["decision"] == "command" and "existing files" in here["reason"]
    assert "existing files" not in elsewhere["reason"] and here["confidence"] > elsewhere["confidence"]


def test_the_protocol_version_is_written_in_one_place():
    # parsec/protocol/version.py: the models, the light clients (current_session.py, `parsec
    # shell`'s relay) take it from there, and `parsec init` writes it into the hooks' messages
    # (tests/hooks/test_hook_messages.py checks what they send); nothing else writes it.
    import re
    from pathlib import Path

    from parsec.cli.shell.hook_scripts import VERSION_SLOT

    repo = Path(__file__).resolve().parents[2]
    writers = [*(repo / "shell-hooks").glob("parsec.*"), *(repo / "parsec").rglob("*.py")]
    found = {
        str(path.relative_to(repo)): versions
        for path in writers
        if (versions := set(re.findall(r'\\?"v\\?":\s*(\d+)', path.read_text())))  # bash/zsh escape the quotes
    }
    assert found == {}
    hooks = sorted((repo / "shell-hooks").glob("parsec.*"))
    assert len(hooks) == 3 and all(VERSION_SLOT in path.read_text() for path in hooks)
