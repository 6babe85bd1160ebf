"""PostgreSQL stopped in the middle of a load, then restarted: the journal is replayed, in order,
nothing lost and nothing duplicated. Runs its own server (initdb + pg_ctl) on a free port."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from .harness import finished


def _bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        pytest.skip(f"{name} not installed")
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="pg"))
        self.data = self.root / "data"
        self.port = _free_port()
        if os.getuid() == 0:  # initdb refuses root: the cluster belongs to the postgres user
            shutil.chown(self.root, "postgres", "postgres")
            self.as_owner = ["runuser", "-u", "postgres", "--"]
        else:
            self.as_owner = []
        self._run(_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")

    def _run(self, *args: str) -> None:
        result = subprocess.run([*self.as_owner, *args], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off"
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")

    def stop(self) -> None:
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def close(self) -> None:
        subprocess.run(
            [*self.as_owner, _bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def postgres():
    server = PostgresServer()
    server.start()
    yield server
    server.close()


def _count(server: PostgresServer) -> tuple[int, int]:
    import psycopg

    with psycopg.connect(f"postgresql://postgres@127.0.0.1:{server.port}/postgres", connect_timeout=5) as db:
        return db.execute("select count(*), count(distinct id) from executions").fetchone()


def test_postgres_outage_is_spooled_and_replayed(make_sandbox, postgres):
    box = make_sandbox(store_url=postgres.url, store_connect_timeout_s=2, daemon_flush_interval_ms=20)
    box.run()
    with box.client() as client:
        for seq in range(200):
            assert client.call("command_finished", **finished("600-1.0", seq))["ok"]
        assert client.call("flush")["in_store"] is True
        assert _count(postgres) == (200, 200)

        postgres.stop()
        started = time.monotonic()
        for seq in range(200, 500):
            assert client.call("command_finished", **finished("600-1.0", seq))["ok"]
        assert time.monotonic() - started < 10  # replies never waited for the dead store
        flushed = client.call("flush")
        assert flushed["in_store"] is False and flushed["queue_depth"] >= 300
        status = client.call("status")
        assert status["store_ok"] is False and status["last_error"]
        assert "postgres@" in status["store_url"]

        postgres.start()
        deadline = time.monotonic() + 30
        while not client.call("flush")["in_store"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert client.call("status")["queue_depth"] == 0
    assert _count(postgres) == (500, 500)
    assert _commands_in_insert_order(postgres) == [f"echo {seq}" for seq in range(500)]  # replayed in order
    assert box.terminate() == 0
    assert _count(postgres) == (500, 500)


def _commands_in_insert_order(server: PostgresServer) -> list[str]:
    import psycopg

    with psycopg.connect(f"postgresql://postgres@127.0.0.1:{server.port}/postgres", connect_timeout=5) as db:
        return [row[0] for row in db.execute("select command from executions order by seq")]


def _signal_server(server: PostgresServer, sig: int) -> None:
    """Send `sig` to this test's own postmaster and every process it started (by pid)."""
    import psutil

    pid = int((server.data / "postmaster.pid").read_text().split()[0])
    postmaster = psutil.Process(pid)
    for process in [postmaster, *postmaster.children(recursive=True)]:
        try:
            process.send_signal(sig)
        except psutil.NoSuchProcess:
            pass


def test_hung_postgres_is_reported_and_flush_answers(make_sandbox, postgres):
    import signal

    box = make_sandbox(store_url=postgres.url, store_connect_timeout_s=2, daemon_flush_interval_ms=20)
    box.run()
    try:
        with box.client(timeout=60) as client:
            for seq in range(50):
                assert client.call("command_finished", **finished("610-1.0", seq))["ok"]
            assert client.call("flush")["in_store"] is True
            _signal_server(postgres, signal.SIGSTOP)
            for seq in range(50, 150):
                assert client.call("command_finished", **finished("610-1.0", seq))["ok"]
            started = time.monotonic()
            flushed = client.call("flush")
            assert time.monotonic() - started < 45  # answered (after at most 30 s), not hung with the store
            assert flushed["in_store"] is False and flushed["queue_depth"] >= 100
            assert "store not answering within" in flushed["store_problem"]
            status = client.call("status")
            assert status["store_problem"].startswith("store not answering"), status
            shown = box.cli("daemon", "status")  # by now the replaced writer may be timing out connecting
            assert "store not answering" in shown.stdout, shown.stdout
        _signal_server(postgres, signal.SIGCONT)
        with box.client(timeout=60) as client:
            deadline = time.monotonic() + 90
            while client.call("status")["queue_depth"] and time.monotonic() < deadline:
                time.sleep(0.2)
            assert client.call("status")["queue_depth"] == 0
        assert _count(postgres) == (150, 150)
    finally:
        _signal_server(postgres, signal.SIGCONT)
