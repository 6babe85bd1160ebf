"""Ctrl-R in real bash, zsh and fish through a pseudo-terminal: the hook opens `parsec search`,
Enter runs the chosen command, Tab puts it on the line for editing, Esc gives back the line.

The store is filled beforehand; no daemon runs (the search reads the store itself)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store

from .conftest import need
from .harness import Shell

SHELLS = ["bash", "zsh", "fish"]
OPEN = "esc cancel"  # the search's last line: its first frame is drawn
CLOSED = "\x1b8\r\x1b[J\x1b8"  # the search wipes what it drew below the prompt


def closed_showing(child, line: str) -> None:
    """The search closed and the shell redrew its line holding `line`."""
    child.expect_exact(CLOSED)
    child.expect_exact(line.split()[-1])  # (fish colours each word: look for the last one)


@pytest.fixture
def history(sandbox):
    store = open_store(sandbox.store_url)
    now = datetime.now(UTC)
    session = Session(shell="bash", host="h", user="u", created_at=now - timedelta(hours=2))
    store.save_session(session)
    store.append_executions(
        [
            DirectCommandExecution(
                session_id=session.id,
                command=command,
                executed_at=now - timedelta(minutes=minutes),
                exit_status=0,
                working_directory=str(sandbox.work),
            )
            for command, minutes in (
                ("echo picked-one", 30),
                ("echo other-two", 20),
                ("echo zz-first", 10),
                ("echo zz-second", 40),
            )
        ]
    )
    store.close()


@pytest.mark.parametrize("kind", SHELLS)
def test_ctrl_r_enter_runs_tab_edits_escape_restores(kind, sandbox, history):
    need(kind)
    sh = Shell(kind, sandbox)
    child = sh.child
    child.timeout = 30

    # the typed line is the initial query; Enter runs the match
    child.send("picked")
    child.send("\x12")
    child.expect("1 found")
    child.expect(OPEN)
    child.send("\r")
    assert "picked-one" in sh.expect_prompt()

    # Tab: on the line for editing; what is typed next is added, Enter runs the edited line
    child.send("\x12")
    child.expect(OPEN)
    child.send("other")
    child.expect("1 found")
    child.send("\t")
    closed_showing(child, "echo other-two")
    child.send(" edited")
    child.send("\r")
    assert "other-two edited" in sh.expect_prompt()

    # move: down selects the second match
    child.send("\x12")
    child.expect(OPEN)
    child.send("zz-")
    child.expect("2 found")
    child.send("\x1b[B")
    child.expect_exact("\x1b[7mecho zz-second")
    child.send("\r")
    out = sh.expect_prompt()
    assert "zz-second" in out and "zz-first" not in out

    # Esc (and Ctrl-G, Ctrl-C) cancel and give back the line as it was
    for key in ("\x1b", "\x07", "\x03"):
        child.send("echo kept-line")
        child.send("\x12")
        child.expect(OPEN)
        child.send("nothing-like-this")
        child.expect("0 found")  # searched to the end: nothing matches
        child.send(key)
        closed_showing(child, "echo kept-line")  # (an Enter right behind an Esc would read as Alt-Enter)
        child.send("\r")
        assert "kept-line" in sh.expect_prompt()
    sh.exit()


@pytest.mark.parametrize("kind", SHELLS)
def test_config_leaves_ctrl_r_alone_and_binds_another_key(kind, sandbox, history):
    need(kind)
    key = {"bash": "\\\\es", "zsh": "\\\\es", "fish": "\\\\es"}[kind]
    sandbox.write_config(f'[search]\nbind_ctrl_r = false\nkey = "{key}"\n')
    sh = Shell(kind, sandbox)
    child = sh.child
    child.timeout = 30
    child.send("\x1bs")  # Alt-S: the configured key
    child.expect(OPEN)
    child.send("picked")
    child.expect("1 found")
    child.send("\r")
    assert "picked-one" in sh.expect_prompt()
    child.send("\x12")  # the shell's own Ctrl-R now: not Parsec's search
    child.expect({"bash": "reverse-i-search", "zsh": "bck-i-search", "fish": "search: "}[kind])
    assert OPEN not in child.before
    child.close(force=True)


@pytest.mark.parametrize("kind", SHELLS)
def test_up_arrow_opens_the_search_on_this_session_when_configured(kind, sandbox, history):
    need(kind)
    sandbox.write_config("[search]\nbind_up_arrow = true\n")
    sh = Shell(kind, sandbox)
    child = sh.child
    child.timeout = 30
    sh.run("echo mine-only")  # spooled (no daemon): the search says so, and finds its session by the hook's key
    child.send("\x1b[A")
    child.expect("session · ")  # filtered to this shell's session (none of the stored rows are in it)
    child.expect(OPEN)
    child.send("\x1b")
    closed_showing(child, "T>")
    child.close(force=True)


@pytest.mark.parametrize("kind", SHELLS)
def test_the_typed_line_never_reaches_the_search_argv(kind, sandbox, history):
    """The line on the prompt may hold a token; any local user can read /proc/PID/cmdline. The
    hook hands the line over in the search's environment, which only its owner can read."""
    need(kind)
    token = "ghp_" + "Zq8vR2mK5tW9xY3bN7cD1fG4hJ6kL0pQ2sT8"
    sh = Shell(kind, sandbox)
    child = sh.child
    child.timeout = 30
    child.send(f"echo {token}")
    child.send("\x12")
    child.expect("0 found")  # the search is open, and took the typed line as its query
    searches = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"search" in argv and any(b"parsec" in part for part in argv):
            searches.append(argv)
            assert not any(token.encode() in part for part in argv), argv
    assert searches, "the search process was not found"
    child.send("\x1b")
    closed_showing(child, token)
