"""Only the owner gets in: the directory and socket modes, and SO_PEERCRED behind them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from parsec.errors import UnsafeRuntimeDir

from .harness import finished

# Runs as `nobody`: plain sockets, no parsec import (nobody may not read the checkout).
PROBE = r"""
import json, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.settimeout(5)
try:
    sock.connect(sys.argv[1])
except OSError as err:
    print(json.dumps({"connect_error": err.errno})); sys.exit(0)
try:  # the daemon may already have refused and closed
    sock.sendall(b'{"v":1,"type":"status"}\n{"v":1,"type":"command_finished","session":"1-1","seq":1,"command":"rm -rf /"}\n')
except OSError:
    pass
data = b""
while True:
    try:
        chunk = sock.recv(65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
print(json.dumps({"replies": [json.loads(l) for l in data.splitlines()]}))
"""


def as_nobody(*args: str) -> dict:
    if os.getuid() != 0:
        pytest.skip("needs root to switch to nobody")
    setpriv = shutil.which("setpriv")
    command = (
        [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        if setpriv
        else ["runuser", "-u", "nobody", "--"]
    )
    out = subprocess.run(
        [*command, "/usr/bin/env", "python3", "-c", PROBE, *args], capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_another_user_cannot_reach_the_socket(sandbox):
    sandbox.run()
    # The runtime directory is 0700: another user cannot even reach the socket.
    os.chmod(sandbox.root, 0o755)
    os.chmod(sandbox.root / "runtime", 0o755)
    assert as_nobody(str(sandbox.runtime / "daemon.sock")) == {"connect_error": 13}


def test_another_user_is_refused_by_peer_credentials(sandbox):
    sandbox.run()
    with sandbox.client() as client:
        before = client.call("status")["requests_served"]
    # Even when someone loosens the modes, the peer's uid is checked.
    for path in (sandbox.root, sandbox.root / "runtime", sandbox.runtime):
        os.chmod(path, 0o755)
    os.chmod(sandbox.runtime / "daemon.sock", 0o777)
    result = as_nobody(str(sandbox.runtime / "daemon.sock"))
    assert [reply["error"]["code"] for reply in result["replies"]] == ["unauthorized"]
    with pytest.raises(UnsafeRuntimeDir):  # and the user's own clients no longer trust it
        sandbox.client()
    os.chmod(sandbox.runtime, 0o700)
    with sandbox.client() as client:
        assert client.call("status")["requests_served"] == before + 1  # this status; nothing of nobody's
        client.call("flush")
    assert sandbox.execution_count() == 0


def test_secrets_never_reach_the_store(sandbox):
    sandbox.run()
    with sandbox.client() as client:
        client.call(
            "session_start",
            session="4242-1.5",
            shell="bash",
            pid=4242,
            cwd="/tmp",
            env={
                "TERM": "xterm",
                "GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "EDITOR": "vim",
                "PATH": "/usr/bin",
                "AWS_SECRET_ACCESS_KEY": "x" * 40,
            },
        )
        client.call("command_output", session="4242-1.5", seq=1, output="password=hunter2 and more\n")
        client.call("command_finished", **finished("4242-1.5", 1, command="mysql --password=hunter2 -u root"))
        client.call("command_finished", **finished("4242-1.5", 2, command=" echo hidden with a leading space"))
        client.call("flush")
    dump = "\n".join(
        str(row) for row in sandbox.sql("select * from executions") + sandbox.sql("select * from sessions")
    )
    assert "hunter2" not in dump and "ghp_" not in dump and "x" * 40 not in dump
    assert "GITHUB_TOKEN" not in dump and "PATH" not in dump
    assert "hidden" not in dump
    assert "[REDACTED" in dump and '"EDITOR": "vim"' in dump
    sandbox.terminate()
    log = (sandbox.root / "state" / "parsec" / "daemon.log").read_text()
    assert "listening" in log and "hunter2" not in log and "mysql" not in log


def test_a_runtime_dir_owned_by_someone_else_is_refused(sandbox):
    if os.getuid() != 0:
        pytest.skip("needs root to make a directory owned by nobody")
    sandbox.runtime.mkdir(parents=True)
    shutil.chown(sandbox.runtime, "nobody")
    result = sandbox.cli("daemon", "start")
    assert result.returncode == 1 and "is not a private directory of yours" in result.stderr
    assert result.stderr.count("\n") == 1 and not (sandbox.runtime / "daemon.sock").exists()


def test_status_hides_the_store_password():
    from parsec.daemon.server import public_url

    assert (
        public_url("postgresql+psycopg://parsec:s3cret@db:5432/parsec")
        == "postgresql+psycopg://parsec:***@db:5432/parsec"
    )
    assert public_url("postgresql://parsec@db/parsec") == "postgresql://parsec@db/parsec"
    assert (
        public_url("sqlite:////home/me/.local/share/parsec/parsec.db")
        == "sqlite:////home/me/.local/share/parsec/parsec.db"
    )


ATTACK = r"""
import json, os, socket, sys
runtime = sys.argv[1]
result = {}
for name in ("hooks.fifo", "daemon.sock", "reply"):
    try:
        os.open(os.path.join(runtime, name), os.O_RDWR | os.O_NONBLOCK)
        result[name] = "opened"
    except OSError as err:
        result[name] = err.errno
try:
    os.symlink("/etc/passwd", os.path.join(runtime, "spool"))
    result["plant"] = "planted"
except OSError as err:
    result["plant"] = err.errno
print(json.dumps(result))
"""


def test_another_user_can_open_or_plant_nothing(sandbox):
    """A real second account (useradd): no FIFO, no socket, no symlink in the runtime directory,
    and no network port to try instead."""
    from other_user import as_attacker

    sandbox.run()
    os.chmod(sandbox.root, 0o755)  # the sandbox's parents are private; /run/user/<uid> is not
    os.chmod(sandbox.root / "runtime", 0o755)
    out = as_attacker(["/usr/bin/env", "python3", "-c", ATTACK, str(sandbox.runtime)])
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"hooks.fifo": 13, "daemon.sock": 13, "reply": 13, "plant": 13}
    import psutil

    assert psutil.Process(sandbox.pid()).net_connections(kind="inet") == []
