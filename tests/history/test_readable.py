"""`parsec history` for a person: captured output, an 80-column table, a pager, the spool note."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pexpect
import pytest

from parsec.models.session import DirectCommandExecution, Session
from parsec.models.text import TruncatedText
from parsec.store import open_store

from .test_cli import db_url, run

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def stored(env):
    now = datetime.now(UTC)
    home = env["HOME"]
    store = open_store(db_url(env))
    session = Session(shell="bash", host="laptop", user="me", created_at=now - timedelta(hours=1))
    store.save_session(session)
    deep = f"{home}/src/company/platform/services/billing/api/handlers/v2"
    store.append_executions(
        [
            DirectCommandExecution(
                session_id=session.id,
                command="make lint",
                executed_at=now - timedelta(minutes=9),
                exit_status=2,
                working_directory=home,
                stdout=TruncatedText.from_output("lint.py:3: unused import\n"),
            ),
            DirectCommandExecution(
                session_id=session.id,
                command="kubectl get pods " + "--selector app=x " * 12,
                executed_at=now - timedelta(minutes=8),
                exit_status=0,
                working_directory=deep,
            ),
            DirectCommandExecution(
                session_id=session.id,
                command="for i in 1 2; do\n  echo $i\ndone",
                executed_at=now - timedelta(minutes=7),
                exit_status=0,
                working_directory="/tmp",
            ),
        ]
    )
    store.close()
    return {"deep": deep, "session": session}


def test_output_in_json_says_the_streams_are_merged(env, stored) -> None:
    rows = {r["command"]: r for r in json.loads(run(env, "history", "--json").stdout)}
    lint = rows["make lint"]
    assert lint["output"] == "lint.py:3: unused import"
    assert lint["output_streams"] == "merged" and lint["stderr"] is None
    assert lint["stdout"]["head"].startswith("lint.py:3")
    assert rows["for i in 1 2; do\n  echo $i\ndone"]["output"] is None
    piped = run(env, "history", "--output").stdout
    assert "    | lint.py:3: unused import" in piped


def spawn_history(env: dict, *args: str, columns: int = 80, lines: int = 40) -> str:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "parsec.cli.entry", "history", *args],
        env=env,
        dimensions=(lines, columns),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before


def test_table_fits_80_columns(env, stored) -> None:
    screen = spawn_history(env, "--output")
    lines = [ANSI.sub("", line) for line in screen.replace("\r\n", "\n").splitlines() if line.strip()]
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    text = "\n".join(lines)
    assert "kubectl get pods --selector" in text and "…" in text  # cut with an ellipsis
    assert "~/src/" in text or "~/sr" in text  # home as ~, then the middle elided
    assert "for i in 1 2; do ⏎+2" in text  # multi-line marked
    assert "│ lint.py:3: unused import" in text  # --output on a terminal


def test_a_long_table_goes_through_the_pager(env, stored) -> None:
    paged = dict(env, PAGER="sed 's/^/PAGED:/'")
    assert "PAGED:" in spawn_history(paged, lines=4)  # a header and 3 rows, and the shell prompt after
    assert "PAGED:" not in spawn_history(paged, lines=40)


def test_a_pager_that_is_not_there_still_shows_the_table(env, stored) -> None:
    """$PAGER naming a command that is not installed: the shell says so (127), and the table is
    printed after all instead of being lost."""
    screen = spawn_history(dict(env, PAGER="no-such-pager-here"), lines=4)
    assert "kubectl get pods" in ANSI.sub("", screen), screen


def test_says_how_many_commands_wait_in_the_spool(env, stored) -> None:
    spool = Path(env["XDG_RUNTIME_DIR"]) / "parsec" / "spool"
    spool.mkdir(parents=True)
    (spool / "zsh-1-2.jsonl").write_text('{"v":1,"type":"command_finished","seq":1}\n' * 3)
    result = run(env, "history")
    assert "3 recorded commands wait in the spool" in result.stderr
    (spool / "zsh-1-2.jsonl").unlink()
    assert "spool" not in run(env, "history").stderr


def test_sessions_show_prints_captured_output(env, stored) -> None:
    sid = stored["session"].id
    shown = run(env, "sessions", "show", sid)
    assert shown.returncode == 0, shown.stderr
    assert "lint.py:3: unused import" in shown.stdout
    commands = json.loads(run(env, "sessions", "show", sid, "--json").stdout)["commands"]
    lint = next(c for c in commands if c["command"] == "make lint")
    assert lint["output_streams"] == "merged" and lint["stderr"] is None
