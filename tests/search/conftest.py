"""A real SQLite store under a temporary XDG tree, filled through the store's own API."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store


def db_path(env: dict) -> str:
    return f"{env['XDG_DATA_HOME']}/parsec/parsec.db"


class Recorder:
    """Adds commands to a store, `minutes_ago` each."""

    def __init__(self, env: dict) -> None:
        self.store = open_store(f"sqlite:///{db_path(env)}")
        self.now = datetime.now(UTC)
        self.session = Session(shell="bash", host="laptop", user="me", created_at=self.now - timedelta(days=9))
        self.store.save_session(self.session)

    def add(
        self,
        command: str,
        cwd: str,
        minutes_ago: float,
        status: int | None = 0,
        session: Session | None = None,
        **extra,
    ) -> DirectCommandExecution:
        item = DirectCommandExecution(
            session_id=(session or self.session).id,
            command=command,
            executed_at=self.now - timedelta(minutes=minutes_ago),
            exit_status=status,
            duration_ms=1200,
            working_directory=cwd,
            host="laptop",
            **extra,
        )
        self.store.append_executions([item])
        return item

    def new_session(self) -> Session:
        session = Session(shell="zsh", host="laptop", user="me", created_at=self.now - timedelta(days=1))
        self.store.save_session(session)
        return session


@pytest.fixture
def recorder(env):
    recording = Recorder(env)
    yield recording
    recording.store.close()
