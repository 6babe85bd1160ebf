"""`parsec sessions` on a terminal: one line per session, within 80 and 120 columns (issue 28
item 7: the rich table folded every row at 80 columns and wrapped at 120)."""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime, timedelta

import pexpect
import pytest

from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def sessions(env) -> list[Session]:
    now = datetime.now(UTC)
    store = open_store(f"sqlite:///{env['XDG_DATA_HOME']}/parsec/parsec.db")
    made = []
    for n, (shell, host) in enumerate(
        [("bash", "laptop"), ("zsh", "build-server-eu-west-1.example.com"), ("fish", "laptop")]
    ):
        session = Session(shell=shell, host=host, user="me", created_at=now - timedelta(hours=n + 1), last_active=now)
        session.global_context.working_directory = f"{env['HOME']}/src/company/platform/billing/api/handlers/v{n}"
        if n == 2:
            session.ended_at = now
        store.save_session(session)
        store.append_executions(
            [DirectCommandExecution(session_id=session.id, command="ls", executed_at=now, exit_status=n)]
        )
        made.append(session)
    store.close()
    return made


def screen(env: dict, columns: int) -> list[str]:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "parsec.cli.entry", "sessions"],
        env=env,
        dimensions=(40, columns),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return [ANSI.sub("", line) for line in child.before.replace("\r\n", "\n").splitlines() if line.strip()]


@pytest.mark.parametrize("columns", [80, 120])
def test_one_line_per_session_within_the_width(env, sessions, columns) -> None:
    lines = screen(env, columns)
    assert len(lines) == 1 + len(sessions), lines  # a header, then one line each: nothing folded
    assert all(len(line) < columns for line in lines), [line for line in lines if len(line) >= columns]
    header = lines[0].split()
    assert header[:2] == ["id", "shell"] and "host" in header and header[-1] == "cwd", header
    for session in sessions:  # the newest first, each with an id prefix `sessions show` takes
        row = next(line for line in lines if line.startswith(session.id[:10]))
        assert session.shell in row and ("/v" in row or "…" in row), row
    assert any("build-s" in line for line in lines) and any("ended" in line for line in lines)
    if columns == 120:
        assert "2026" in lines[1] or str(datetime.now().year) in lines[1]  # room for the full date
        assert "handlers/v0" in "\n".join(lines)


def test_piped_output_stays_complete_and_tab_separated(env, sessions) -> None:
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "sessions"], env=env, capture_output=True, text=True, timeout=60
    ).stdout
    assert all(session.id in out for session in sessions)
    assert "build-server-eu-west-1.example.com" in out and "\t" in out


def test_an_imported_sessions_shown_id_is_one_sessions_show_takes(env, tmp_path) -> None:
    """Imported sessions' ids have no time (ten 0s): with one listed and another not, the ten
    characters shown matched both and `parsec sessions show` refused them."""
    import subprocess

    for n, command in enumerate(["ls", "pwd"]):
        history = tmp_path / f"history-{n}"
        history.write_text(command + "\n")
        run = [sys.executable, "-m", "parsec.cli.entry", "import", "zsh", str(history)]
        assert subprocess.run(run, env=env, capture_output=True, timeout=60).returncode == 0
    child = pexpect.spawn(
        sys.executable,
        ["-m", "parsec.cli.entry", "sessions", "--limit", "1"],
        env=env,
        dimensions=(40, 100),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    lines = [ANSI.sub("", line) for line in child.before.replace("\r\n", "\n").splitlines() if line.strip()]
    shown = lines[1].split()[0]
    show = [sys.executable, "-m", "parsec.cli.entry", "sessions", "show", shown]
    done = subprocess.run(show, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
