"""Another local user plants the runtime directory, or a socket in it, before the user's daemon
runs (XDG_RUNTIME_DIR unset: ssh without pam_systemd, su, cron). Every client of the directory
(`parsec daemon status`, doctor, `parsec shell`'s relay, the session lookup) refuses to talk to
it, and the attacker's listener receives nothing. The hooks' side: tests/hooks/test_other_user.py."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from other_user import attacker_ids, shared_tmp

from parsec.cli.shell.hook_relay import HookRelay
from parsec.errors import UnsafeRuntimeDir
from parsec.protocol import current_session, endpoints
from parsec.protocol.client import DaemonClient

REFUSAL = "is not a private directory of yours"

# Runs as the attacker (no parsec import): answers every line as a daemon would, and prints what
# each connection sent; a connection that sends QUIT ends it (after all the earlier ones).
LISTENER = r"""
import json, os, socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
server.listen()
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    conn.settimeout(2)
    got = b""
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += chunk
            conn.sendall(b'{"v":1,"id":1,"ok":true,"pid":null,"version":null}\n')
    except OSError:
        pass
    conn.close()
    if got == b"QUIT":
        break
    print(json.dumps({"got": got.decode("utf-8", "replace")}), flush=True)
"""


class Listener:
    """The attacker's fake daemon on `path` (made by the attacker, in a directory it can write)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        uid, gid = attacker_ids()
        self.process = subprocess.Popen(
            ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "python3", "-c", LISTENER, str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        ready = self.process.stdout.readline()  # awaited: the socket is bound once it says so
        assert ready == "ready\n", self.process.stderr.read()

    def received(self) -> list[str]:
        """What every connection so far sent (the listener is ended through `path`, wherever the
        socket was moved to: the test says where)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(self.path))
            sock.sendall(b"QUIT")
        out, _ = self.process.communicate(timeout=30)
        return [json.loads(line)["got"] for line in out.splitlines() if line.startswith("{")]


@pytest.fixture
def planted(sandbox):
    """TMPDIR a shared sticky directory, XDG_RUNTIME_DIR unset; the attacker made
    `$TMPDIR/parsec-<uid>` (mode 0777) and listens on its daemon.sock."""
    tmp = shared_tmp()
    trap = tmp / f"parsec-{os.getuid()}"
    made = subprocess.run(
        ["setpriv", f"--reuid={attacker_ids()[0]}", f"--regid={attacker_ids()[1]}", "--clear-groups"]
        + ["mkdir", "-m", "777", str(trap)],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    listener = Listener(trap / "daemon.sock")
    sandbox.env.pop("XDG_RUNTIME_DIR")
    sandbox.env["TMPDIR"] = str(tmp)
    try:
        yield sandbox, trap, listener
    finally:
        listener.process.kill()
        listener.process.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def test_cli_and_doctor_refuse_a_runtime_dir_another_user_made(planted):
    sandbox, trap, listener = planted
    status = sandbox.cli("daemon", "status")
    assert status.returncode != 0 and REFUSAL in status.stderr and str(trap) in status.stderr
    classify = sandbox.cli("classify", "--json", "export GITHUB_TOKEN=ghp_x")
    doctor = sandbox.cli("doctor")
    daemon_line = next(line for line in doctor.stdout.splitlines() if "daemon" in line)
    assert not daemon_line.startswith("[ok") and REFUSAL in daemon_line, doctor.stdout
    assert listener.received() == [], classify.stdout


def test_parsec_shell_relay_and_session_lookup_refuse_it(planted, monkeypatch):
    sandbox, trap, listener = planted
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", sandbox.env["TMPDIR"])
    assert endpoints.runtime_dir() == trap
    relay = HookRelay(runtime=trap)
    assert REFUSAL in (relay.problem() or "")
    finished = {"v": 1, "type": "command_finished", "noreply": True, "session": "1-1", "seq": 1}
    relay.feed(json.dumps({**finished, "command": "export GITHUB_TOKEN=ghp_secret"}).encode() + b"\n")
    relay.command_output("1-1", 1, "secret output", 13)
    relay.close()
    assert current_session.ask_daemon("1-1") is None
    assert listener.received() == []
    assert sorted(p.name for p in trap.iterdir()) == ["daemon.sock"]  # nothing spooled there either


def test_a_socket_served_by_another_user_is_refused(sandbox):
    """The directory is the user's own and private, but the process behind daemon.sock is not:
    SO_PEERCRED tells (the attacker's socket moved in, as a mount or a race could)."""
    tmp = shared_tmp()
    try:
        made = subprocess.run(
            ["setpriv", f"--reuid={attacker_ids()[0]}", f"--regid={attacker_ids()[1]}", "--clear-groups"]
            + ["mkdir", "-m", "777", str(tmp / "theirs")],
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0, made.stderr
        listener = Listener(tmp / "theirs" / "daemon.sock")
        mine = tmp / "mine"
        mine.mkdir(mode=0o700)
        os.rename(tmp / "theirs" / "daemon.sock", mine / "daemon.sock")  # the bound socket moves with it
        listener.path = mine / "daemon.sock"
        with pytest.raises(UnsafeRuntimeDir, match=f"served by uid {attacker_ids()[0]}"):
            DaemonClient.connect(mine, timeout=5)
        relay = HookRelay(runtime=mine)
        assert relay.problem() is None  # the directory itself is fine
        relay.feed(b'{"v":1,"type":"status","noreply":true}\n')
        relay.close()
        assert listener.received() == ["", ""]  # two connections, each refused before a byte was sent
        assert not (mine / "spool").exists()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
