"""No secret in any argv: every local user can read /proc/PID/cmdline. While a token flows through
bash, zsh and fish (a variable set with it, a question quoting it) and the store is a PostgreSQL
URL with a password, a watcher reads the command line of every process on the machine: neither
the token nor the password ever appears. (The line a shell runs is the user's own: the stand-in
for `parsec ask` here is the builtin `true`, so the only processes are Parsec's.)"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from .conftest import need
from .harness import Daemon, Shell

TOKEN = "ghp_" + "Zq8vR2mK5tW9xY3bN7cD1fG4hJ6kL0pQ2sT8"
PASSWORD = "Pg-s3cret-" + "4bd91c"
PROSE = f"please explain how to rotate the api token {TOKEN} in our deploy settings"
SET_LINE = {"bash": f"export GITHUB_TOKEN={TOKEN}", "zsh": f"export GITHUB_TOKEN={TOKEN}"}
SET_LINE["fish"] = f"set -gx GITHUB_TOKEN {TOKEN}"


class CmdlineWatcher:
    """Reads every process's cmdline in a loop until stopped: what held a secret, and which
    Parsec processes it saw (so a pass means it looked)."""

    def __init__(self) -> None:
        self.leaks: list[str] = []
        self.seen: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> CmdlineWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        me = str(os.getpid())
        while not self._stop.is_set():
            for pid in os.listdir("/proc"):
                if not pid.isdigit() or pid == me:
                    continue
                try:
                    raw = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                text = raw.replace(b"\0", b" ").decode("utf-8", "replace")
                if TOKEN in text or PASSWORD in text:
                    self.leaks.append(text[:300])
                if "parsec.daemon.store_process" in text:
                    self.seen.add("store writer")
                elif "parsec-classify" in text:
                    self.seen.add("fish classify helper")


def converse(sh: Shell, line: str) -> None:
    """Type `line`; if the hook asks whether it is a command or a question, it is a question."""
    sh.child.sendline(line)
    from .harness import FRESH_PROMPT

    # The keys' legend: a key sent before it shows is type-ahead, and the line would run.
    if sh.child.expect([FRESH_PROMPT[sh.kind], r"\[a\] ask Parsec"]) == 1:
        sh.child.send("a")
        sh.expect_prompt()


@pytest.fixture
def pg_password_daemon(sandbox, pg_url):
    url = pg_url.replace("://postgres@", f"://postgres:{PASSWORD}@", 1)
    assert PASSWORD in url
    sandbox.write_config(f'[store]\nurl = "{url}"\n')
    sandbox.env["PARSEC_ASK_COMMAND"] = "true"
    running = Daemon(sandbox).start()
    yield running
    running.stop()


def test_no_secret_reaches_any_command_line(sandbox, pg_password_daemon):
    daemon = pg_password_daemon
    shells = [kind for kind in ("bash", "zsh", "fish") if need_or_none(kind)]
    with CmdlineWatcher() as watcher:
        for kind in shells:
            sh = Shell(kind, sandbox)
            sh.run(SET_LINE[kind])
            converse(sh, PROSE)
            # A hung daemon: fish's helper then waits for its answer (PARSEC_HOOK_TIMEOUT, 1 s
            # here), long enough for any reader of /proc to find it.
            os.kill(daemon.proc.pid, signal.SIGSTOP)
            try:
                converse(sh, PROSE.replace("please explain", "please tell me"))
            finally:
                os.kill(daemon.proc.pid, signal.SIGCONT)
            sh.run("echo done")
            sh.exit()
        daemon.call("flush")
    assert watcher.leaks == []
    assert "store writer" in watcher.seen
    if "fish" in shells:
        assert "fish classify helper" in watcher.seen


def need_or_none(kind: str) -> bool:
    try:
        need(kind)
    except pytest.skip.Exception:
        return False
    return True
