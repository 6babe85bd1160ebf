"""The pty plumbing both shells share (parsec/pty_session.py), on a real pty."""

from __future__ import annotations

import os
import time

from parsec.pty_session import exit_code, read_pty, readable, spawn_on_pty


def _output_and_status(pid: int, master: int) -> tuple[bytes, int]:
    out = bytearray()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if readable([master], 1.0):
            data = read_pty(master)
            if not data:  # EIO: the child and every holder of the pty are gone
                break
            out.extend(data)
    os.close(master)
    return bytes(out), exit_code(os.waitpid(pid, 0)[1])


def test_handed_fds_land_where_asked_even_when_their_numbers_cross() -> None:
    first_r, first_w = os.pipe()
    second_r, second_w = os.pipe()
    os.write(first_w, b"first\n")
    os.write(second_w, b"second\n")
    # The sources sit at 40 and 41 and swap places: placing one must not clobber the other.
    os.dup2(first_r, 40, inheritable=False)
    os.dup2(second_r, 41, inheritable=False)
    for fd in (first_r, second_r, first_w, second_w):
        os.close(fd)
    pid, master = spawn_on_pty(
        ["bash", "-c", 'read a <&40; read b <&41; echo "$a-$b"; stty size'],
        dict(os.environ),
        fds={40: 41, 41: 40},
        close_other_fds=True,
        default_size=(24, 100),
    )
    out, status = _output_and_status(pid, master)
    text = out.decode().replace("\r", "")
    assert status == 0, text
    assert "second-first\n" in text
    assert "24 100" in text


def test_a_program_that_cannot_start_says_why_and_exits_127() -> None:
    pid, master = spawn_on_pty(["parsec-no-such-program"], dict(os.environ))
    out, status = _output_and_status(pid, master)
    assert status == 127
    assert b"parsec: cannot start parsec-no-such-program" in out


def test_a_child_ended_by_a_signal_reports_128_plus_it() -> None:
    pid, master = spawn_on_pty(["sh", "-c", "kill -TERM $$"], dict(os.environ))
    assert _output_and_status(pid, master)[1] == 128 + 15
