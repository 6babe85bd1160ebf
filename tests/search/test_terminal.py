"""`parsec search` in a real pseudo-terminal: it draws on /dev/tty and answers on stdout."""

from __future__ import annotations

import io
import socket
import sqlite3
import sys
import threading
from pathlib import Path

import pexpect

from .conftest import db_path

HELP = "esc cancel"


def spawn(env: dict, *args: str, cwd: str | None = None, columns: int = 100) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "parsec.cli.entry", "search", *args],
        env=env,
        cwd=cwd,
        dimensions=(30, columns),
        encoding="utf-8",
        timeout=30,
    )
    return child


def answer(child: pexpect.spawn) -> str:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before.rsplit("\x1b8", 1)[-1].replace("\r\n", "\n")


def test_type_move_and_run(recorder, env, tmp_path) -> None:
    recorder.add("docker compose up -d", str(tmp_path), minutes_ago=30)
    recorder.add("docker ps", str(tmp_path), minutes_ago=20)
    recorder.add("ls -la", str(tmp_path), minutes_ago=10)
    child = spawn(env, cwd=str(tmp_path))
    child.expect(HELP)
    child.send("dock")
    child.expect("2 found")
    child.send("\x1b[B")  # down: the second match
    child.expect_exact("\x1b[7mdocker compose")  # the selected row is in reverse video
    child.send("\r")
    assert answer(child) == "run\ndocker compose up -d"


def test_tab_edits_the_typed_line_is_the_query_and_escape_cancels(recorder, env, tmp_path) -> None:
    recorder.add("cargo build --release", str(tmp_path), minutes_ago=30)
    recorder.add("cargo test", str(tmp_path), minutes_ago=20)
    child = spawn(env, "--query", "cargo b", cwd=str(tmp_path))
    child.expect("1 found")
    child.send("\t")
    assert answer(child) == "edit\ncargo build --release"
    for key in ("\x1b", "\x07", "\x03"):  # Esc, Ctrl-G, Ctrl-C
        child = spawn(env, "--query", "cargo", cwd=str(tmp_path))
        child.expect(HELP)
        child.send(key)
        assert answer(child) == "cancel\n"


def test_multi_line_command_shown_and_returned_whole(recorder, env, tmp_path) -> None:
    recorder.add('for f in *.txt; do\n  wc -l "$f"\ndone', str(tmp_path), minutes_ago=3)
    child = spawn(env, "--query", "wc", cwd=str(tmp_path))
    child.expect("wc -l")
    child.send("\r")
    assert answer(child) == 'run\nfor f in *.txt; do\n  wc -l "$f"\ndone'


def test_filter_and_mode_keys_and_failed_only(recorder, env, tmp_path) -> None:
    recorder.add("pytest -x tests", str(tmp_path), minutes_ago=5, status=1)
    recorder.add("pytest tests/unit", "/elsewhere", minutes_ago=4)
    child = spawn(env, "--query", "pytest", "--filter", "failed", cwd=str(tmp_path))
    child.expect("failed · 1 found")
    child.expect(HELP)
    child.send("\x12")  # Ctrl-R: the next filter mode (everywhere)
    child.expect("everywhere · 2 found")
    child.send("\x12")
    child.expect("directory · 1 found")
    child.send("\x13")  # Ctrl-S: prefix matching
    child.expect("prefix · directory")
    child.send("\x1b")
    assert answer(child) == "cancel\n"


def test_ctrl_d_forgets_after_asking(recorder, env, tmp_path) -> None:
    recorder.add("rm -rf build-oops", str(tmp_path), minutes_ago=9)
    recorder.add("rm -rf build-oops", str(tmp_path), minutes_ago=8)
    recorder.add("echo kept", str(tmp_path), minutes_ago=7)
    child = spawn(env, "--query", "oops", cwd=str(tmp_path))
    child.expect(HELP)
    child.send("\x04")
    child.expect(r"forget 2 commands matching 'rm -rf build-oops'\? \[y/N\]")
    child.send("n")
    child.expect("nothing forgotten")
    child.send("\x04")
    child.expect(r"\[y/N\]")
    child.send("y")
    child.expect("forgot 2 commands")
    child.send("\x1b")
    assert answer(child) == "cancel\n"
    with sqlite3.connect(db_path(env)) as connection:
        assert [r[0] for r in connection.execute("SELECT command FROM executions")] == ["echo kept"]


def test_preview_shows_captured_output_and_says_it_is_merged(recorder, env, tmp_path) -> None:
    from parsec.models.text import TruncatedText

    recorder.add("make lint", str(tmp_path), minutes_ago=2, stdout=TruncatedText.from_output("lint: 3 warnings\n"))
    child = spawn(env, "--query", "lint", cwd=str(tmp_path))
    child.expect("stdout and stderr merged")
    child.expect("lint: 3 warnings")
    child.send("\x1b")
    answer(child)


def test_works_without_the_daemon_and_counts_the_spool(recorder, env, tmp_path) -> None:
    recorder.add("uptime", str(tmp_path), minutes_ago=2)
    spool = Path(env["XDG_RUNTIME_DIR"]) / "parsec" / "spool"
    spool.mkdir(parents=True)
    line = '{"v":1,"type":"command_finished","noreply":true,"session":"1-2","seq":%d,"command":"x"}\n'
    (spool / "bash-1-2.jsonl").write_text('{"v":1,"type":"session_start"}\n' + line % 1 + line % 2)
    child = spawn(env, cwd=str(tmp_path))
    child.expect("2 recorded commands wait in the spool")
    child.send("\x1b")
    answer(child)


class HungDaemon:
    """A real socket where the daemon's would be: it accepts, reads, and never answers."""

    def __init__(self, runtime: Path) -> None:
        runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(runtime / "daemon.sock"))
        self.server.listen(8)
        self.received = b""
        self.hung_up = threading.Event()  # the client gave up and closed its end
        threading.Thread(target=self._hold, daemon=True).start()

    def _hold(self) -> None:
        conn, _ = self.server.accept()
        with conn:
            while chunk := conn.recv(65536):
                self.received += chunk
        self.hung_up.set()

    def close(self) -> None:
        self.server.close()


def test_a_hung_daemon_does_not_hold_the_search(recorder, env, tmp_path) -> None:
    """Ctrl-R first asks a running daemon to take the spool in, waiting at most
    SEARCH_FLUSH_WAIT_S for its answer: one that never answers must not freeze the key. The
    search gives up on it, opens and shows what the store holds; nothing is said of the spool
    (the daemon is running: it takes the spool in later)."""
    recorder.add("make deploy", str(tmp_path), minutes_ago=5)
    runtime = Path(env["XDG_RUNTIME_DIR"]) / "parsec"
    hung = HungDaemon(runtime)
    try:
        (runtime / "spool").mkdir(mode=0o700)
        (runtime / "spool" / "bash-1-2.jsonl").write_text(
            '{"v":1,"type":"command_finished","noreply":true,"session":"1-2","seq":1,"command":"make test"}\n'
        )
        child = spawn(env, "--query", "make", cwd=str(tmp_path))  # its 30 s timeout: a hang guard
        child.logfile_read = screen = io.StringIO()
        child.expect("1 found")
        child.expect_exact("make deploy")
        assert b'"type":"flush"' in hung.received  # it did ask the daemon
        assert hung.hung_up.wait(timeout=30)  # and gave up on it (a hang guard, not a speed figure)
        child.send("\x1b")
        answer(child)
    finally:
        hung.close()
    assert "spool" not in screen.getvalue()


def test_full_screen_uses_the_alternate_screen(recorder, env, tmp_path) -> None:
    recorder.add("htop", str(tmp_path), minutes_ago=1)
    child = spawn(env, "--full-screen", cwd=str(tmp_path))
    child.expect_exact("\x1b[?1049h")
    child.expect(HELP)
    child.send("\r")
    child.expect_exact("\x1b[?1049l")
    assert answer(child) == "run\nhtop"


def test_the_typed_line_with_options_finds_itself(recorder, env, tmp_path) -> None:
    """Issue 28: `-word` was an exclusion, so `git commit -m` hid every `git commit -m` and
    `ls -la` listed unrelated commands; a leading `:` opens filters, where `-word` excludes."""
    history = [
        'git commit -m "fix the parser"',
        'git commit -m "add tests"',
        "git commit --amend",
        "git status",
        "ls -la",
        "ls",
        "docker run --rm -it alpine sh",
        "docker run -d nginx",
    ]
    for i, command in enumerate(history):
        recorder.add(command, str(tmp_path), minutes_ago=len(history) - i)
    # fuzzy matching: `-m` is the letters of `--amend` too; what was typed as is ranks first
    for typed, found, first in [
        ("git commit -m", 3, 'git commit -m "add tests"'),
        ("ls -la", 1, "ls -la"),
        ("docker run --rm", 1, "docker run --rm -it alpine sh"),
        (":git commit -amend", 2, 'git commit -m "add tests"'),
    ]:
        child = spawn(env, "--query", typed, cwd=str(tmp_path))
        child.expect(f" {found} found")
        child.send("\r")
        assert answer(child) == f"run\n{first}"
    child = spawn(env, cwd=str(tmp_path))  # typed in the search box, not passed on the command line
    child.expect(HELP)
    child.send("git commit -m")
    child.expect(" 3 found")
    child.send("\r")
    assert answer(child) == 'run\ngit commit -m "add tests"'
