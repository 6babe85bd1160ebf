"""The hooks and the daemon find the runtime directory by one rule: `$XDG_RUNTIME_DIR/parsec`,
else `$TMPDIR/parsec-<uid>`, else `/tmp/parsec-<uid>`, each only when absolute (issue 27: with
only TMP set, the daemon used $TMP and every hook's records went to a spool no daemon read)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import need
from .harness import Shell

CASES = {
    "only TMP and TEMP": {"TMP": "/var/tmp", "TEMP": "/var/tmp"},
    "relative TMPDIR": {"TMPDIR": "relative/dir", "TMP": "/var/tmp"},
    "TMPDIR with a slash at the end": {"TMPDIR": "/var/tmp/"},
}
SHOW = {"bash": "echo RT=$__parsec_runtime", "zsh": "echo RT=$__parsec_runtime", "fish": "echo RT=$__parsec_runtime"}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
@pytest.mark.parametrize("case", list(CASES))
def test_hooks_and_daemon_agree_on_the_runtime_directory(sandbox, shell, case):
    need(shell)
    for name in ("XDG_RUNTIME_DIR", "TMPDIR", "TMP", "TEMP"):
        sandbox.env.pop(name, None)
    sandbox.env.update(CASES[case], PARSEC_HOOKS_AUTOSTART_DAEMON="0", PARSEC_HOOKS_ROUTE_PROMPTS="0")
    python = subprocess.run(
        [sys.executable, "-c", "from parsec.protocol.endpoints import runtime_dir; print(runtime_dir())"],
        env=sandbox.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    sh = Shell(shell, sandbox)
    shown = sh.run(SHOW[shell]).split("RT=")[-1].split()[0]
    sh.exit()
    assert shown == python
