"""Bad input: wrong files, unwritable directories, unreachable servers and hostile text."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from parsec.errors import StoreError, StoreUnavailable
from parsec.models.parsec_model import new_id
from parsec.models.session import DirectCommandExecution
from parsec.models.text import TruncatedText
from parsec.store import open_store
from parsec.store.protocols import ExecutionQuery


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path):
    path = tmp_path / "parsec.db"
    path.write_text("# my notes, not a database\n" * 100)
    before = digest(path)
    with pytest.raises(StoreError, match="not a SQLite database"):
        open_store(f"sqlite:///{path}")
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parsec.db"]


def test_a_corrupt_sqlite_file_is_refused_untouched(tmp_path, sqlite_url):
    from parsec.store.sqlite_url import sqlite_file

    store = open_store(sqlite_url)
    store.append_executions([DirectCommandExecution(session_id=new_id(), command=f"ls {i}") for i in range(500)])
    store.close()
    path = tmp_path / "broken.db"
    data = bytearray(sqlite_file(sqlite_url).read_bytes())
    data[100 : 4096 * 3] = os.urandom(4096 * 3 - 100)  # keep the header, wreck the schema pages
    path.write_bytes(bytes(data))
    before = digest(path)
    with pytest.raises(StoreError, match="damaged"):
        open_store(f"sqlite:///{path}")
    assert digest(path) == before


def test_a_directory_at_the_store_path_is_refused(tmp_path):
    with pytest.raises(StoreError, match="is a directory"):
        open_store(f"sqlite:///{tmp_path}")


def _open_without_write_permission(url: str) -> subprocess.CompletedProcess:
    """Open the store in a child that file permissions bind, even when the tests run as root."""
    code = (
        "import sys\nfrom parsec.store import open_store\nfrom parsec.errors import ParsecError\n"
        f"try:\n    open_store({url!r})\nexcept ParsecError as err:\n"
        "    print(type(err).__name__ + ': ' + str(err)); sys.exit(3)\n"
    )
    command = [sys.executable, "-c", code]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot drop the permission override")
        caps = "-dac_override,-dac_read_search"
        command = [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}", "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_a_read_only_directory_gives_a_clear_error(tmp_path):
    directory = tmp_path / "ro"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        result = _open_without_write_permission(f"sqlite:///{directory / 'parsec.db'}")
    finally:
        directory.chmod(0o700)
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout.startswith("StoreError: cannot create the store") and "writable" in result.stdout
    assert len(result.stdout.strip().splitlines()) == 1
    assert list(directory.iterdir()) == []


def test_an_existing_store_in_a_read_only_directory_gives_a_clear_error(tmp_path):
    directory = tmp_path / "ro"
    directory.mkdir()
    open_store(f"sqlite:///{directory / 'parsec.db'}").close()
    before = digest(directory / "parsec.db")
    directory.chmod(0o500)
    try:
        result = _open_without_write_permission(f"sqlite:///{directory / 'parsec.db'}")
    finally:
        directory.chmod(0o700)
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout.startswith("StoreError:") and "permission" in result.stdout.lower()
    assert digest(directory / "parsec.db") == before


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket is closed


def test_an_unreachable_postgresql_fails_fast_and_clearly():
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="cannot reach the store") as caught:
        open_store(f"postgresql://postgres@127.0.0.1:{_closed_port()}/test", connect_timeout_s=2)
    assert time.monotonic() - started < 5
    assert "\n" not in str(caught.value)


def test_a_silent_postgresql_server_times_out(tmp_path):
    # A server that accepts the connection and never answers: only the timeout can save us.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            open_store(f"postgresql://postgres@127.0.0.1:{port}/test", connect_timeout_s=2)
        assert time.monotonic() - started < 6


@pytest.mark.parametrize("url", ["not a url", "nosuchdb://x/y"])
def test_a_malformed_url_is_a_one_line_error(url):
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert "\n" not in str(caught.value)


def test_hostile_text_is_stored_safely(store):
    session = new_id()
    ten_mb = ("line of output " * 10 + "\n").encode() * 67_000 + b"\xff\xfe\x00end"
    assert len(ten_mb) > 10_000_000
    execution = DirectCommandExecution(
        session_id=session,
        command=b"printf 'a\x00b' \xc3\x28 caf\xc3\xa9".decode("utf-8", "surrogateescape"),
        working_directory="/tmp/\udcffdir",
        stdout=TruncatedText.from_output(ten_mb, limit=1024),
        stderr=TruncatedText.from_output(b"\x00\x01\x02\xff" * 10),
    )
    store.append_executions([execution])
    [back] = store.query_executions(ExecutionQuery())
    assert "\x00" not in back.command and back.command.endswith("café")
    assert back.working_directory.startswith("/tmp/") and back.working_directory.endswith("dir")
    assert back.stdout == execution.stdout and back.stdout.original_bytes > 10_000_000
    assert back.stdout.tail.endswith("end")
    assert back.stderr == execution.stderr
    assert store.count_executions(ExecutionQuery(search="café")) == 1


def test_a_huge_untruncated_output_round_trips(store):
    # Callers should truncate, but a whole 10 MB output must still not break the store.
    big = TruncatedText.from_output("x" * 10_000_000, limit=20_000_000)
    execution = DirectCommandExecution(session_id=new_id(), command="cat big.log", stdout=big)
    store.append_executions([execution])
    [back] = store.query_executions(ExecutionQuery())
    assert back.stdout.original_bytes == 10_000_000 and back.stdout.head == big.head


def test_the_default_store_is_created_private(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = open_store("")
    store.set_preference("ns", "k", {})
    store.close()
    directory = tmp_path / "data" / "parsec"
    assert (directory / "parsec.db").stat().st_mode & 0o777 == 0o600
    assert directory.stat().st_mode & 0o777 == 0o700
