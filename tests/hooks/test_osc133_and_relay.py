"""The pieces of `parsec shell` on their own: the mark scanner, ANSI stripping, the relay."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

from hypothesis import given
from hypothesis import strategies as st

from parsec.cli.shell.hook_relay import HookRelay
from parsec.cli.shell.osc133 import AltScreen, Mark, MarkScanner, strip_ansi
from parsec.cli.shell.output_capture import OutputCapture

from .fake_daemon import FakeDaemon, read_spool
from .harness import REPO

STREAM = (
    b"T> ls\r\n\x1b]133;C\x07\x1b[1;34mdir\x1b[0m\r\nfile\r\n"
    b"\x1b]133;D;0;parsec=42-1.5:7\x1b\\\x1b]133;A\x07T> vim\r\n\x1b]133;C\x07\x1b[?1049hscreen"
)


def events(chunks):
    scanner = MarkScanner()
    out = []
    for chunk in chunks:
        out.extend(scanner.feed(chunk))
    merged = []  # join adjacent byte runs: how a stream was cut must not matter
    for event in out:
        if isinstance(event, bytes) and merged and isinstance(merged[-1], bytes):
            merged[-1] += event
        else:
            merged.append(event)
    return merged


def test_scanner_finds_marks_and_alternate_screen():
    found = events([STREAM])
    marks = [e for e in found if isinstance(e, Mark)]
    assert [m.kind for m in marks] == ["C", "D", "A", "C"]
    assert marks[1].exit_status == 0 and marks[1].option("parsec") == "42-1.5:7"
    assert any(isinstance(e, AltScreen) for e in found)
    assert b"".join(e for e in found if isinstance(e, bytes)) == re.sub(
        rb"\x1b\]133;[^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[\?1049h", b"", STREAM
    )


@given(st.lists(st.integers(min_value=1, max_value=len(STREAM) - 1), unique=True, max_size=12))
def test_scanner_does_not_care_where_the_stream_is_cut(cuts):
    bounds = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in zip(bounds, bounds[1:])]
    assert events(chunks) == events([STREAM])


def test_strip_ansi_and_bounded_capture():
    assert strip_ansi(b"\x1b[31mred\x1b[0m\r\n50%\r100%\r\n\x1b]0;title\x07done\x07") == "red\n100%\ndone"
    capture = OutputCapture(keep=10)
    for i in range(1000):
        capture.add(f"{i}\n".encode())
    assert capture.total == sum(len(f"{i}\n") for i in range(1000))
    assert capture.text() == "0\n1\n2\n3\n4\n" + "\n" + "7\n998\n999\n"  # first and last 10 bytes


def test_relay_sends_output_before_its_record_masks_and_excludes(tmp_path):
    daemon = FakeDaemon(tmp_path / "run").start()
    relay = HookRelay(
        runtime=tmp_path / "run",
        exclude=[re.compile("^secret-tool")],
        mask=lambda text: text.replace("hunter2", "[REDACTED]"),
    )
    finished = {"v": 1, "type": "command_finished", "noreply": True, "session": "9-1.0", "seq": 1, "command": "cat pw"}
    relay.feed(json.dumps(finished).encode()[:20])  # lines may arrive in pieces
    relay.feed(json.dumps(finished).encode()[20:] + b"\n")
    relay.command_output("9-1.0", 1, "password hunter2\n", 17)
    excluded = dict(finished, seq=2, command="secret-tool get")
    relay.command_output("9-1.0", 2, "top secret\n", 11)  # the mark may come first
    relay.feed(json.dumps(excluded).encode() + b"\n")
    relay.close()
    deadline = time.monotonic() + 5
    while len(daemon.messages) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    daemon.stop()
    kinds = [(m["type"], m["seq"]) for m in daemon.messages]
    assert kinds == [("command_output", 1), ("command_finished", 1), ("command_finished", 2)]
    assert daemon.messages[0]["output"] == "password [REDACTED]\n"


def test_relay_spools_when_the_daemon_is_down(tmp_path):
    relay = HookRelay(runtime=tmp_path / "run")
    relay.feed(b'{"v":1,"type":"command_finished","noreply":true,"session":"9-1.0","seq":1,"command":"ls"}\n')
    relay.close()  # no D mark ever came: the record goes alone
    assert [m["command"] for m in read_spool(tmp_path / "run")] == ["ls"]


def test_init_prints_the_hook_without_heavy_imports(tmp_path):
    code = (
        "import sys, io; from parsec.cli.entry import main; out = io.StringIO(); sys.stdout = out; rc = main(['init', 'bash']);"
        "sys.stdout = sys.__stdout__; heavy = [m for m in ('pydantic', 'sqlalchemy', 'httpx', 'typer') if m in sys.modules];"
        "print(rc, len(out.getvalue()), heavy)"
    )
    # (XDG_DATA_HOME: `parsec init` also writes the hook file there, not in the real ~)
    no_config = {**os.environ, "PARSEC_CONFIG": str(REPO / "no-such-config.toml"), "XDG_DATA_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=no_config)
    from parsec.cli.shell.hook_scripts import hook_script, parsec_command  # the hook as served; the autostart's command

    state_changing = (REPO / "parsec" / "routing" / "state_changing.txt").read_text().split()
    settings = (
        "__parsec_exclude=()\n"
        + f"__parsec_state_changing=' {' '.join(state_changing)} '\n"
        + f"__parsec_hook_file='{tmp_path / 'parsec' / 'hook.bash'}'\n"  # what an open shell checks for
        + f"__parsec_bin='{parsec_command()}'\n"
    )
    size = len(settings) + len(hook_script("bash"))
    assert result.stdout.split() == ["0", str(size), "[]"]
    assert (tmp_path / "parsec" / "hook.bash").read_text().endswith(settings + hook_script("bash"))
    bad = subprocess.run([sys.executable, "-m", "parsec.cli.entry", "init", "tcsh"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "choose one of" in bad.stderr
