"""An undated history file is matched against the live records of its own host only: in a
shared store another machine's live `make` is not this file's `make` (docs/history.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from parsec.cli.history.import_cmd import import_history
from parsec.config import PrivacyConfig
from parsec.models.session import DirectCommandExecution, Session
from parsec.privacy.filters import PrivacyFilter
from parsec.store import open_store
from parsec.store.protocols import ExecutionQuery


def test_live_records_of_another_host_do_not_hide_this_hosts_lines(tmp_path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'parsec.db'}")
    now = datetime.now(UTC)
    for host in ("elsewhere", "here"):
        session = Session(shell="bash", host=host, user="me", created_at=now - timedelta(hours=1), last_active=now)
        store.save_session(session)
        command = "make deploy" if host == "elsewhere" else "make test"
        store.append_executions(
            [DirectCommandExecution(session_id=session.id, command=command, executed_at=now, host=host, user="me")]
        )
    history = tmp_path / ".bash_history"
    history.write_text("make deploy\nmake test\n")  # undated, like Debian's default bash history

    report = import_history(store, "bash", history, PrivacyFilter(PrivacyConfig(), False), host="here", user="me")

    imported = [e.command for e in store.query_executions(ExecutionQuery(limit=10)) if e.source == "import"]
    store.close()
    assert imported == ["make deploy"]  # `make test` was recorded live here; `make deploy` only elsewhere
    assert report.added == 1
