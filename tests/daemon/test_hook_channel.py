"""The shells' FIFO transport (parsec/daemon/hook_channel.py) against a real daemon process."""

from __future__ import annotations

import json
import os
import select
import stat
import time

import psutil

from parsec.daemon.hook_channel import hook_answer, write_reply

from .harness import finished


def line(kind: str, **fields: object) -> bytes:
    return json.dumps({"v": 1, "type": kind, **fields}, separators=(",", ":")).encode() + b"\n"


def write_fifo(box, *lines: bytes) -> None:
    fd = os.open(box.runtime / "hooks.fifo", os.O_WRONLY | os.O_NONBLOCK)
    try:
        for item in lines:
            assert os.write(fd, item) == len(item)
    finally:
        os.close(fd)


def wait_for_executions(box, count: int, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with box.client() as client:
            client.call("flush")
        if box.execution_count() >= count:
            break
        time.sleep(0.1)
    return box.execution_count()


def test_nothing_listens_on_the_network(sandbox):
    sandbox.run()
    daemon = psutil.Process(sandbox.pid())
    assert daemon.net_connections(kind="inet") == []
    assert not (sandbox.runtime / "tcp").exists()
    fifo = os.lstat(sandbox.runtime / "hooks.fifo")
    assert stat.S_ISFIFO(fifo.st_mode) and fifo.st_mode & 0o777 == 0o600
    reply = os.lstat(sandbox.runtime / "reply")
    assert stat.S_ISDIR(reply.st_mode) and reply.st_mode & 0o777 == 0o700


def test_records_in_and_answers_out_with_their_id(sandbox):
    sandbox.run()
    reply_path = sandbox.runtime / "reply" / f"{os.getpid()}-1.5"
    os.mkfifo(reply_path, 0o600)
    reply_fd = os.open(reply_path, os.O_RDWR | os.O_NONBLOCK)
    try:
        write_fifo(
            sandbox,
            line("session_start", noreply=True, session=f"{os.getpid()}-1.5", shell="bash", pid=os.getpid()),
            line("command_finished", noreply=True, **finished(f"{os.getpid()}-1.5", 1)),
            line(
                "classify",
                id=7,
                reply_to=reply_path.name,
                session="1-1",
                text="how do I list big files",
                first_word="none",
                parses=True,
            ),
        )
        ready, _, _ = select.select([reply_fd], [], [], 15)
        assert ready, "no answer on the reply FIFO"
        answer = json.loads(os.read(reply_fd, 65536).splitlines()[0])
        assert answer["id"] == 7 and answer["ok"] and answer["decision"] == "prompt"
        assert set(answer) == {"v", "id", "ok", "decision"}  # what a hook reads, no more (bash reads bytewise)
    finally:
        os.close(reply_fd)
    assert wait_for_executions(sandbox, 1) == 1


def test_a_reply_is_written_whole_or_not_at_all(tmp_path):
    """The hooks read the rest of an answer they have begun without a timeout: a reply larger than
    one atomic pipe write would leave them waiting, so it is never written."""
    path = tmp_path / "reply"
    os.mkfifo(path, 0o600)
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    try:
        assert write_reply(path, b'{"id":1,"ok":true}\n')
        assert os.read(fd, 65536) == b'{"id":1,"ok":true}\n'
        assert not write_reply(path, b"x" * (select.PIPE_BUF + 1))
        assert select.select([fd], [], [], 0)[0] == []
    finally:
        os.close(fd)


def test_an_error_answer_keeps_its_code_only():
    reply = {"v": 1, "id": 3, "ok": False, "error": {"code": "bad_request", "message": "m" * 10_000}}
    assert hook_answer(reply) == {"v": 1, "id": 3, "ok": False, "error": {"code": "bad_request"}}


def test_garbage_and_oversized_lines_never_stop_it(make_sandbox):
    box = make_sandbox(daemon_max_message_bytes=4096)
    box.run()
    write_fifo(
        box,
        b"\xff\xfe not json\n",
        b"{" * 10_000 + b"\n",
        b"[1,2]\n",
        line("classify", id=1, reply_to="../../etc/passwd", text="x"),  # not a name: no reply
        line("command_finished", noreply=True, **finished("9-1.0", 1)),
    )
    assert wait_for_executions(box, 1) == 1
    with box.client() as client:
        assert client.call("ping")["ok"]


def test_a_non_utf8_directory_is_recorded(sandbox):
    """Defect 10: a cwd (or command) with bytes that are not UTF-8 used to drop the whole record."""
    sandbox.run()
    record = line("command_finished", noreply=True, **finished("9-1.0", 1, command="ls CMD", cwd="/tmp/DIR"))
    write_fifo(sandbox, record.replace(b"/tmp/DIR", b"/tmp/caf\xe9").replace(b"CMD", b"\xff"))
    assert wait_for_executions(sandbox, 1) == 1
    assert sandbox.sql("select command, cwd from executions") == [("ls \ufffd", "/tmp/caf\ufffd")]


def test_lines_left_by_a_killed_daemon_reach_the_next_one(sandbox):
    sandbox.run()
    old = os.lstat(sandbox.runtime / "hooks.fifo")
    shell_fd = os.open(sandbox.runtime / "hooks.fifo", os.O_RDWR)  # what a shell holds
    try:
        sandbox.kill()
        os.write(shell_fd, line("command_finished", noreply=True, **finished("9-1.0", 1)))
        sandbox.run()
        new = os.lstat(sandbox.runtime / "hooks.fifo")
        assert (new.st_ino, new.st_dev) != (old.st_ino, old.st_dev)  # shells see the change and reopen
        assert wait_for_executions(sandbox, 1) == 1
    finally:
        os.close(shell_fd)


def test_a_clean_stop_removes_the_fifo_after_reading_it(sandbox):
    sandbox.run()
    write_fifo(sandbox, *(line("command_finished", noreply=True, **finished("9-1.0", i)) for i in range(1, 51)))
    assert sandbox.terminate() == 0
    assert not (sandbox.runtime / "hooks.fifo").exists()
    assert sandbox.execution_count() == 50


def test_a_question_with_spaces_after_its_colons_is_answered(sandbox):
    """Valid JSON with any spacing (`json.dumps`' default, `"reply_to": "…"`) is a question too,
    answered, not queued as a record no one reads the answer to (issue 27)."""
    sandbox.run()
    reply_path = sandbox.runtime / "reply" / f"{os.getpid()}-2.5"
    os.mkfifo(reply_path, 0o600)
    reply_fd = os.open(reply_path, os.O_RDWR | os.O_NONBLOCK)
    try:
        question = {"v": 1, "type": "classify", "id": 9, "reply_to": reply_path.name, "session": "1-1"}
        question |= {"text": "how do I list big files", "first_word": "none", "parses": True}
        write_fifo(sandbox, json.dumps(question).encode() + b"\n")  # ", " and ": "
        ready, _, _ = select.select([reply_fd], [], [], 15)  # awaited: the answer, or 15 s without one
        assert ready, "no answer on the reply FIFO"
        answer = json.loads(os.read(reply_fd, 65536).splitlines()[0])
        assert answer["id"] == 9 and answer["decision"] == "prompt"
    finally:
        os.close(reply_fd)
