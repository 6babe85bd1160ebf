"""`parsec import` of history files written by the real shells.

zsh writes the files here itself (`print -s` then `fc -W`) and reads them back (`fc -R`): what
zsh reads is what the import must find. bash writes Debian's default history (no HISTTIMEFORMAT,
so no times) after a day that the hooks recorded live, and the import must neither duplicate
that day nor stamp the older lines with the import's time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from daemon.harness import Sandbox, finished

from parsec.store.importers import parse_zsh

pytestmark = pytest.mark.skipif(not (shutil.which("zsh") and shutil.which("bash")), reason="needs zsh and bash")

# Commands as the user typed them: a line continued with a backslash, a loop over three lines, a
# backslash inside a line, and a continued line whose next line looks like an extended entry.
MULTILINE = [
    "docker run --rm \\\n  -v $PWD:/src \\\n  alpine ls /src",
    "for i in 1 2 3; do\n  echo $i\ndone",
    "printf 'a\\tb\\n'",
    "git status",
    "echo start \\\n: 1700000000:0;not an entry",
]


@pytest.fixture
def box():
    sandbox = Sandbox()
    yield sandbox
    sandbox.close()


def zsh(script: str) -> bytes:
    done = subprocess.run(
        ["zsh", "-f", "-i", "-c", script], stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=True
    )
    return done.stdout


def zsh_writes(path: Path, commands: list[str], *, extended: bool) -> None:
    """zsh itself writes `commands` as its history file (EXTENDED_HISTORY or plain)."""
    adds = "; ".join("print -rs -- " + _zsh_quote(command) for command in commands)
    options = "setopt extendedhistory; " if extended else ""
    zsh(f"HISTSIZE=1000; SAVEHIST=1000; HISTFILE={_zsh_quote(str(path))}; {options}{adds}; fc -W")


def zsh_reads(path: Path) -> list[str]:
    """The commands zsh reads back from `path`, oldest first."""
    out = zsh(
        f"HISTSIZE=1000; fc -R {_zsh_quote(str(path))}; print -rs -- '--end--'; "
        'zmodload zsh/parameter; print -rn -- "${(@pj:\\0:)${(@v)history}}"'
    )
    return list(reversed(out.decode().split("\0")))  # $history lists the newest first


def _zsh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def history_commands(box: Sandbox) -> list[str]:
    result = box.cli("history", "--json", "-n", "0")
    assert result.returncode == 0, result.stderr
    return [row["command"] for row in json.loads(result.stdout)]


@pytest.mark.parametrize("extended", [True, False], ids=["extended", "plain"])
def test_zsh_multiline_commands_import_whole(box, tmp_path, extended) -> None:
    history = tmp_path / ".zsh_history"
    zsh_writes(history, MULTILINE, extended=extended)
    assert b"\\\\\n" in history.read_bytes()  # the continued line ends in two backslashes on disk
    assert zsh_reads(history) == MULTILINE
    assert [entry.command for entry in parse_zsh(history.read_bytes()).entries] == MULTILINE

    result = box.cli("import", "zsh", str(history))
    assert result.returncode == 0, result.stderr
    assert f"{len(MULTILINE)} entries, {len(MULTILINE)} added" in result.stdout, result.stdout
    assert "0 malformed" in result.stdout
    assert Counter(history_commands(box)) == Counter(MULTILINE)


BEFORE = ["ls -la", "git status", "make", "git status", "ssh build-host"]  # typed before Parsec
DAY = ["git status", "vim notes.md", "make test", "git status", "ls -la", "git push"]  # recorded live


def bash_writes(path: Path, commands: list[str]) -> None:
    """bash writes `commands` as Debian's default ~/.bash_history: no HISTTIMEFORMAT, no times."""
    adds = "; ".join("history -s " + _zsh_quote(command) for command in commands)
    subprocess.run(
        [
            "bash",
            "--norc",
            "--noprofile",
            "-i",
            "-c",
            f"HISTFILE={path}; history -c; {adds}; history -w; unset HISTFILE",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "HISTTIMEFORMAT"},
    )


def test_debian_default_bash_history_after_a_day_of_live_recording(box, tmp_path) -> None:
    start = time.time() - 8 * 3600
    box.run()
    with box.client(timeout=60) as client:
        client.call("session_start", session="600-1.0", shell="bash", pid=os.getpid(), cwd="/tmp")
        for seq, command in enumerate(DAY, 1):
            when = start + seq * 600
            message = finished("600-1.0", seq, command) | {"started_at": when, "finished_at": when + 0.5}
            assert client.call("command_finished", **message)["recorded"]
        assert client.call("flush")["in_store"] is True
    box.kill()
    history = tmp_path / ".bash_history"
    bash_writes(history, BEFORE + DAY)
    assert b"#" not in history.read_bytes()

    first = box.cli("import", "bash", str(history))
    assert first.returncode == 0, first.stderr
    entries = len(BEFORE) + len(DAY)
    assert f"{entries} entries, {len(BEFORE)} added, 0 already present, {len(DAY)} already recorded live" in (
        first.stdout
    ), first.stdout
    assert Counter(history_commands(box)) == Counter(BEFORE + DAY)
    # Newest first: the day as recorded live, then the older lines, in the file's order.
    assert history_commands(box) == list(reversed(DAY)) + list(reversed(BEFORE))
    oldest_live = box.sql("SELECT min(executed_at) FROM executions WHERE source != 'import'")[0][0]
    newest_imported = box.sql("SELECT max(executed_at) FROM executions WHERE source = 'import'")[0][0]
    assert newest_imported < oldest_live

    second = box.cli("import", "bash", str(history))
    assert f"{entries} entries, 0 added, {len(BEFORE)} already present, {len(DAY)} already recorded live" in (
        second.stdout
    ), second.stdout
    assert len(history_commands(box)) == entries
